import { describe, expect, it } from 'vitest';
import { AdmissionCache } from './admission-cache';
import { ApiError } from './errors';

describe('AdmissionCache', () => {
  it('serves a kept value from the cache, and loads again when the cached one is not usable', async () => {
    const cache = new AdmissionCache<{ n: number }>(1000, 10);
    let loads = 0;
    const load = async () => ({ n: ++loads });
    expect(await cache.read('k', load, { now: 0 })).toEqual({ value: { n: 1 }, fromCache: false });
    expect(await cache.read('k', load, { now: 10 })).toEqual({ value: { n: 1 }, fromCache: true });
    expect(await cache.read('k', load, { now: 20, usable: () => false })).toEqual({
      value: { n: 2 },
      fromCache: false,
    });
    expect(await cache.read('k', load, { now: 2000 })).toEqual({ value: { n: 3 }, fromCache: false });
  });

  it('never keeps what `keep` refuses, nor an unknown value', async () => {
    const cache = new AdmissionCache<string>(1000, 10);
    await cache.read('a', async () => 'refused', { keep: () => false });
    await cache.read('b', async () => undefined);
    expect((await cache.read('a', async () => 'fresh')).fromCache).toBe(false);
    expect((await cache.read('b', async () => 'fresh')).fromCache).toBe(false);
  });

  it('re-verifies a refusal on a cached read, forgetting the entry, and leaves the rest alone', async () => {
    const cache = new AdmissionCache<string>(60_000, 10);
    await cache.read('k', async () => 'v');
    const cached = await cache.read('k', async () => 'v');
    const revoked = new ApiError('key_revoked', 'revoked');
    const fresh = async () => revoked;
    // Answered by the batch after its guard passed: nothing to re-verify.
    expect(await cache.reverify(cached, 'k', new ApiError('rate_limited', 'slow'), fresh)).toBeUndefined();
    expect(await cache.reverify(cached, 'k', new Error('bug'), fresh)).toBeUndefined();
    expect((await cache.read('k', async () => 'other')).value).toBe('v');
    // Any other refusal asks the current state, and the entry is gone.
    expect(await cache.reverify(cached, 'k', new ApiError('insufficient_scope', 'no'), fresh)).toBe(revoked);
    expect(await cache.read('k', async () => 'other')).toEqual({ value: 'other', fromCache: false });
    // A read that did not come from the cache was fresh already.
    expect(await cache.reverify({ value: 'v', fromCache: false }, 'k', new ApiError('not_found', 'x'), fresh)).toBe(
      undefined,
    );
  });
});
