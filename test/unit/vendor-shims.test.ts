/**
 * The two @babel/runtime-corejs3 helpers that mimetext imports are replaced in the Worker bundle by
 * the runtime's own methods (wrangler.toml [alias], worker/lib/vendor/): each shim must do what the
 * helper it replaces does, so that an upgrade of either package that changes them fails here.
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
