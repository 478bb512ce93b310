/**
 * One services object per unit of work (lib/services.ts): each entry of the Worker builds it once,
 * and nothing else rebuilds its parts (settings, the database, limits, the egress policy). The
 * entries are listed here: a new entry point, or a module that builds its own parts again, fails.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

/** Every source file of the Worker (tests aside). */
function sources(dir = join(ROOT, 'worker')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [relative(ROOT, path)] : [];
  });
}

/** The entries of the Worker, and the kind of unit of work each builds its services for. */
const ENTRIES: Record<string, string[]> = {
  'worker/lib/request-context.ts': ['request'],
  'worker/jobs/index.ts': ['queue', 'cron'],
  'worker/jobs/inbound-email.ts': ['email'],
  'worker/live/conversation-room.ts': ['object'],
  'worker/jobs/webhook-endpoint.ts': ['object'],
};

describe('services', () => {
  const files = sources();
  const text = (file: string) => readFileSync(join(ROOT, file), 'utf8');

  it('are built by each entry of the Worker, for its kind of work, and nowhere else', () => {
    const building = Object.fromEntries(
      files
        .filter((file) => file !== 'worker/lib/services.ts')
        .map((file) => [file, [...text(file).matchAll(/buildServices\([^,]+,\s*\{\s*kind: '(\w+)'/g)].map((m) => m[1])])
        .filter(([, kinds]) => kinds!.length > 0),
    );
    expect(building).toEqual(ENTRIES);
  });

  it('are the only place that reads the settings, opens the database or makes limits and the egress policy', () => {
    const makers = /\b(readSettings|createDatabase|executionLimits|egressPolicy)\(/;
    const definitions = ['worker/env.ts', 'worker/lib/db.ts', 'worker/lib/egress.ts', 'worker/lib/services.ts'];
    const offenders = files.filter((file) => !definitions.includes(file) && makers.test(text(file)));
    expect(offenders).toEqual([]);
  });
});
