import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KNOWN_SCOPES, scopeBits, scopesOfBits } from '../../worker/platform/access/schemas';

describe('scopes as bits', () => {
  it('round-trips every set of known scopes, in the known order', () => {
    expect(scopesOfBits(scopeBits(['memory:read', 'execute']))).toEqual(['execute', 'memory:read']);
    expect(scopesOfBits(scopeBits([...KNOWN_SCOPES]))).toEqual([...KNOWN_SCOPES]);
    expect(scopeBits([])).toBe(0);
    expect(scopeBits(['execute'])).toBe(1);
    expect(scopeBits(['agents:invoke', 'not-a-scope'])).toBe(4);
  });

  it('keeps the order the stored rows were written in: new scopes only at the end', () => {
    // migrations/0042 turned the stored lists into bits with this order; a reorder would misread them.
    const migration = readFileSync(new URL('../../migrations/0042_execution_scope_bits.sql', import.meta.url), 'utf8');
    const order = JSON.parse(/json_each\('(\[[^']+\])'\)/.exec(migration)![1]!) as string[];
    expect(KNOWN_SCOPES.slice(0, order.length)).toEqual(order);
  });
});
