/**
 * An admin's review of providers: the queue, one provider, and the approve, reject and suspend
 * decisions, each naming the profile version it decides on.
 */
import { and, desc, eq, sql } from 'drizzle-orm';
import { schema, type Database } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { ProviderStatus } from '../../vocabulary';
import { forgetAgentSupply, signingSecretOnApproval } from '../agents';
import { auditInsertWhere, type AuditContext } from '../audit';
import { openProviderEscrow } from '../billing';
import { nextProviderStatus } from './transitions';

import { describeProvider, type ProviderRow } from './records';
import { iso } from '../../lib/periods';
import { changeApplied, invalidTransition, afterProviderChange, transitionInsert } from './writes';
import { forgetExpertPools } from './pool';
import { clock } from '../../lib/clock';

const { providers, users, escrows } = schema;

export type ReviewDecision = 'approve' | 'reject' | 'suspend';

/**
 * An admin's decision on a provider. The state changes only from the state the decision is for
 * (one conditional UPDATE, so two admins deciding at once cannot both win), with its note. An
 * approved agent or robot also gets its `whsec_` signing secret, returned here once.
 */
export async function reviewProvider(
  db: Database,
  audit: AuditContext,
  providerId: string,
  decision: ReviewDecision,
  options: { note: string | null; version?: number; secretsKey: string | undefined; currency: string },
  now = clock.now(),
): Promise<{ row: ProviderRow; signingSecret?: string }> {
  const row = await db.select().from(providers).where(eq(providers.id, providerId)).get();
  if (!row) throw new ApiError('not_found', `No provider ${providerId}.`);
  const to = nextProviderStatus(row.status, decision);
  if (!to) throw invalidTransition(row.status, decision);
  // An approval is of the version the reviewer read: an edit since then needs a new reading.
  if (decision === 'approve' && options.version !== row.profileVersion)
    throw profileChanged(row.profileVersion, options.version);
  const reviewNote = decision === 'approve' ? null : options.note;
  // An approved agent or robot also gets its signing secret now; the approval's answer shows it once.
  const issued =
    decision === 'approve'
      ? await signingSecretOnApproval(row.kind, row.signingSecret !== null, options.secretsKey, now)
      : undefined;
  const secret = issued?.fields ?? {};
  const changeId = newId('ptr', now);
  const [updated] = await db.batch([
    db
      .update(providers)
      .set({ status: to, reviewNote, ...secret, changeId, updatedAt: now })
      .where(
        and(
          eq(providers.id, providerId),
          eq(providers.status, row.status),
          eq(providers.profileVersion, row.profileVersion),
        ),
      )
      .returning({ id: providers.id }),
    transitionInsert(
      db,
      providerId,
      { from: row.status, to, id: changeId },
      { kind: 'admin', id: audit.actorId },
      options.note,
      now,
    ),
    auditInsertWhere(
      db,
      audit,
      {
        action: `provider.${decision === 'approve' ? 'approved' : decision === 'reject' ? 'rejected' : 'suspended'}`,
        targetId: providerId,
        metadata: { from: row.status, to, note: options.note, version: row.profileVersion },
      },
      changeApplied(providerId, changeId),
      now,
    ),
    // An approved provider has an escrow for lead fees (docs/design/billing.md), opened once.
    ...(to === 'active' ? [openProviderEscrow(db, providerId, options.currency, now)] : []),
  ]);
  if (updated.length === 0) {
    const fresh = await db
      .select({ status: providers.status, version: providers.profileVersion })
      .from(providers)
      .where(eq(providers.id, providerId))
      .get();
    if (decision === 'approve' && fresh?.status === row.status) throw profileChanged(fresh.version, options.version);
    throw invalidTransition(fresh?.status ?? row.status, decision);
  }
  await afterProviderChange(db, row, row.status, to, now);
  forgetExpertPools();
  forgetAgentSupply();
  return {
    row: { ...row, status: to, reviewNote, ...secret, changeId, updatedAt: now },
    ...(issued ? { signingSecret: issued.secret } : {}),
  };
}

const profileChanged = (current: number, approved: number | undefined) =>
  new ApiError(
    'profile_changed',
    approved === undefined
      ? `Name the profile version you approve (it is ${current}).`
      : `The profile changed since version ${approved}: read version ${current} before you approve it.`,
    {
      extensions: { version: current },
    },
  );

/** The providers an admin reviews, newest submission first, optionally of one state. */
export async function listProvidersForReview(db: Database, status?: ProviderStatus) {
  const rows = await db
    .select({ provider: providers, email: users.email })
    .from(providers)
    .innerJoin(users, eq(users.id, providers.userId))
    .where(status ? eq(providers.status, status) : undefined)
    .orderBy(desc(sql`coalesce(${providers.submittedAt}, ${providers.createdAt})`))
    .limit(200);
  return rows.map(({ provider, email }) => ({
    provider_id: provider.id,
    user_id: provider.userId,
    email,
    status: provider.status,
    kind: provider.kind,
    display_name: provider.displayName,
    accepted_scope: { domains: provider.acceptedDomains, topics: provider.acceptedTopics },
    submitted_at: iso(provider.submittedAt),
  }));
}

/** How many providers are in each state, for the review tabs (states nobody is in are absent). */
export async function countProvidersByStatus(db: Database): Promise<Partial<Record<ProviderStatus, number>>> {
  const rows = await db
    .select({ status: providers.status, count: sql<number>`count(*)` })
    .from(providers)
    .groupBy(providers.status);
  return Object.fromEntries(rows.map((row) => [row.status, row.count]));
}

/** One provider with its profile, history and account email, for an admin. */
export async function providerForReview(db: Database, providerId: string) {
  const found = await db
    .select({ provider: providers, email: users.email, escrowId: escrows.id })
    .from(providers)
    .innerJoin(users, eq(users.id, providers.userId))
    .leftJoin(escrows, and(eq(escrows.ownerKind, 'provider'), eq(escrows.ownerId, providers.id)))
    .where(eq(providers.id, providerId))
    .get();
  if (!found) throw new ApiError('not_found', `No provider ${providerId}.`);
  return {
    ...(await describeProvider(db, found.provider)),
    user_id: found.provider.userId,
    email: found.email,
    // Every claim shows the claimer the visitor's contact details: how often this expert has seen them.
    contact_reveals: found.provider.contactReveals,
    // Where their lead fees are paid from (docs/design/billing.md); opened at approval.
    escrow_id: found.escrowId,
  };
}
