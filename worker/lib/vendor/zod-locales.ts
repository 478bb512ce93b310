/**
 * zod's `locales` namespace with English only. zod re-exports every one of its 40-odd locales
 * from its entry (`export * as locales`), which no bundler can tree-shake: about 260 KB of the
 * Worker's minified bundle. The Worker speaks English in its errors (they are API problems, not a
 * visitor's text), and sets no other locale, so wrangler.toml's [alias] points zod's own
 * `../locales/index.js` here; a unit test checks that zod still answers in English.
 */
export { default as en } from 'zod/v4/locales/en.js';
