/**
 * Admission inside the execution's own batch (issue 13): the checks that used to cost a round
 * trip each (the key's and tenant's state, the rate limit, the quota, the idempotency key) are
 * statements of the batch that writes the execution, each enforced by a constraint. A failed
 * constraint rolls the whole batch back, so a refused execution writes nothing, and the name of
 * the constraint says which refusal to answer.
 */
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { insertRowsSql, schema, type Database } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import {
  type ContractCharge,
  forgetContracts,
  type MeterIncrement,
  type MeterQuantities,
  type MeterRow,
} from '../billing';
import { forgetChannel } from '../channels';
import { batchRefusal, guardValues, quotaLeftAfter, rateLimitOutcome } from './batch-guard';
import { EXECUTIONS_METER } from '../../vocabulary';
import { forgetCachedKeys, freshKeyRefusal, quotaPeriod, workspaceInactive, type KeyContext } from '../identity';
import { claimIdempotencyKey, STALE_RESERVATION_MS, storedOutcome, storedRecord } from './idempotency';
import { RATE_LIMIT_WINDOW_MS, readWindows, windowIncrement, type RateLimitOutcome } from '../../lib/rate-limit';
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
    /** A protocol's record of the answer (an A2A task), given the answer's JSON as the batch has it. */
    record?: (envelopeJson: SQL) => BatchItem<'sqlite'>[],
  ): Promise<{ body: string; envelope: ExecuteResponse; rateLimit: RateLimitOutcome }> {
    const { db, subject, idempotency, now, charge } = this;
    const key = subject.key;
    this.charged = quantities;
    // After a preflight, the guard is checked again (the key may have been revoked during the
    // call), but the request is not counted twice.
    const items: BatchItem<'sqlite'>[] = [this.rateLimit({ increment: this.preflightRateLimit ? 0 : 1 })];
    const rateLimitAt = this.preflightRateLimit ? -1 : 0;
    // Every meter this execution moves, the key's quota and the contract's, in one upsert.
    const increments = [
      ...(key ? [keyIncrement(key, now)] : []),
      ...(charge?.increments(quantities, envelope.output.execution_id) ?? []),
    ];
    const chargeAt = increments.length > 0 ? items.push(chargeUsage(db, increments)) - 1 : -1;
    // The contract's lines follow the key's own line (records.ts: envelopeOf).
    const contractLinesAt = key ? 1 : 0;
    let storedAt = -1;
    // The answer as sent, read in the batch after its charges (the key's quota left, the contract's lines).
    const template = sql`${JSON.stringify(envelope)}`;
    const withQuota =
      !key || key.monthlyQuota === null
        ? template
        : sql`json_set(${template}, '$.usage_applications[0].remaining', ${quotaLeftAfter(key.id, now)})`;
    const responseBody = charge ? charge.fillSql(withQuota, contractLinesAt, quantities) : withQuota;
    if (key && idempotency) {
      const store = this.reserved
        ? completeReservation(db, key.id, idempotency.key, responseBody)
        : this.claim({ state: 'completed', responseBody });
      storedAt = items.push(store) - 1;
    }
    items.push(...writes, ...(record?.(responseBody) ?? []));
    const results = await this.run(items);
    const rateLimit =
      this.preflightRateLimit ??
      rateLimitOutcome((results[rateLimitAt] as WindowRow[])[0], subject.rateLimit.perMinute, now);
    // The envelope as a value, filled as the batch filled the stored one (the same meter rows).
    const meters = chargeAt >= 0 ? (results[chargeAt] as MeterRow[]) : [];
    const charged = key ? meters.find((row) => row.subject === key.id) : undefined;
    const usage = envelope.usage_applications[0];
    if (charged && charged.quota !== null && usage) usage.remaining = charged.quota - charged.used;
    if (charge) charge.fill(envelope.usage_applications, contractLinesAt, meters);
    const stored = storedAt >= 0 ? (results[storedAt] as Array<{ body: string | null }>)[0]?.body : null;
    return { body: stored ?? JSON.stringify(envelope), envelope, rateLimit };
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

  /** Whether the key's monthly quota has no execution left. */
  private async keyQuotaUsedUp(): Promise<boolean> {
    const key = this.subject.key;
    if (!key || key.monthlyQuota === null) return false;
    const [left] = await this.db.all<{ left: number | null }>(
      sql`SELECT ${quotaLeftAfter(key.id, this.now)} AS "left"`,
    );
    return left?.left !== null && left?.left !== undefined && left.left <= 0;
  }

  /**
   * A retry of a request already answered replays that answer, whatever the meters say now: the
   * caller paid for it once (issue 38). Refusals that depend on this month's counts (the key's
   * quota, the contract's allowance, the escrow's funds) first look for the key's stored answer.
   * Not after our own preflight's reservation: that record is this very request's.
   */
  private async storedAnswer(): Promise<IdempotentReplay | undefined> {
    const { db, subject, idempotency, now } = this;
    if (!subject.key || !idempotency || this.reserved) return undefined;
    const [record] = await storedRecord(db, subject.key.id, idempotency.key);
    if (!record || record.expiresAt <= now) return undefined;
    const stale = record.state === 'in_progress' && record.createdAt <= now - STALE_RESERVATION_MS;
    if (stale) return undefined;
    // A replay counts against the rate limit, as any request does (its statement carries no meter check).
    return this.replayOf(record);
  }

  /** Counts the replay against the rate limit; answers the stored outcome (422 for another body, 409 while it runs). */
  private async replayOf(record: typeof idempotencyRecords.$inferSelect | undefined): Promise<IdempotentReplay> {
    const { subject, idempotency, now } = this;
    const stored = storedOutcome(record, idempotency!.fingerprint);
    const [counted] = await this.run([this.rateLimit()]);
    return new IdempotentReplay(
      stored.status,
      stored.body,
      rateLimitOutcome((counted as WindowRow[])[0], subject.rateLimit.perMinute, now),
    );
  }

  /** The answer to a batch that a constraint refused, or the error itself. */
  private async refusal(error: unknown): Promise<unknown> {
    const { db, subject, idempotency, now } = this;
    const refusal = batchRefusal(error);
    if (refusal === 'quota' || refusal === 'entitlement') {
      const replay = await this.storedAnswer();
      if (replay) return replay;
    }
    switch (refusal) {
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
        // The same CHECK holds a key's quota and a contract's blocked allowance: the key's row says which.
        if (this.charge && !(await this.keyQuotaUsedUp())) return this.entitlementExceeded();
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

/** An API key's execution, counted against its monthly quota. */
function keyIncrement(key: KeyContext, now: number): MeterIncrement {
  return {
    subject: key.id,
    meter: EXECUTIONS_METER,
    period: quotaPeriod(now),
    used: 1,
    quota: key.monthlyQuota,
    kind: 'key',
    included: null,
    unitPriceMinor: null,
    escrowId: null,
    currency: null,
    lastRef: null,
    updatedAt: now,
  };
}

/**
 * The execution's usage, every meter in one upsert: its CHECK usage_within_quota makes a key's
 * quota and a contract's blocked allowance exact, and the overage trigger charges a priced one.
 */
function chargeUsage(db: Database, increments: MeterIncrement[]) {
  return db.all<MeterRow>(
    insertRowsSql(
      usageMeters,
      increments,
      sql`ON CONFLICT (key_id, meter, period) DO UPDATE SET used = used + excluded.used, quota = excluded.quota,
        last_ref = excluded.last_ref, updated_at = excluded.updated_at
      RETURNING key_id AS subject, meter, used, quota, included, unit_price_minor AS "unitPriceMinor"`,
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
