/**
 * Admission inside the execution's own batch (issue 13): the checks that used to cost a round
 * trip each (the key's and tenant's state, the rate limit, the quota, the idempotency key) are
 * statements of the batch that writes the execution, each enforced by a constraint. A failed
 * constraint rolls the whole batch back, so a refused execution writes nothing, and the name of
 * the constraint says which refusal to answer.
 */
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { insertRowsSql, isConstraintViolation, schema, type Database } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import {
  type ContractCharge,
  contractInForceSql,
  forgetContracts,
  type MeterQuantities,
  type MeterRow,
} from '../billing';
import { forgetChannel } from '../channels';
import { EXECUTIONS_METER } from '../../lib/vocabulary';
import { forgetCachedKeys, freshKeyRefusal, quotaPeriod, workspaceInactive, type KeyContext } from '../identity';
import { claimIdempotencyKey, storedOutcome, storedRecord } from './idempotency';
import {
  RATE_LIMIT_WINDOW_MS,
  readWindows,
  windowIncrement,
  type RateLimitOutcome,
  type WindowGuard,
} from '../../lib/rate-limit';
import type { ExecuteResponse } from './schemas';

const { usageMeters, idempotencyRecords } = schema;

/** Who an execution runs as, as far as admission in the batch needs to know. */
export interface AdmissionSubject {
  key: KeyContext | null;
  workspaceId: string;
  /** A channel's demand: the channel, and the page origin it admitted (null: the console's own pages). */
  channel: { id: number; channelKey: string; origin: string | null } | null;
  rateLimit: { subject: string; perMinute: number };
}

type WindowRow = { count: number; windowStart: number };

