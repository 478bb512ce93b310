import { describe, expect, it, vi } from 'vitest';
import { EndpointLimiter, retryAfterMs, retryDelayMs } from './retry-policy';

describe('retry policy', () => {
  it('doubles the wait after each failure, with equal jitter, and never waits more than 6 hours', () => {
    const low = () => 0;
    const high = () => 1;
    expect([1, 2, 3, 4].map((failures) => retryDelayMs(failures, 30, high))).toEqual([
      30_000, 60_000, 120_000, 240_000,
    ]);
    expect([1, 2, 3].map((failures) => retryDelayMs(failures, 30, low))).toEqual([15_000, 30_000, 60_000]);
    expect(retryDelayMs(40, 30, high)).toBe(6 * 60 * 60 * 1000);
    expect(retryDelayMs(40, 30, low)).toBe(3 * 60 * 60 * 1000);
    // A first failure (or none) waits the base.
    expect(retryDelayMs(0, 30, high)).toBe(30_000);
  });

  it('reads Retry-After as seconds or as an HTTP date, and ignores what it cannot read', () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs(' 5 ', now)).toBe(5_000);
    expect(retryAfterMs('Mon, 23 Nov 2026 12:01:00 GMT', now)).toBe(60_000);
    expect(retryAfterMs('Mon, 23 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
    expect(retryAfterMs('', now)).toBeUndefined();
  });

  it('the limiter bounds attempts in flight per endpoint, and never across endpoints', async () => {
    const limiter = new EndpointLimiter(2);
    const inFlight = new Map<string, number>();
    const peak = new Map<string, number>();
    const releases: Array<() => void> = [];
    const task = (endpointId: string) =>
      limiter.run(endpointId, async () => {
        inFlight.set(endpointId, (inFlight.get(endpointId) ?? 0) + 1);
        peak.set(endpointId, Math.max(peak.get(endpointId) ?? 0, inFlight.get(endpointId)!));
        await new Promise<void>((resolve) => releases.push(resolve));
        inFlight.set(endpointId, inFlight.get(endpointId)! - 1);
      });
    const all = Promise.all([...Array.from({ length: 5 }, () => task('whk_slow')), task('whk_other')]);
    await vi.waitUntil(() => releases.length === 3);
    // Two of the slow endpoint's and the other endpoint's one run; three of the slow one's wait.
    expect(peak.get('whk_other')).toBe(1);
    while (releases.length > 0) releases.shift()!();
    await vi.waitUntil(async () => {
      while (releases.length > 0) releases.shift()!();
      return inFlight.get('whk_slow') === 0 && [...peak.values()].length === 2;
    });
    await all;
    expect(peak.get('whk_slow')).toBe(2);
  });
});
