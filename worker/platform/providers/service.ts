/**
 * The supply side: providers (experts, agents, robots), one record per provider user, moving
 * through SPEC.md's states.
 */
import { eq } from 'drizzle-orm';
import { schema, type Database } from '../../lib/db';

const { providers } = schema;

/** The provider record of a user, if they signed up as a provider. */
export async function providerOf(db: Database, userId: string) {
  return db.select().from(providers).where(eq(providers.userId, userId)).get();
}
