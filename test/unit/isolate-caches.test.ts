/**
 * An isolate lives for many requests, so whatever a module keeps between them must be bounded:
 * every cache at module level is a TtlCache (a size bound, and a time bound where it matters).
 * A bare Map, WeakMap-less Set or array that the code fills would grow with the traffic.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TtlCache } from '../../worker/lib/ttl-cache';

const ROOT = join(import.meta.dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    // Vendored shims, compiled catalogs and the docs' pages (whose code is examples for readers) keep nothing.
    if (statSync(path).isDirectory()) return ['vendor', 'compiled', 'pages'].includes(name) ? [] : sources(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Filled once, by the code itself, whatever the traffic: a route registry, and a cache keyed by a closed enum. */
const FILLED_BY_CODE = [
  'worker/platform/admin/define.ts: export const ADMIN_ROUTES',
  'worker/console/shared/code-choice.tsx: const cache = new Map<CodeKind,',
  'worker/lib/shards/layout.ts: const homes = new Map<string, Home>(',
  'worker/lib/shards/layout.ts: const destinations = new Map<string, Home>(',
];

describe('in-isolate caches', () => {
  it('no module keeps a bare Map or an empty Set or array that requests fill', () => {
    const unbounded = sources(join(ROOT, 'worker')).flatMap((path) =>
      readFileSync(path, 'utf8')
        .split('\n')
        .filter((line) => /^(export )?(const|let) \w+(: [^=]+)? = (new Map\b|new Set(<[^>]*>)?\(\)|\[\];)/.test(line))
        .map((line) => `${relative(ROOT, path)}: ${line.trim()}`)
        .filter((found) => !FILLED_BY_CODE.some((allowed) => found.startsWith(allowed))),
    );
    expect(unbounded).toEqual([]);
  });

  it('a TtlCache keeps at most its bound, dropping the oldest', () => {
    const cache = new TtlCache<number>(Number.POSITIVE_INFINITY, 3);
    for (let index = 0; index < 10; index++) cache.set(`k${index}`, index);
    expect(cache.size).toBe(3);
    expect(cache.peek('k9')).toBe(9);
    expect(cache.peek('k0')).toBeUndefined();
  });
});