/** Whose current state the guard re-reads: the key (if any), the workspace, the channel (if any). */
interface GuardTarget {
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
function guardValues(target: GuardTarget, now: number): WindowGuard {
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
function quotaLeftAfter(keyId: string, now: number): SQL {
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

/**
 * The contract in force changed since it was cached (recorded or ended through another isolate):
 * nothing was written, and the execution runs again with the fresh one.
 */
export class ContractChanged extends Error {}

/** A taken idempotency key whose stored response is replayed (thrown from inside the pipeline). */
export class IdempotentReplay {
  constructor(
    readonly status: number,
    readonly body: string,
    readonly rateLimit: RateLimitOutcome,
  ) {}
}

/**
 * The guard on the key's, tenant's and channel's current state, the rate-limit increment, the
 * usage charge and the idempotency claim travel with the execution's writes, so the lead path
 * costs one round trip. The agent path commits them first, in `preflight`, since its calls have
 * effects outside D1.
 */
export class BatchAdmission {
  /** The rate limit counted by a committed preflight (the final batch then counts nothing). */
  private preflightRateLimit: RateLimitOutcome | undefined;
  /** Whether a preflight reserved the idempotency key (the final batch completes it). */
  reserved = false;
  /** What the final batch charged (the meters' quantities), for the refusal's answer. */
  private charged: MeterQuantities | undefined;

  constructor(
    private readonly db: Database,
    private readonly subject: AdmissionSubject,
    private readonly idempotency: { key: string; fingerprint: string } | undefined,
    private readonly now: number,
    /** The contract in force, if any (runExecution replaces it when the guard finds it changed). */
    public charge: ContractCharge | null = null,
  ) {}

  get workspaceId(): string {
    return this.subject.workspaceId;
  }

  /**
   * The rate-limit statement carrying the guard (with the quota check before an agent call): it
   * counts the request, or with increment 0 only re-checks, and refuses (CHECK within_window_limit)
   * the one past the limit.
   */
  private rateLimit({ checkQuota = false, increment = 1 }: { checkQuota?: boolean; increment?: 0 | 1 } = {}) {
    const { key, workspaceId, channel, rateLimit } = this.subject;
    const guard = guardValues(
      { keyId: key?.id ?? null, workspaceId, channel, checkQuota, charge: this.charge },
      this.now,
    );
    return windowIncrement(this.db, rateLimit.subject, this.now, RATE_LIMIT_WINDOW_MS, rateLimit.perMinute, {
      guard,
      increment,
    });
  }

  private claim(result: Parameters<typeof claimIdempotencyKey>[2]) {
    const { subject, idempotency, now } = this;
    return claimIdempotencyKey(
      this.db,
      { keyId: subject.key!.id, idempotencyKey: idempotency!.key, fingerprint: idempotency!.fingerprint, now },
      result,
    );
  }

  /**
   * Before an agent call: the guard (with the quota), the rate limit and the idempotency
   * reservation commit, and `reads` run in the same round trip; answers the reads' results.
   */
  async preflight(reads: BatchItem<'sqlite'>[]): Promise<unknown[]> {
    if (this.preflightRateLimit) throw new Error('preflight runs once per execution');
    const { subject, idempotency, now } = this;
    const reserving = Boolean(subject.key && idempotency);
    const items: BatchItem<'sqlite'>[] = [
      this.rateLimit({ checkQuota: true }),
      ...(reserving ? [this.claim({ state: 'in_progress' })] : []),
      ...reads,
    ];
    const results = await this.run(items);
    this.preflightRateLimit = rateLimitOutcome((results[0] as WindowRow[])[0], subject.rateLimit.perMinute, now);
    this.reserved = reserving;
    return results.slice(items.length - reads.length);
  }

  /**
   * One batch: the guard, the rate limit (unless a preflight counted it), the usage charge (an
   * API key's; its CHECK makes the quota exact), the idempotency claim with the response it
   * stores, and every write of the execution. The stored response is computed inside the batch,
   * after the charge, so it carries the exact remaining quota; RETURNING hands back the very
   * bytes a replay will send.
   */
  async commit(
    writes: BatchItem<'sqlite'>[],
    envelope: ExecuteResponse,
    quantities: MeterQuantities,
  ): Promise<{ body: string; rateLimit: RateLimitOutcome }> {
    const { db, subject, idempotency, now, charge } = this;
    const key = subject.key;
    this.charged = quantities;
    // After a preflight, the guard is checked again (the key may have been revoked during the
    // call), but the request is not counted twice.
    const items: BatchItem<'sqlite'>[] = [this.rateLimit({ increment: this.preflightRateLimit ? 0 : 1 })];
    const rateLimitAt = this.preflightRateLimit ? -1 : 0;
    const chargeAt = key ? items.push(chargeUsage(db, key, now)) - 1 : -1;
    // The contract's lines follow the key's own line (records.ts: envelopeOf).
    const contractLinesAt = key ? 1 : 0;
    const contractWrites = charge?.writes(db, quantities, envelope.output.execution_id) ?? [];
    const metersAt = contractWrites.length > 0 ? items.length : -1;
    items.push(...contractWrites);
    let storedAt = -1;
    if (key && idempotency) {
      const template = sql`${JSON.stringify(envelope)}`;
      const withQuota =
        key.monthlyQuota === null
          ? template
          : sql`json_set(${template}, '$.usage_applications[0].remaining', ${quotaLeftAfter(key.id, now)})`;
      const responseBody = charge ? charge.fillSql(withQuota, contractLinesAt, quantities) : withQuota;
      const store = this.reserved
        ? completeReservation(db, key.id, idempotency.key, responseBody)
        : this.claim({ state: 'completed', responseBody });
      storedAt = items.push(store) - 1;
    }
    items.push(...writes);
    const results = await this.run(items);
    const rateLimit =
      this.preflightRateLimit ??
      rateLimitOutcome((results[rateLimitAt] as WindowRow[])[0], subject.rateLimit.perMinute, now);
    if (storedAt >= 0) {
      const stored = (results[storedAt] as Array<{ body: string | null }>)[0];
      return { body: stored?.body ?? JSON.stringify(envelope), rateLimit };
    }
    const charged = chargeAt >= 0 ? (results[chargeAt] as Array<{ used: number; quota: number | null }>)[0] : undefined;
    const usage = envelope.usage_applications[0];
    if (charged && charged.quota !== null && usage) usage.remaining = charged.quota - charged.used;
    if (charge && metersAt >= 0)
      charge.fill(envelope.usage_applications, contractLinesAt, results[metersAt] as MeterRow[]);
    return { body: JSON.stringify(envelope), rateLimit };
  }

  /** Runs a batch; a refused one answers with the refusal its failed constraint names. */
  private async run(items: BatchItem<'sqlite'>[]): Promise<unknown[]> {
    const [first, ...rest] = items;
    try {
      return (await this.db.batch([first!, ...rest])) as unknown[];
    } catch (error) {
      throw await this.refusal(error);
    }
  }

  /**
   * 402: the contract's meter is used up and has no overage price, or its escrow lacks the funds
   * for the overage; the problem names the meter.
   */
  private async entitlementExceeded(): Promise<ApiError> {
    const charge = this.charge;
    // Before an agent call (the preflight), the execution would charge an execution and an agent call.
    const quantities = this.charged ?? { executions: 1, leads: 0, agent_calls: 1 };
    const meter = charge ? await charge.refusedMeter(this.db, quantities) : 'executions';
    const terms = charge?.contract.meters[meter];
    const detail =
      terms && terms.unitPriceMinor === null
        ? `This workspace's contract includes ${terms.included} ${meter} a month, used up, with no overage.`
        : `This workspace's escrow lacks the funds for the overage of ${meter}.`;
    return new ApiError('entitlement_exceeded', detail, {
      extensions: { meter, contract_id: charge?.contract.id ?? null },
    });
  }

  /** The answer to a batch that a constraint refused, or the error itself. */
  private async refusal(error: unknown): Promise<unknown> {
    const { db, subject, idempotency, now } = this;
    switch (batchRefusal(error)) {
      case 'key':
        // Revoked or expired since it was cached: the fresh row says which.
        return (subject.key && (await freshKeyRefusal(db, subject.key.id, now, { tenant: false }))) ?? error;
      case 'tenant':
        forgetCachedKeys();
        return workspaceInactive();
      case 'channel':
        // Disabled, or the origin taken off its lists, since it was cached: the route re-checks it fresh to say which.
        if (subject.channel) forgetChannel(subject.channel.channelKey);
        return new ApiError('not_found', 'No such channel, or it is disabled.');
      case 'contract_changed':
        forgetContracts(subject.workspaceId);
        return new ContractChanged();
      case 'entitlement':
        return this.entitlementExceeded();
      case 'rate_limit': {
        const [window] = await readWindows(db, [subject.rateLimit.subject], now, RATE_LIMIT_WINDOW_MS);
        const retryAfter = Math.max(1, Math.ceil(((window?.resetAt ?? now + RATE_LIMIT_WINDOW_MS) - now) / 1000));
        const detail = subject.channel
          ? 'Too many messages from this connection. Try again in a minute.'
          : `This key allows ${subject.rateLimit.perMinute} requests per minute.`;
        return new ApiError('rate_limited', detail, { headers: { 'Retry-After': String(retryAfter) } });
      }
      case 'quota':
        return new ApiError(
          'quota_exceeded',
          `This key's monthly quota of ${subject.key?.monthlyQuota ?? null} executions is used up.`,
        );
      case 'idempotency': {
        // The key is taken. A replay still counts against the rate limit, as any request does.
        const [counted, records] = await this.run([
          this.rateLimit(),
          storedRecord(db, subject.key!.id, idempotency!.key),
        ]);
        const stored = storedOutcome(
          (records as Array<typeof idempotencyRecords.$inferSelect>)[0],
          idempotency!.fingerprint,
        );
        return new IdempotentReplay(
          stored.status,
          stored.body,
          rateLimitOutcome((counted as WindowRow[])[0], subject.rateLimit.perMinute, now),
        );
      }
      default:
        return error;
    }
  }
}

/** The usage charge of an API key's execution; its CHECK usage_within_quota makes the quota exact. */
function chargeUsage(db: Database, key: KeyContext, now: number) {
  return db.all<{ used: number; quota: number | null }>(
    insertRowsSql(
      usageMeters,
      [{ keyId: key.id, meter: EXECUTIONS_METER, period: quotaPeriod(now), used: 1, quota: key.monthlyQuota }],
      sql`ON CONFLICT (key_id, meter, period) DO UPDATE SET used = used + 1, quota = ${key.monthlyQuota} RETURNING
        used, quota`,
    ),
  );
}

/** Completes a reservation taken by a preflight, with the response a replay will send. */
function completeReservation(db: Database, keyId: string, idempotencyKey: string, responseBody: SQL) {
  return db
    .update(idempotencyRecords)
    .set({ state: 'completed', responseStatus: 200, responseBody })
    .where(and(eq(idempotencyRecords.keyId, keyId), eq(idempotencyRecords.idempotencyKey, idempotencyKey)))
    .returning({ body: idempotencyRecords.responseBody });
}
