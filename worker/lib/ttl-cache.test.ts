import { describe, expect, it } from 'vitest';
import { TtlCache } from './ttl-cache';

const slowly =
  <V>(value: V, counter: { loads: number }) =>
  async () => {
    counter.loads++;
    await new Promise((resolve) => setTimeout(resolve, 5));
    return value;
  };

describe('TtlCache', () => {
  it('concurrent misses of one key by one owner share one load, and the value is kept for its TTL', async () => {
    const cache = new TtlCache<number>(1000, 10);
    const counter = { loads: 0 };
    const owner = {};
    const values = await Promise.all(Array.from({ length: 100 }, () => cache.get('k', owner, slowly(42, counter), 0)));
    expect(values.every((value) => value === 42)).toBe(true);
    expect(counter.loads).toBe(1);
    expect(await cache.get('k', {}, slowly(42, counter), 999)).toBe(42);
    expect(counter.loads).toBe(1);
    await cache.get('k', owner, slowly(42, counter), 1000);
    expect(counter.loads).toBe(2);
  });

  it('never shares a load between owners (two requests each read for themselves)', async () => {
    const cache = new TtlCache<number>(1000, 10);
    const counter = { loads: 0 };
    await Promise.all([cache.get('k', {}, slowly(1, counter), 0), cache.get('k', {}, slowly(1, counter), 0)]);
    expect(counter.loads).toBe(2);
  });

  it('a load that began before a clear is answered but not kept; a failed load is not kept either', async () => {
    const cache = new TtlCache<string>(1000, 10);
    const owner = {};
    let release: (value: string) => void = () => {};
    const pending = cache.get('k', owner, () => new Promise<string>((resolve) => (release = resolve)), 0);
    cache.clear('k');
    release('stale');
    expect(await pending).toBe('stale');
    expect(cache.peek('k', 1)).toBeUndefined();
    await expect(cache.get('k', owner, () => Promise.reject(new Error('down')), 0)).rejects.toThrow('down');
    expect(await cache.get('k', owner, async () => 'fresh', 0)).toBe('fresh');
  });
});
