/**
 * The one cached lookup of admission: an API key's context or a channel, kept in this isolate for
 * a short while to spare the lookup's round trip. It is safe because the batch that acts on a
 * cached value guards that value's current state in the same transaction, and because any other
 * refusal of a request that read from the cache re-verifies the value fresh from D1: a revoked
 * key, a suspended tenant or a disabled channel gets its own answer whatever the cache held.
 */
import { ApiError, type ErrorCode } from './errors';
import { TtlCache } from './ttl-cache';
import { clock } from './clock';

/** Refusals a guarded batch gives only after its guard passed: the cached state was just verified. */
const ANSWERED_AFTER_THE_GUARD: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'rate_limited',
  'quota_exceeded',
  'idempotency_key_reused',
  'idempotency_in_progress',
]);

/** A value, and whether it came from this isolate's cache (then a refusal must re-verify it). */
export interface AdmissionRead<V> {
  value: V | undefined;
  fromCache: boolean;
}

/** A short-lived cache of admission reads that re-verifies a refused request fresh from D1. */
export class AdmissionCache<V> {
  private readonly entries: TtlCache<V>;

  constructor(ttlMs: number, maxEntries: number) {
    this.entries = new TtlCache<V>(ttlMs, maxEntries);
  }

  /**
   * The cached value when there is one that `usable` accepts, else `load()`'s, kept when `keep`
   * says it is worth keeping (an unknown or refused value never is).
   */
  async read(
    key: string,
    load: () => Promise<V | undefined>,
    options: { usable?: (value: V) => boolean; keep?: (value: V) => boolean; now?: number } = {},
  ): Promise<AdmissionRead<V>> {
    const now = options.now ?? clock.now();
    const cached = this.entries.peek(key, now);
    if (cached !== undefined && (options.usable?.(cached) ?? true)) return { value: cached, fromCache: true };
    const value = await load();
    if (value !== undefined && (options.keep?.(value) ?? true)) this.entries.set(key, value, now);
    return { value, fromCache: false };
  }

  /**
   * After the request ran on a read: when the read came from the cache and the request was refused
   * for anything but what a guarded batch answers after its guard passed, forgets the entry and
   * returns the refusal that `fresh` finds in the current state (undefined: the refusal stands).
   */
  async reverify(
    read: AdmissionRead<V>,
    key: string,
    error: unknown,
    fresh: (refusal: ApiError) => Promise<ApiError | undefined>,
  ): Promise<ApiError | undefined> {
    if (!read.fromCache || !(error instanceof ApiError) || error.status >= 500) return undefined;
    if (ANSWERED_AFTER_THE_GUARD.has(error.code)) return undefined;
    this.entries.clear(key);
    return fresh(error);
  }

  /** Forgets one entry, or all (a change made through this isolate, or a batch whose guard failed). */
  forget(key?: string): void {
    this.entries.clear(key);
  }
}
