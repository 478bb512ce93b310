import { describe, expect, it } from 'vitest';
import { jsonNestsDeeperThan } from './json-depth';

const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

describe('jsonNestsDeeperThan', () => {
  it('counts objects and arrays, up to the limit and past it', () => {
    expect(jsonNestsDeeperThan(nested(32), 32)).toBe(false);
    expect(jsonNestsDeeperThan(nested(33), 32)).toBe(true);
    expect(jsonNestsDeeperThan('{"a":{"b":[{"c":1}]}}', 4)).toBe(false);
    expect(jsonNestsDeeperThan('{"a":{"b":[{"c":1}]}}', 3)).toBe(true);
    expect(jsonNestsDeeperThan(nested(6000), 32)).toBe(true);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(jsonNestsDeeperThan(JSON.stringify({ text: '[[[[[[{{{{' }), 1)).toBe(false);
    expect(jsonNestsDeeperThan(JSON.stringify({ text: 'say \\"[[[[" ok' }), 1)).toBe(false);
    expect(jsonNestsDeeperThan(`{"a":"\\\\"}`, 1)).toBe(false);
    expect(jsonNestsDeeperThan(`{"a":"\\\\","b":[[1]]}`, 2)).toBe(true);
  });
});
