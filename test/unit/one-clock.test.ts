/**
 * One clock (worker/lib/clock.ts): every "now" of the platform comes from it, and tests move it
 * rather than wait for time or rewrite stored times. Here, as checks over the sources: no
 * `Date.now()` in worker/ outside the clock; no fixed sleep in a test (a poll's interval is marked
 * so); no UPDATE in a test that moves a stored `…_at`, `…_until` or `…_since` away from now.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clock, moveClockForTests, platformTime, resetClockForTests } from '../../worker/lib/clock';

const ROOT = join(import.meta.dirname, '..', '..');

function files(dir: string, pattern: RegExp): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : files(path, pattern);
    return pattern.test(name) ? [path] : [];
  });
}

/** A sleep for a fixed time: `setTimeout(resolve, 300)` or Playwright's `waitForTimeout`. */
function fixedSleeps(source: string): string[] {
  return source
    .split('\n')
    .filter((line) => /setTimeout\(\s*resolve\s*,\s*[\d_]+\s*\)|\.waitForTimeout\(/.test(line))
    .filter((line) => !line.includes("// A poll's interval."))
    .map((line) => line.trim());
}

/** An UPDATE that sets a stored time to a moment other than now (now ± something, or itself shifted). */
function movedTimestamps(source: string): string[] {
  return source
    .split(/\.run\(\)/)
    .map((statement) => statement.slice(-500))
    .filter((statement) => /UPDATE\s+\w+\s+SET\b/i.test(statement))
    .filter((statement) => /\b\w+_(at|until|since)\s*=/.test(statement))
    .filter(
      (statement) =>
        /\b(clock|Date)\.now\(\)\s*[-+]/.test(statement) || /\b(\w+_(at|until|since))\s*=\s*\1\s*[-+]/.test(statement),
    )
    .map((statement) =>
      statement
        .slice(statement.search(/UPDATE/i))
        .replace(/\s+/g, ' ')
        .slice(0, 160),
    );
}

describe('one clock', () => {
  it('worker/ reads the time from the clock only', () => {
    const readers = files(join(ROOT, 'worker'), /\.tsx?$/)
      .filter((path) => !path.endsWith(join('lib', 'clock.ts')))
      .filter((path) => readFileSync(path, 'utf8').includes('Date.now()'))
      .map((path) => relative(ROOT, path));
    expect(readers).toEqual([]);
  });

  it('no test sleeps for a fixed time or rewrites a stored time to move it', () => {
    const found = files(join(ROOT, 'test'), /\.(ts|mjs)$/).flatMap((path) => {
      const source = readFileSync(path, 'utf8');
      if (path === import.meta.filename) return [];
      return [...fixedSleeps(source), ...movedTimestamps(source)].map((line) => `${relative(ROOT, path)}: ${line}`);
    });
    expect(found).toEqual([]);
  });

  it('the checks see what they forbid', () => {
    expect(fixedSleeps('await new Promise((resolve) => setTimeout(resolve, 2500));')).toHaveLength(1);
    expect(fixedSleeps('await page.waitForTimeout(300);')).toHaveLength(1);
    expect(fixedSleeps("await new Promise((resolve) => setTimeout(resolve, 100)); // A poll's interval.")).toEqual([]);
    expect(
      movedTimestamps(
        "env.DB.prepare('UPDATE invitations SET expires_at = ? WHERE id = ?')\n.bind(clock.now() - 1, id)\n.run();",
      ),
    ).toHaveLength(1);
    expect(
      movedTimestamps(
        "await env.DIRECTORY.prepare('UPDATE emails SET created_at = created_at - 3600000 WHERE id = ?').run();",
      ),
    ).toHaveLength(1);
    // Recording a state as of now is not moving time.
    expect(
      movedTimestamps("await sql('UPDATE api_keys SET revoked_at = ? WHERE id = ?', clock.now(), id).run();"),
    ).toEqual([]);
  });

  it('moves forward for tests, and maps our moments to the platform’s for its alarms', () => {
    const before = clock.now();
    moveClockForTests(3_600_000);
    expect(clock.now() - before).toBeGreaterThanOrEqual(3_600_000);
    expect(platformTime(clock.now()) - before).toBeLessThan(3_600_000);
    resetClockForTests();
    expect(clock.now() - before).toBeLessThan(3_600_000);
  });
});
