import { describe, expect, it } from 'vitest';
import { base58, displayPrefix, newSecretToken, secretsEqual } from '../../worker/lib/crypto';
import { newId, traceIdFromTraceparent } from '../../worker/lib/ids';
import { canonicalJson } from '../../worker/platform/core/idempotency';

describe('ids', () => {
  it('are prefixed, 26 characters of Crockford base32, and sort in minting order', () => {
    const ids = Array.from({ length: 500 }, () => newId('exe'));
    for (const id of ids) expect(id).toMatch(/^exe_[0-9a-hjkmnp-tv-z]{26}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('sort by time across milliseconds', () => {
    expect(newId('aud', 1_000) < newId('aud', 2_000_000_000_000)).toBe(true);
  });

  it('read W3C traceparent and refuse malformed ones', () => {
    expect(traceIdFromTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
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

  it('compares secrets by value', async () => {
    expect(await secretsEqual('abc', 'abc')).toBe(true);
    expect(await secretsEqual('abc', 'abd')).toBe(false);
    expect(await secretsEqual('abc', 'abcd')).toBe(false);
  });

  it('canonical JSON sorts keys at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}');
  });
});
