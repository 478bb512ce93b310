/**
 * A small in-isolate cache, bounded in size and in time, for reads that guard no security
 * decision (the domain catalog, a domain's providers, a workspace's blocked terms), or whose
 * security-relevant part is re-checked by a guard in the batch that acts on it (API keys). A change made
 * through this isolate clears its entry at once; other isolates see it within the TTL.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  /** The cached value, or `load()`'s (then cached). Concurrent misses each load; that is harmless here. */
  async get(key: string, load: () => Promise<V>, now = Date.now()): Promise<V> {
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > now) return hit.value;
    const value = await load();
    this.set(key, value, now);
    return value;
  }

  /** The cached value, if fresh; nothing is loaded. */
  peek(key: string, now = Date.now()): V | undefined {
    const hit = this.entries.get(key);
    return hit && hit.expiresAt > now ? hit.value : undefined;
  }

  /** Caches a value (for callers that decide what is worth keeping). */
  set(key: string, value: V, now = Date.now()): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, expiresAt: now + this.ttlMs });
  }

  /** Forgets one key, or everything. */
  clear(key?: string): void {
    if (key === undefined) this.entries.clear();
    else this.entries.delete(key);
  }
}
