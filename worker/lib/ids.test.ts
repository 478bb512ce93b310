import { describe, expect, it } from 'vitest';
import { base58, displayPrefix, newSecretToken } from './crypto';
import { newId, traceIdFromTraceparent } from './ids';

describe('ids', () => {
  it('are prefixed, 26 characters of Crockford base32, and sort in minting order', () => {
    const ids = Array.from({ length: 500 }, () => newId('exe'));
    for (const id of ids) expect(id).toMatch(/^exe_[0-9a-hjkmnp-tv-z]{26}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('within one millisecond, do not count up by one (another tenant cannot tell how many came between)', () => {
    const decode = (id: string) =>
      [...id.slice(-16)].reduce((value, c) => value * 32n + BigInt('0123456789abcdefghjkmnpqrstvwxyz'.indexOf(c)), 0n);
    const ids = Array.from({ length: 50 }, () => newId('exe', 5_000));
    const gaps = ids.slice(1).map((id, index) => decode(id) - decode(ids[index]!));
    expect(gaps.every((gap) => gap > 0n)).toBe(true);
    expect(gaps.filter((gap) => gap === 1n).length).toBeLessThan(2);
    expect(new Set(gaps.map(String)).size).toBeGreaterThan(40);
  });

  it('sort by time across milliseconds', () => {
    expect(newId('aud', 1_000) < newId('aud', 2_000_000_000_000)).toBe(true);
  });

  it('read W3C traceparent and refuse malformed ones', () => {
    expect(traceIdFromTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toBe(
      '4bf92f3577b34da6a3ce929d0e0e4736',
    );
    expect(traceIdFromTraceparent('00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01')).toBeUndefined();
    expect(traceIdFromTraceparent('garbage')).toBeUndefined();
    expect(traceIdFromTraceparent(undefined)).toBeUndefined();
  });
});

describe('secrets', () => {
  it('tokens carry at least 20 random bytes in base58', () => {
    const token = newSecretToken('egk_');
    expect(token).toMatch(/^egk_[1-9A-HJ-NP-Za-km-z]{30,33}$/);
    expect(newSecretToken('egk_')).not.toBe(token);
    expect(displayPrefix(token)).toBe(token.slice(0, 10));
  });

  it('base58 keeps leading zero bytes', () => {
    expect(base58(new Uint8Array([0, 0, 1]))).toBe('112');
    expect(base58(new Uint8Array([255]))).toBe('5Q');
  });
});
