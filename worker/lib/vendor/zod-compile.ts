/**
 * zod's `compile` module with none of its compiler: `z.compile()` builds a JIT-compiled fast path
 * for a schema (about 31 KB of the minified bundle), and the Worker never calls it: every schema
 * parses with zod's runtime parser. zod's entry re-exports the module whatever is used, so
 * wrangler.toml's [alias] points zod's own `./compile.js` here; the exports keep their names, and
 * a unit test checks them against zod's.
 */

/** The sentinel a compiled fast path returns on failure (zod's parser checks it by `Symbol.for`). */
export const INVALID = Symbol.for('zod.compile.invalid');

/** As zod's: a compiled schema met an async refinement. */
export class ZodCompileAsyncError extends Error {
  override name = 'ZodCompileAsyncError';
}

/** As zod's: a compiled schema met what its fast path does not model. */
export class ZodCompileUnsupportedError extends Error {
  override name = 'ZodCompileUnsupportedError';
}

const notBundled = (name: string) => () => {
  throw new Error(`zod's ${name}() is not in the Worker's bundle (wrangler.toml [alias])`);
};

/** Not in the Worker: throws if ever called. */
export const compile = notBundled('compile');
/** Not in the Worker: throws if ever called. */
export const withParser = notBundled('withParser');
/** Not in the Worker: throws if ever called. */
export const compileFn = notBundled('compileFn');
