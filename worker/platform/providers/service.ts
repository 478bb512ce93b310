/**
 * The supply side: providers (experts, agents, robots), one record per provider user, moving
 * through SPEC.md's states by the transitions of PRODUCT.md section 8. The server enforces the
 * state machine; every transition is kept with its actor, time and note. This module also
 * answers the brain's routing reads: which active experts cover a domain and its topics.
 */
import { and, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { insertWhere, schema, type Database } from '../../lib/db';
import { checkEgressUrl, type EgressPolicy } from '../../lib/egress';
import { ApiError, type FieldError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { encryptSecret } from '../../lib/secrets';
import { TtlCache } from '../../lib/ttl-cache';
import type { ProviderStatus } from '../vocabulary';
import { fetchAgentCard, sameCalledInterface } from '../agents';
import type { StoredAgentCard } from '../agents';
import { forgetAgentSupply, requireSecretsKey, signingSecretOnApproval } from '../agents';
import { takeSlotOrRefuse } from '../../lib/rate-limit';
import { listDomains } from '../domains';
import { auditInsertWhere, type AuditContext } from '../identity';
import { type EventData, eventInsertWhere, newEvent } from '../events';
import type { ProfileInput, ProviderProfileView } from './schemas';
import { nextProviderStatus, type ProviderEvent } from './transitions';

export { nextProviderStatus, PROVIDER_TRANSITIONS, type ProviderEvent } from './transitions';

const { providers, providerDomains, providerTransitions, users, memberships } = schema;

export type ProviderRow = typeof providers.$inferSelect;

/** The query of a user's provider record (a user id, or SQL naming one), to run alone or in a batch. */
export function providerByUserQuery(db: Database, userId: string | SQL) {
  return db.select().from(providers).where(eq(providers.userId, userId)).limit(1);
}

/** The provider record of a user, if they signed up as a provider. */
export async function providerOf(db: Database, userId: string): Promise<ProviderRow | undefined> {
  return (await providerByUserQuery(db, userId))[0];
}

const invalidTransition = (current: ProviderStatus, event: ProviderEvent) =>
  new ApiError(
    'invalid_transition',
    `A provider in state ${current} cannot be ` +
      `${event === 'submit' ? 'submitted' : event === 'material_change' ? 'changed that way' : `${event}d`}.`,
    {
      extensions: { status: current },
    },
  );

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

const iso = (time: number | null) => (time === null ? null : new Date(time).toISOString());

/** The agent card kept on a provider row, if any. */
export const storedCardOf = (row: Pick<ProviderRow, 'agentCard'>) => (row.agentCard as StoredAgentCard | null) ?? null;

/** A provider's profile, with what is missing and its whole history. */
export async function describeProvider(db: Database, row: ProviderRow, now = Date.now()): Promise<ProviderProfileView> {
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

/**
 * This change (`changeId`) is the provider's last: the condition under which its history, audit
 * and event rows are written. A change that lost a race to another writes none of them.
 */
const changeApplied = (providerId: string, changeId: string) =>
  sql`EXISTS (SELECT 1 FROM ${providers} WHERE ${providers.id} = ${providerId} AND ${providers.changeId} =
    ${changeId})`;

/**
 * `provider.status_changed` for each workspace the provider belongs to (their team's site owners
 * hear of it), written only if the transition happened.
 */
async function providerEventWrites(
  db: Database,
  row: ProviderRow,
  from: ProviderStatus,
  to: ProviderStatus,
  changeId: string,
  now: number,
): Promise<BatchItem<'sqlite'>[]> {
  const teams = await db
    .select({ workspaceId: memberships.workspaceId })
    .from(memberships)
    .where(eq(memberships.userId, row.userId));
  const data: EventData<'provider.status_changed'> = {
    provider_id: row.id,
    kind: row.kind,
    display_name: row.displayName,
    from,
    to,
    changed_at: new Date(now).toISOString(),
  };
  return teams.map((team) =>
    eventInsertWhere(
      db,
      newEvent('provider.status_changed', team.workspaceId, data),
      changeApplied(row.id, changeId),
      now,
    ),
  );
}

/** The row that records one transition (or an edit under review), written only with its change. */
function transitionInsert(
  db: Database,
  providerId: string,
  change: { from: ProviderStatus | null; to: ProviderStatus; id: string },
  actor: { kind: 'provider' | 'admin' | 'user' | 'system'; id: string | null },
  note: string | null,
  now: number,
) {
  return insertWhere(
    db,
    providerTransitions,
    {
      id: newId('ptr', now),
      providerId,
      fromStatus: change.from,
      toStatus: change.to,
      actorKind: actor.kind,
      actorId: actor.id,
      note,
      createdAt: now,
    },
    changeApplied(providerId, change.id),
  );
}

/**
 * What saving a profile needs beyond the database: the egress guard's policy, and the key secrets are encrypted under.
 */
export interface ProfileSaveOptions {
  egress: EgressPolicy;
  secretsKey?: string;
}

/** Checks the URLs and the domains of a profile change; every problem is named by its field. */
async function validateChange(db: Database, input: ProfileInput, egress: EgressPolicy): Promise<void> {
  const errors: FieldError[] = [];
  for (const field of ['endpoint_url', 'agent_card_url'] as const) {
    const url = input[field];
    if (!url) continue;
    const check = checkEgressUrl(url, egress);
    if (!check.ok) errors.push({ pointer: `/${field}`, detail: check.detail });
  }
  if (input.accepted_scope) {
    const catalog = await listDomains(db);
    input.accepted_scope.domains.forEach((domain, index) => {
      if (!catalog.includes(domain))
        errors.push({
          pointer: `/accepted_scope/domains/${index}`,
          detail: `"${domain}" is not in the domain catalog.`,
        });
    });
  }
  if (errors.length > 0) throw new ApiError('validation_failed', 'Some profile fields are not valid.', { errors });
}

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((item, index) => item === b[index]);

/** The profile fields as a reviewer reads them, to tell which ones an edit changed. */
const REVIEWED_FIELDS: Array<[label: string, read: (row: ProviderRow) => unknown]> = [
  ['kind', (row) => row.kind],
  ['display name', (row) => row.displayName],
  ['headline', (row) => row.headline],
  ['bio', (row) => row.bio],
  ['accepted scope', (row) => [row.acceptedDomains, row.acceptedTopics]],
  ['languages', (row) => row.languages],
  ['regions', (row) => row.regions],
  ['endpoint', (row) => row.endpointUrl],
  ['agent card', (row) => [row.agentCardUrl, storedCardOf(row)?.summary ?? null]],
  ['priority', (row) => row.priority],
  ['timeout', (row) => row.timeoutMs],
  ['bearer token', (row) => row.bearerToken],
];

/** The fields that differ between two versions of a profile. */
function changedFields(before: ProviderRow, after: ProviderRow): string[] {
  return REVIEWED_FIELDS.filter(([, read]) => JSON.stringify(read(before)) !== JSON.stringify(read(after))).map(
    ([label]) => label,
  );
}

/**
 * Whether a change alters what a provider is reviewed for: its kind, its accepted scope, or what the platform calls.
 */
function isMaterial(before: ProviderRow, after: ProviderRow): boolean {
  return (
    after.kind !== before.kind ||
    !sameList(after.acceptedDomains, before.acceptedDomains) ||
    !sameList(after.acceptedTopics, before.acceptedTopics) ||
    after.endpointUrl !== before.endpointUrl ||
    after.agentCardUrl !== before.agentCardUrl ||
    !sameCalledInterface(storedCardOf(after)?.summary, storedCardOf(before)?.summary)
  );
}

/** Card fetches per provider: each one is an outbound request the provider can trigger. */
const CARD_FETCH_LIMIT = {
  windowMs: 10 * 60_000,
  max: 10,
  detail: 'The agent card can be fetched at most 10 times in 10 minutes. Try again later.',
};

/**
 * Saves a provider's own profile (any of its fields), and submits it when asked. The state
 * follows the transition table: a first save makes a registered provider `profile_incomplete`;
 * a complete submission goes to `pending_review`; an active provider who changes kind, accepted
 * scope or what the platform calls goes back to review. An edit while under review is kept in
 * the history and makes a new profile version, so an approval of the version the reviewer read
 * fails once the profile changed. Everything is written in one batch, only if nobody changed the
 * profile meanwhile.
 */
export async function saveProviderProfile(
  db: Database,
  row: ProviderRow,
  input: ProfileInput,
  options: ProfileSaveOptions,
  requestId: string,
  now = Date.now(),
): Promise<ProviderRow> {
  await validateChange(db, input, options.egress);
  const { submit, ...fields } = input;
  const kind = fields.kind !== undefined ? fields.kind : row.kind;
  const cardUrl = fields.agent_card_url !== undefined ? fields.agent_card_url : row.agentCardUrl;
  // An agent's card is fetched and validated whenever its URL (or the kind) is saved, so the
  // provider sees what the platform will call before submitting; a failure names the reason.
  let agentCard = row.agentCard;
  if (kind !== 'agent' || !cardUrl) agentCard = null;
  else if (fields.agent_card_url !== undefined || fields.kind !== undefined || !row.agentCard) {
    await takeSlotOrRefuse(db, `card-fetch:${row.id}`, now, CARD_FETCH_LIMIT);
    const check = await fetchAgentCard(cardUrl, options.egress, now);
    if (!check.ok)
      throw new ApiError('validation_failed', 'The agent card could not be used.', {
        errors: [{ pointer: '/agent_card_url', detail: check.detail }],
      });
    agentCard = check.stored as unknown as Record<string, unknown>;
  }
  const bearerToken =
    fields.agent_bearer_token === undefined
      ? row.bearerToken
      : fields.agent_bearer_token === null
        ? null
        : await encryptSecret(fields.agent_bearer_token, requireSecretsKey(options.secretsKey));
  const next: ProviderRow = {
    ...row,
    ...(fields.kind !== undefined ? { kind: fields.kind } : {}),
    ...(fields.display_name !== undefined ? { displayName: fields.display_name } : {}),
    ...(fields.headline !== undefined ? { headline: fields.headline } : {}),
    ...(fields.bio !== undefined ? { bio: fields.bio } : {}),
    ...(fields.accepted_scope !== undefined
      ? { acceptedDomains: fields.accepted_scope.domains, acceptedTopics: fields.accepted_scope.topics }
      : {}),
    ...(fields.languages !== undefined ? { languages: fields.languages } : {}),
    ...(fields.regions !== undefined ? { regions: fields.regions } : {}),
    ...(fields.endpoint_url !== undefined ? { endpointUrl: fields.endpoint_url } : {}),
    ...(fields.agent_card_url !== undefined ? { agentCardUrl: fields.agent_card_url } : {}),
    ...(fields.priority !== undefined ? { priority: fields.priority } : {}),
    ...(fields.timeout_ms !== undefined ? { timeoutMs: fields.timeout_ms } : {}),
    agentCard,
    bearerToken,
    updatedAt: now,
  };
  const edited = changedFields(row, next);
  if (edited.length > 0) next.profileVersion = row.profileVersion + 1;
  const material = isMaterial(row, next);

  let event: ProviderEvent | undefined;
  if (submit) {
    event = row.status === 'active' && material ? 'material_change' : 'submit';
    const missing = missingFields(next);
    if (missing.length > 0) {
      throw new ApiError('profile_incomplete', `Complete the profile before submitting it: ${missing.join(', ')}.`, {
        errors: missing.map((field) => ({
          pointer: `/${field.replace('.', '/')}`,
          detail: 'Required before submitting.',
        })),
      });
    }
  } else if (row.status === 'registered') {
    event = 'save';
  } else if (row.status === 'active' && material) {
    event = 'material_change';
  }
  const to = event ? nextProviderStatus(row.status, event) : row.status;
  if (!to) throw invalidTransition(row.status, event!);
  if (to !== row.status) {
    next.status = to;
    if (to === 'pending_review') next.submittedAt = now;
  }
  // A change of state, or an edit of what a reviewer is reading, is kept in the history.
  const editedUnderReview = row.status === 'pending_review' && to === 'pending_review' && edited.length > 0;
  const recorded = to !== row.status || editedUnderReview;
  next.changeId = recorded ? newId('ptr', now) : row.changeId;

  const writes: BatchItem<'sqlite'>[] = [
    db
      .update(providers)
      .set(next)
      .where(
        and(
          eq(providers.id, row.id),
          eq(providers.status, row.status),
          eq(providers.profileVersion, row.profileVersion),
        ),
      )
      .returning({ id: providers.id }),
  ];
  if (fields.accepted_scope !== undefined) {
    writes.push(db.delete(providerDomains).where(eq(providerDomains.providerId, row.id)));
    if (next.acceptedDomains.length > 0)
      writes.push(
        db.insert(providerDomains).values(next.acceptedDomains.map((domain) => ({ providerId: row.id, domain }))),
      );
  }
  if (recorded) {
    const change = { from: row.status, to, id: next.changeId! };
    const note = editedUnderReview ? `Edited during review: ${edited.join(', ')}.` : null;
    writes.push(transitionInsert(db, row.id, change, { kind: 'provider', id: row.id }, note, now));
    if (to !== row.status) writes.push(...(await providerEventWrites(db, next, row.status, to, change.id, now)));
    writes.push(
      auditInsertWhere(
        db,
        { actorKind: 'user', actorId: row.userId, requestId },
        editedUnderReview
          ? {
              action: 'provider.edited_under_review',
              targetId: row.id,
              metadata: { fields: edited, version: next.profileVersion },
            }
          : {
              action: 'provider.status_changed',
              targetId: row.id,
              metadata: { from: row.status, to, version: next.profileVersion },
            },
        changeApplied(row.id, change.id),
        now,
      ),
    );
  }
  const [updated] = (await db.batch(writes as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]])) as [
    unknown[],
    ...unknown[],
  ];
  // Someone else (an admin's decision, or another save) changed the profile in between: nothing was written.
  if (updated.length === 0)
    throw new ApiError('conflict', 'The profile changed meanwhile (a review decision?). Reload and try again.');
  expertPoolCache.clear();
  forgetAgentSupply();
  return next;
}

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
  options: { note: string | null; version?: number; secretsKey: string | undefined },
  now = Date.now(),
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
    ...(await providerEventWrites(db, row, row.status, to, changeId, now)),
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
  expertPoolCache.clear();
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

/** One provider with its profile, history and account email, for an admin. */
export async function providerForReview(db: Database, providerId: string) {
  const found = await db
    .select({ provider: providers, email: users.email })
    .from(providers)
    .innerJoin(users, eq(users.id, providers.userId))
    .where(eq(providers.id, providerId))
    .get();
  if (!found) throw new ApiError('not_found', `No provider ${providerId}.`);
  return { ...(await describeProvider(db, found.provider)), user_id: found.provider.userId, email: found.email };
}

/** Who may see a channel's leads: every matching provider, or only the channel workspace's members. */
export type RoutingPool = { kind: 'platform' } | { kind: 'workspace'; workspaceId: string };

/** How many active experts cover a domain: those who list no topics, and those who list each topic. */
export interface ExpertPool {
  anyTopic: number;
  byTopic: Record<string, number>;
}

const expertPoolCache = new TtlCache<ExpertPool>(10_000, 500);

/**
 * The active experts who cover a domain, counted per topic, for judgement (the topics) and
 * routing (`matched_providers`). It guards no security decision, so it is cached briefly; a
 * provider change through this isolate clears it.
 */
export async function expertPool(db: Database, domain: string, pool: RoutingPool): Promise<ExpertPool> {
  const key = pool.kind === 'platform' ? `platform:${domain}` : `workspace:${pool.workspaceId}:${domain}`;
  return expertPoolCache.get(key, async () => {
    const inPool =
      pool.kind === 'workspace'
        ? sql`AND p.user_id IN (SELECT ${memberships.userId} FROM ${memberships} WHERE ${memberships.workspaceId} =
          ${pool.workspaceId})`
        : sql``;
    const rows = await db.all<{ topic: string | null; providers: number }>(sql`
      SELECT t.value AS topic, COUNT(DISTINCT p.id) AS providers
      FROM ${providerDomains} d JOIN ${providers} p ON p.id = d.provider_id
      LEFT JOIN json_each(p.accepted_topics) t
      WHERE d.domain = ${domain} AND p.status = 'active' AND p.kind = 'expert' ${inPool}
      GROUP BY t.value`);
    const byTopic: Record<string, number> = {};
    let anyTopic = 0;
    for (const row of rows) {
      if (row.topic === null) anyTopic = row.providers;
      else byTopic[row.topic] = row.providers;
    }
    return { anyTopic, byTopic };
  });
}

/** The active providers of these ids (for names shown beside leads). */
export async function providerNames(db: Database, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: providers.id, name: providers.displayName })
    .from(providers)
    .where(inArray(providers.id, ids));
  return new Map(rows.map((row) => [row.id, row.name ?? 'An expert']));
}
