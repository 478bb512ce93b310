/**
 * An expert's lead preferences (docs/design/email.md and docs/design/lead-operations.md): availability, alerts,
 * capacity.
 */
import { eq } from 'drizzle-orm';
import { type Database, schema } from '../../lib/db';
import type { ProviderRow } from './records';
import type { Preferences } from './schemas';
import { clock } from '../../lib/clock';

const { providers } = schema;

/** The preferences as the API shows them. */
export function preferencesOf(provider: ProviderRow): Preferences {
  return {
    availability: provider.availability,
    lead_alerts: provider.leadAlerts,
    max_open_claims: provider.maxOpenClaims,
  };
}

/** Saves a change of preferences; answers them all. One round trip. */
export async function savePreferences(
  db: Database,
  provider: ProviderRow,
  patch: Partial<Preferences>,
  now = clock.now(),
): Promise<Preferences> {
  const [saved] = await db
    .update(providers)
    .set({
      ...(patch.availability ? { availability: patch.availability } : {}),
      ...(patch.lead_alerts ? { leadAlerts: patch.lead_alerts } : {}),
      ...(patch.max_open_claims ? { maxOpenClaims: patch.max_open_claims } : {}),
      updatedAt: now,
    })
    .where(eq(providers.id, provider.id))
    .returning();
  return preferencesOf(saved!);
}
