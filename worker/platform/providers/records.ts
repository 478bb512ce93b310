/**
 * Provider records (experts, agents, robots), one per provider user, and the profile view with what
 * is missing and the whole history.
 */
import { eq, type SQL } from 'drizzle-orm';
import { schema, type Database } from '../../lib/db';
import type { StoredAgentCard } from '../agents';
import type { ProviderProfileView } from './schemas';
import { clock } from '../../lib/clock';
import { iso } from '../../lib/periods';

const { providers, providerTransitions } = schema;

export type ProviderRow = typeof providers.$inferSelect;

/** The query of a user's provider record (a user id, or SQL naming one), to run alone or in a batch. */
export function providerByUserQuery(db: Database, userId: string | SQL) {
  return db.select().from(providers).where(eq(providers.userId, userId)).limit(1);
}

/** The provider record of a user, if they signed up as a provider. */
export async function providerOf(db: Database, userId: string): Promise<ProviderRow | undefined> {
  return (await providerByUserQuery(db, userId))[0];
}

/** The fields a profile must have before it can be submitted. */
export function missingFields(
  row: Pick<
    ProviderRow,
    'kind' | 'displayName' | 'headline' | 'acceptedDomains' | 'languages' | 'regions' | 'endpointUrl' | 'agentCardUrl'
  >,
): string[] {
  const missing: string[] = [];
  if (!row.kind) missing.push('kind');
  if (!row.displayName) missing.push('display_name');
  if (!row.headline) missing.push('headline');
  if (row.acceptedDomains.length === 0) missing.push('accepted_scope.domains');
  if (row.languages.length === 0) missing.push('languages');
  if (row.regions.length === 0) missing.push('regions');
  if (row.kind === 'robot' && !row.endpointUrl) missing.push('endpoint_url');
  if (row.kind === 'agent' && !row.agentCardUrl) missing.push('agent_card_url');
  return missing;
}

/** An ISO time, or null. */

/** The agent card kept on a provider row, if any. */
export const storedCardOf = (row: Pick<ProviderRow, 'agentCard'>) => (row.agentCard as StoredAgentCard | null) ?? null;

/** A provider's profile, with what is missing and its whole history. */
export async function describeProvider(
  db: Database,
  row: ProviderRow,
  now = clock.now(),
): Promise<ProviderProfileView> {
  const history = await db
    .select()
    .from(providerTransitions)
    .where(eq(providerTransitions.providerId, row.id))
    .orderBy(providerTransitions.id);
  return {
    provider_id: row.id,
    status: row.status,
    kind: row.kind,
    display_name: row.displayName,
    headline: row.headline,
    bio: row.bio,
    accepted_scope: { domains: row.acceptedDomains, topics: row.acceptedTopics },
    languages: row.languages,
    regions: row.regions,
    endpoint_url: row.endpointUrl,
    agent_card_url: row.agentCardUrl,
    priority: row.priority,
    agent_card: storedCardOf(row)?.summary ?? null,
    agent_bearer_token_set: row.bearerToken !== null,
    timeout_ms: row.timeoutMs,
    version: row.profileVersion,
    signing_secret: {
      issued: row.signingSecret !== null,
      shown: row.signingSecretShownAt !== null,
      previous_valid_until:
        row.previousSigningSecretUntil && row.previousSigningSecretUntil > now
          ? iso(row.previousSigningSecretUntil)
          : null,
    },
    missing_fields: missingFields(row),
    review_note: row.reviewNote,
    submitted_at: iso(row.submittedAt),
    history: history.map((entry) => ({
      from: entry.fromStatus,
      to: entry.toStatus,
      actor: entry.actorKind,
      note: entry.note,
      at: new Date(entry.createdAt).toISOString(),
    })),
  };
}
