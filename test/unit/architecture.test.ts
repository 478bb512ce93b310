/**
 * Every architecture rule fires: each is fed a tree built to break it, in a folder of its own,
 * and must name the violation (scripts/architecture.mjs, .dependency-cruiser.cjs). The real tree
 * passes them all in `npm run check:architecture`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module shared with the Node scripts.
import { cruise, longFiles, longLines, moduleCycles, undocumentedExports } from '../../scripts/architecture.mjs';

let root: string;
const write = (path: string, text: string) => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
};

/** A tree with one violation of each rule (and some files that break none). */
function buildViolatingTree() {
  write(
    'tsconfig.json',
    JSON.stringify({ compilerOptions: { module: 'ESNext', moduleResolution: 'Bundler', strict: true } }),
  );
  write('node_modules/hono/package.json', JSON.stringify({ name: 'hono', main: 'index.js' }));
  write('node_modules/hono/index.js', 'export const Hono = 1;\n');
  write('node_modules/drizzle-orm/package.json', JSON.stringify({ name: 'drizzle-orm', main: 'index.js' }));
  write('node_modules/drizzle-orm/index.js', 'export const sql = 1;\n');
  write('worker/vocabulary.ts', "import { helper } from './lib/helper';\nexport const WORDS = helper;\n");
  // The tables reach lib, which reaches the tables: a cycle between drizzle/ and lib/ with no file in a cycle.
  write('drizzle/tables.ts', "import { open } from '../worker/lib/open';\nexport const tables = open;\n");
  write('worker/lib/open.ts', 'export const open = 1;\n');
  write('worker/lib/db.ts', "import { other } from '../../drizzle/other';\nexport const db = other;\n");
  write('drizzle/other.ts', 'export const other = 1;\n');
  // Rollups reach another module.
  write('worker/platform/rollups/sweep.ts', "import { leads } from '../leads';\nexport const sweep = leads;\n");
  // The brain reaches a module through lib (two steps), and lib reaches it too.
  write('worker/brain/plan.ts', "import { helper } from '../lib/helper';\nexport const plan = helper;\n");
  write('worker/lib/helper.ts', "import { leads } from '../platform/leads';\nexport const helper = leads;\n");
  // A module reaches into another's internals; the other module reaches back through its face: a folder cycle.
  write('worker/platform/leads/index.ts', "export { leads } from './service';\n");
  write(
    'worker/platform/leads/service.ts',
    "import { rows } from '../channels/service';\nexport const leads = rows;\n",
  );
  write('worker/platform/channels/index.ts', "export { rows } from './service';\n");
  write('worker/platform/channels/service.ts', 'export const rows = 1;\n');
  write(
    'worker/platform/channels/routes.ts',
    "import { leads } from '../leads';\nimport { sql } from 'drizzle-orm';\nexport const r = [leads, sql];\n",
  );
  // A route reaches a module's internals, and the platform reaches a route.
  write(
    'worker/gateway/route.ts',
    "import { rows } from '../platform/channels/service';\nexport const route = rows;\n",
  );
  write(
    'worker/platform/channels/pages.ts',
    "import { route } from '../../gateway/route';\nexport const page = route;\n",
  );
  // The tables import a module; the widget imports worker code.
  write('drizzle/schema.ts', "import { rows } from '../worker/platform/channels';\nexport const table = rows;\n");
  write('widget/loader.ts', "import { helper } from '../worker/lib/helper';\nexport const loader = helper;\n");
  // A file-level cycle.
  write('worker/lib/one.ts', "import { two } from './two';\nexport const one = () => two;\n");
  write('worker/lib/two.ts', "import { one } from './one';\nexport const two = () => one;\n");
  // An undocumented export, a long line, a long file.
  write('worker/lib/undocumented.ts', `export function doesSomething() {\n  return '${'x'.repeat(130)}';\n}\n`);
  write('worker/lib/long.ts', `${'// a line\n'.repeat(401)}`);
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'egw-architecture-'));
  buildViolatingTree();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('each architecture rule fires on a tree that breaks it', () => {
  let result: { violations: Array<{ rule: string; from: string; to: string }>; modules: unknown[] };
  beforeAll(() => {
    result = cruise(root);
  });
  const firing = (rule: string) =>
    result.violations
      .filter((violation) => violation.rule === rule)
      .map((violation) => `${violation.from} → ${violation.to}`);

  it('brain-is-pure: the brain may not reach a module, even through lib', () => {
    expect(firing('brain-is-pure')).toContain('worker/brain/plan.ts → worker/platform/leads/index.ts');
  });
  it('lib-reaches-no-domain', () => {
    expect(firing('lib-reaches-no-domain')).toContain('worker/lib/helper.ts → worker/platform/leads/index.ts');
  });
  it('modules-through-their-face', () => {
    expect(firing('modules-through-their-face')).toContain(
      'worker/platform/leads/service.ts → worker/platform/channels/service.ts',
    );
  });
  it('callers-through-module-faces', () => {
    expect(firing('callers-through-module-faces')).toContain(
      'worker/gateway/route.ts → worker/platform/channels/service.ts',
    );
  });
  it('platform-below-routes-and-pages', () => {
    expect(firing('platform-below-routes-and-pages')).toContain(
      'worker/platform/channels/pages.ts → worker/gateway/route.ts',
    );
  });
  it('sql-in-services-only: a route file may not use drizzle', () => {
    expect(
      firing('sql-in-services-only').some((edge) =>
        edge.startsWith('worker/platform/channels/routes.ts → node_modules/drizzle-orm'),
      ),
    ).toBe(true);
  });
  it('tables-are-a-leaf: the tables reach nothing of worker/ but the vocabulary', () => {
    expect(firing('tables-are-a-leaf')).toContain('drizzle/schema.ts → worker/platform/channels/index.ts');
    expect(firing('tables-are-a-leaf')).toContain('drizzle/tables.ts → worker/lib/open.ts');
  });
  it('vocabulary-is-a-leaf', () => {
    expect(firing('vocabulary-is-a-leaf')).toContain('worker/vocabulary.ts → worker/lib/helper.ts');
  });
  it('rollups-count-below-their-readers', () => {
    expect(firing('rollups-count-below-their-readers')).toContain(
      'worker/platform/rollups/sweep.ts → worker/platform/leads/index.ts',
    );
  });
  it('widget-imports-worker-types-only', () => {
    expect(firing('widget-imports-worker-types-only')).toContain('widget/loader.ts → worker/lib/helper.ts');
  });
  it('no-circular', () => {
    expect(firing('no-circular').length).toBeGreaterThan(0);
  });
  it('no cycle between module folders, even without a file in a cycle', () => {
    const cycles: string[][] = moduleCycles(result.modules);
    expect(cycles.some((cycle) => cycle.includes('platform/channels') && cycle.includes('platform/leads'))).toBe(true);
  });
  it('the folder cycle check sees drizzle/: drizzle ↔ lib', () => {
    const cycles: string[][] = moduleCycles(result.modules);
    expect(cycles.some((cycle) => cycle.includes('drizzle') && cycle.includes('lib'))).toBe(true);
  });
  it('every exported function says what it is for', () => {
    expect(undocumentedExports(root)).toContain('worker/lib/undocumented.ts:1 doesSomething');
  });
  it('no line over 120 characters, no file under worker/ over 400 lines', () => {
    expect(longLines(root)).toEqual([expect.stringMatching(/^worker\/lib\/undocumented\.ts:2 \(\d+\)$/)]);
    expect(longFiles(root)).toEqual(['worker/lib/long.ts (401 lines)']);
  });
});
