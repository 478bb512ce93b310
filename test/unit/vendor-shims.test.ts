/**
 * What wrangler.toml [alias] replaces in the Worker bundle (worker/lib/vendor/): the two
 * @babel/runtime-corejs3 helpers that mimetext imports, by the runtime's own methods, and zod's
 * every-locale namespace, by English alone. Each shim must do what the code it replaces does, so
 * that an upgrade that changes them fails here.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import defineProperty from '../../worker/lib/vendor/babel-define-property';
import trimOf from '../../worker/lib/vendor/babel-trim';

const require = createRequire(import.meta.url);
const babelTrim = require('@babel/runtime-corejs3/core-js/instance/trim') as (value: string) => () => string;

describe('the mimetext helper shims', () => {
  it('trim: the same method for every string', () => {
    for (const value of ['  a b  ', '\t\n x\u00a0', '', 'no space', ' Zoë <z@example.test> ']) {
      expect(trimOf(value).call(value)).toBe(babelTrim(value).call(value));
    }
  });

  it('defineProperty: an own, enumerable, writable, configurable value, and the target back', async () => {
    const helper = '@babel/runtime-corejs3/helpers/esm/defineProperty';
    const { default: babelDefineProperty } = (await import(/* @vite-ignore */ helper)) as {
      default: (target: object, key: string, value: unknown) => object;
    };
    const ours = defineProperty({}, 'name', 'x');
    const theirs = babelDefineProperty({}, 'name', 'x');
    expect(Object.getOwnPropertyDescriptor(ours, 'name')).toEqual(Object.getOwnPropertyDescriptor(theirs, 'name'));
    expect(ours).toEqual(theirs);
  });

  it('are the ones the Worker bundle uses', async () => {
    const { readFileSync } = await import('node:fs');
    const toml = readFileSync(new URL('../../wrangler.toml', import.meta.url), 'utf8');
    expect(toml).toContain('"@babel/runtime-corejs3/core-js/instance/trim" = "./worker/lib/vendor/babel-trim.ts"');
    expect(toml).toContain(
      '"@babel/runtime-corejs3/helpers/esm/defineProperty" = "./worker/lib/vendor/babel-define-property.ts"',
    );
  });
});

describe('zod with English only', () => {
  it('the stub is zod’s own English locale, and zod’s modules import the locales by the aliased path', async () => {
    const { readFileSync, readdirSync } = await import('node:fs');
    const { join } = await import('node:path');
    const stub = await import('../../worker/lib/vendor/zod-locales');
    const zod = await import('zod');
    expect(stub.en).toBe(zod.locales.en);
    expect(Object.keys(stub)).toEqual(['en']);
    // The alias replaces an import path as text: zod's modules that name the locales name them so.
    const zodDir = join(require.resolve('zod/package.json'), '..', 'v4');
    const importers = ['classic/external.js', 'core/index.js'].map((file) => readFileSync(join(zodDir, file), 'utf8'));
    for (const source of importers) expect(source).toContain('from "../locales/index.js"');
    expect(readdirSync(join(zodDir, 'locales'))).toContain('en.js');
    const toml = readFileSync(new URL('../../wrangler.toml', import.meta.url), 'utf8');
    expect(toml).toContain('"../locales/index.js" = "./worker/lib/vendor/zod-locales.ts"');
  });

  it('zod without its compiler and JSON Schema importer: the same names, by the aliased paths', async () => {
    const { readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const zodDir = join(require.resolve('zod/package.json'), '..', 'v4');
    const compile = await import(/* @vite-ignore */ join(zodDir, 'core', 'compile.js'));
    const compileStub = await import('../../worker/lib/vendor/zod-compile');
    expect(Object.keys(compileStub).sort()).toEqual(Object.keys(compile).sort());
    expect(compileStub.INVALID).toBe(compile.INVALID);
    const importer = await import(/* @vite-ignore */ join(zodDir, 'classic', 'from-json-schema.js'));
    const importerStub = await import('../../worker/lib/vendor/zod-from-json-schema');
    expect(Object.keys(importerStub)).toEqual(Object.keys(importer));
    // Only zod's own entries import them by these paths, and the Worker calls neither.
    expect(readFileSync(join(zodDir, 'core', 'index.js'), 'utf8')).toContain('from "./compile.js"');
    expect(readFileSync(join(zodDir, 'classic', 'external.js'), 'utf8')).toContain('from "./from-json-schema.js"');
    expect(() => compileStub.compile()).toThrow(/not in the Worker/);
    const toml = readFileSync(new URL('../../wrangler.toml', import.meta.url), 'utf8');
    expect(toml).toContain('"./compile.js" = "./worker/lib/vendor/zod-compile.ts"');
    expect(toml).toContain('"./from-json-schema.js" = "./worker/lib/vendor/zod-from-json-schema.ts"');
  });

  it('zod still explains a failure in English', async () => {
    const { z } = await import('zod');
    const result = z.object({ name: z.string().min(2) }).safeParse({ name: 'x' });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/at least 2 characters|>=2 characters/);
  });
});

describe("postal-mime's entity table, the common names", () => {
  it('agrees with postal-mime’s table on every name it keeps; postal-mime imports it by the aliased path', async () => {
    const { readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { htmlEntities: ours } = await import('../../worker/lib/html-entities');
    const esm = join(require.resolve('postal-mime'), '..', '..', 'esm');
    const { htmlEntities: full } = (await import(/* @vite-ignore */ join(esm, 'html-entities.js'))) as {
      htmlEntities: Record<string, string>;
    };
    expect(Object.keys(ours).length).toBeGreaterThan(200);
    for (const [name, value] of Object.entries(ours)) expect([name, full[name]]).toEqual([name, value]);
    for (const name of ['&eacute;', '&nbsp;', '&mdash;', '&rsquo;', '&hellip;', '&euro;', '&amp', '&yuml;'])
      expect(ours[name]).toBeDefined();
    expect(readFileSync(join(esm, 'text-format.js'), 'utf8')).toContain("from './html-entities.js'");
    const toml = readFileSync(new URL('../../wrangler.toml', import.meta.url), 'utf8');
    expect(toml).toContain('"./html-entities.js" = "./worker/lib/html-entities.ts"');
  });
});
