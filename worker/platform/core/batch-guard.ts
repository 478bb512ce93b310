/**
 * The guard of an execution's batch (docs/design/execution.md): fresh reads of the key's,
 * tenant's, channel's and contract's state, written into the execution's rate-limit row, whose
 * CHECKs refuse a failing one; and which refusal a failed batch stands for, by its constraint.
 */
import { type SQL, sql } from 'drizzle-orm';
import { isConstraintViolation } from '../../lib/db';
import { EXECUTIONS_METER } from '../../vocabulary';
import { RATE_LIMIT_WINDOW_MS, type RateLimitOutcome, type WindowGuard } from '../../lib/rate-limit';
import { type ContractCharge, contractInForceSql } from '../billing';
import { quotaPeriod } from '../identity';

/** Whose current state the guard re-reads: the key (if any), the workspace, the channel (if any). */
export interface GuardTarget {
  keyId: string | null;
  workspaceId: string;
  /** A channel's demand: the channel, and the page origin it came from (null: the console's own, always allowed). */
  channel: { id: number; origin: string | null } | null;
  /**
   * Also refuse when the key's monthly quota is already used up (before an agent call, which the charge comes after).
   */
  checkQuota?: boolean;
  /** The contract the execution charges (null: none in force when it was read). */
  charge: ContractCharge | null;
}

/**
 * The guard: fresh reads of whether the key is neither revoked nor expired, the workspace and
 * organisation are active, the channel is active and the page origin still on its lists (and,
 * when asked, the quota is not used up). They are written into the execution's rate-limit row,
 * whose CHECKs refuse a failing one, rolling the whole batch back (rate-limit.ts). SQL text,
 * since it runs on every execution (see insertRowsSql).
 */
export function guardValues(target: GuardTarget, now: number): WindowGuard {
  return {
    keyUsable: target.keyId
      ? sql`coalesce((SELECT revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ${now}) FROM api_keys WHERE
        id = ${target.keyId}), 0)`
      : null,
    tenantActive: sql`coalesce((SELECT w.status = 'active' AND o.status = 'active' FROM workspaces w JOIN
      organizations o ON o.id = w.organization_id WHERE w.id = ${target.workspaceId}), 0)`,
    channelActive: target.channel ? channelAdmits(target.channel.id, target.channel.origin) : null,
    quotaLeft: target.checkQuota && target.keyId ? quotaLeftAfter(target.keyId, now) : null,
    // The contract read from the cache is still the one in force (or still none is).
    contractCurrent: target.charge
      ? target.charge.currentSql()
      : sql`(${contractInForceSql(target.workspaceId, now)} = '')`,
    // Before an agent call: the contract's blocked meters have room, and the escrow the funds.
    allowanceLeft: target.checkQuota && target.charge ? target.charge.roomSql(['executions', 'agent_calls']) : null,
  };
}

/** 1 when the channel is active and the origin still on its lists (exact match, as isOriginAllowed checks), else 0. */
function channelAdmits(channelId: number, origin: string | null) {
  const originAllowed =
    origin === null
      ? sql`1`
      : sql`(EXISTS (SELECT 1 FROM json_each(allowed_origins) WHERE value = ${origin}) OR EXISTS (SELECT 1 FROM
        json_each(first_party_origins) WHERE value = ${origin}))`;
  return sql`coalesce((SELECT status = 'active' AND ${originAllowed} FROM channels WHERE id = ${channelId}), 0)`;
}

/** The key's executions left this month (null when unlimited or not yet charged), read inside the batch. */
export function quotaLeftAfter(keyId: string, now: number): SQL {
  return sql`(SELECT quota - used FROM usage_meters WHERE key_id = ${keyId} AND meter = ${EXECUTIONS_METER} AND
    period = ${quotaPeriod(now)})`;
}

/** The headers' view of a committed rate-limit statement's row. */
export function rateLimitOutcome(
  row: { count: number; windowStart: number } | undefined,
  limit: number,
  now: number,
): RateLimitOutcome {
  const count = row?.count ?? 1;
  const windowStart = row?.windowStart ?? now;
  return {
    allowed: true,
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: Math.max(1, Math.ceil((windowStart + RATE_LIMIT_WINDOW_MS - now) / 1000)),
  };
}

/** Which admission check a failed batch refused, by the constraint that fired (in the order checks are answered). */
export type BatchRefusal =
  | 'key'
  | 'tenant'
  | 'channel'
  | 'contract_changed'
  | 'rate_limit'
  | 'quota'
  | 'entitlement'
  | 'idempotency';

const REFUSALS: Array<[string, BatchRefusal]> = [
  ['guard_key_usable', 'key'],
  ['guard_tenant_active', 'tenant'],
  ['guard_channel_active', 'channel'],
  ['guard_contract_current', 'contract_changed'],
  ['within_window_limit', 'rate_limit'],
  ['guard_quota_left', 'quota'],
  ['usage_within_quota', 'quota'],
  ['guard_allowance_left', 'entitlement'],
  ['contract_allowance_left', 'entitlement'],
  ['escrow_funds_left', 'entitlement'],
  ['idempotency_key_free', 'idempotency'],
];

/** The refusal a batch's error stands for, or undefined for any other failure. */
export function batchRefusal(error: unknown): BatchRefusal | undefined {
  return REFUSALS.find(([constraint]) => isConstraintViolation(error, constraint))?.[1];
}
