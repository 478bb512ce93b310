/**
 * Saving a provider's profile (docs/design/providers-and-leads.md): the URLs and domains checked, an agent's card
 * fetched, and a material change to a reviewed profile sent back through review.
 */
import { and, eq } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { schema, type Database } from '../../lib/db';
import { checkEgressUrl, type EgressPolicy } from '../../lib/egress';
import { ApiError, type FieldError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { encryptSecret } from '../../lib/secrets';
import { fetchAgentCard, sameCalledInterface } from '../agents';
import { forgetAgentSupply, requireSecretsKey } from '../agents';
import { takeSlotOrRefuse } from '../../lib/rate-limit';
import { listDomains } from '../domains';
import { auditInsertWhere } from '../audit';
import type { ProfileInput } from './schemas';
import { nextProviderStatus, type ProviderEvent } from './transitions';

import { missingFields, storedCardOf, type ProviderRow } from './records';
import { changeApplied, invalidTransition, afterProviderChange, transitionInsert } from './writes';
import { forgetExpertPools } from './pool';
import { clock } from '../../lib/clock';

const { providers, providerDomains } = schema;

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
  now = clock.now(),
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
  if (recorded && to !== row.status) await afterProviderChange(db, next, row.status, to, now);
  forgetExpertPools();
  forgetAgentSupply();
  return next;
}
