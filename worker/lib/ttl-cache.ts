import { clock } from './clock';

/**
 * A small in-isolate cache, bounded in size and in time, for reads that guard no security
 * decision (the domain catalog, a domain's providers, a workspace's blocked terms), or whose
 * security-relevant part is re-checked by a guard in the batch that acts on it (API keys). A change made
 * through this isolate clears its entry at once; other isolates see it within the TTL.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();
  /**
   * Loads in flight, per unit of work (its database): concurrent misses of one key within one
   * request or sweep share one load (a sweep's 10,000 events, one query). Never across requests:
   * in Workers a promise whose I/O belongs to another request's context may never settle for this
   * one, and the runtime cancels a request that waits on it (a 500 with no log of ours).
   */
  private readonly loading = new WeakMap<object, Map<string, Promise<V>>>();
  /** Counts clears, so that a load that began before one is not cached after it. */
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  /**
   * The cached value, or `load()`'s (then cached); concurrent misses of a key by the same `owner`
   * (the unit of work's database) wait for the same load.
   */
  async get(key: string, owner: object, load: () => Promise<V>, now = clock.now()): Promise<V> {
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > now) return hit.value;
    const loads = this.loading.get(owner) ?? new Map<string, Promise<V>>();
    this.loading.set(owner, loads);
    const inFlight = loads.get(key);
    if (inFlight) return inFlight;
    const generation = this.generation;
    const loaded = load().then((value) => {
      // A clear() during the load means the value may be stale: answer it, but do not keep it.
      if (generation === this.generation) this.set(key, value, now);
      return value;
    });
    loads.set(key, loaded);
    try {
      return await loaded;
    } finally {
      if (loads.get(key) === loaded) loads.delete(key);
    }
  }

  /** The cached value, if fresh; nothing is loaded. */
  peek(key: string, now = clock.now()): V | undefined {
    const hit = this.entries.get(key);
    return hit && hit.expiresAt > now ? hit.value : undefined;
  }

  /** Caches a value (for callers that decide what is worth keeping). */
  set(key: string, value: V, now = clock.now()): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, expiresAt: now + this.ttlMs });
  }

  /** How many entries are kept now (at most the bound it was made with). */
  get size(): number {
    return this.entries.size;
  }

  /** Forgets one key, or everything. */
  clear(key?: string): void {
    this.generation++;
    if (key === undefined) this.entries.clear();
    else this.entries.delete(key);
  }
}
