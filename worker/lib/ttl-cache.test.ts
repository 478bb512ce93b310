import { describe, expect, it } from 'vitest';
import { TtlCache } from './ttl-cache';

describe('TtlCache', () => {
  it('concurrent misses of one key share one load, and the value is kept for its TTL', async () => {
    const cache = new TtlCache<number>(1000, 10);
    let loads = 0;
    const load = async () => {
      loads++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return 42;
    };
    const values = await Promise.all(Array.from({ length: 100 }, () => cache.get('k', load, 0)));
    expect(values.every((value) => value === 42)).toBe(true);
    expect(loads).toBe(1);
    expect(await cache.get('k', load, 999)).toBe(42);
    expect(loads).toBe(1);
    await cache.get('k', load, 1000);
    expect(loads).toBe(2);
  });

  it('a load that began before a clear is answered but not kept; a failed load is not kept either', async () => {
    const cache = new TtlCache<string>(1000, 10);
    let release: (value: string) => void = () => {};
    const pending = cache.get('k', () => new Promise<string>((resolve) => (release = resolve)), 0);
    cache.clear('k');
    release('stale');
    expect(await pending).toBe('stale');
    expect(cache.peek('k', 1)).toBeUndefined();
    await expect(cache.get('k', () => Promise.reject(new Error('down')), 0)).rejects.toThrow('down');
    expect(await cache.get('k', async () => 'fresh', 0)).toBe('fresh');
  });
});
