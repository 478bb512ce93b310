/**
 * The bench's CPU profile (scripts/profile.mjs) gives each sample to the module of the bundle's
 * line it ran on, and each module to an area: our folders, or a library's package.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module shared with the Node scripts.
import { areaOf, modulesByLine } from '../../scripts/profile.mjs';

describe('the profile’s modules and areas', () => {
  it('reads the module of each line from the bundle’s path comments', () => {
    const bundle = [
      'var x = 1;',
      '// node_modules/drizzle-orm/sql/sql.js',
      'function sql() {}',
      '// worker/platform/core/execute.ts',
      'function runExecution() {}',
      'function more() {}',
    ].join('\n');
    expect(modulesByLine(bundle)).toEqual([
      '(bundle)',
      'node_modules/drizzle-orm/sql/sql.js',
      'node_modules/drizzle-orm/sql/sql.js',
      'worker/platform/core/execute.ts',
      'worker/platform/core/execute.ts',
      'worker/platform/core/execute.ts',
    ]);
  });

  it('names an area by our folder or the library’s package', () => {
    expect(areaOf('worker/platform/core/execute.ts')).toBe('worker/platform/core');
    expect(areaOf('worker/lib/db.ts')).toBe('worker/lib');
    expect(areaOf('node_modules/drizzle-orm/sql/sql.js')).toBe('drizzle-orm');
    expect(areaOf('node_modules/@hono/zod-openapi/dist/index.js')).toBe('@hono/zod-openapi');
    expect(areaOf('(runtime)')).toBe('(runtime)');
  });
});
