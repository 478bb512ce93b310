// Builds the widget with Vite into dist/public/embed/, which the Worker serves as static assets:
//   widget.js: the loader (IIFE, no Preact), the snippet's target
//   panel.{language}.js: the Preact panel with one language's catalog, fetched only when a visitor
//              opens the widget (panel.js is the English one, for the console's preview)
// The loader asks for panel.{language}.js?v=<content hash>, so a new panel reaches visitors at once.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'vite';
import { LANGUAGES } from './compile-i18n.mjs';
import { ROOT } from './lib.mjs';

const outDir = join(ROOT, 'dist/public/embed');
mkdirSync(outDir, { recursive: true });

const common = {
  configFile: false,
  logLevel: 'warn',
  root: ROOT,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir, emptyOutDir: false, minify: true, target: 'es2020', sourcemap: false, copyPublicDir: false },
};

async function buildEntry(entry, fileName, define = {}, alias = []) {
  await build({
    ...common,
    define,
    resolve: { alias },
    build: {
      ...common.build,
      lib: { entry: join(ROOT, entry), formats: ['iife'], name: 'egw', fileName: () => fileName },
    },
  });
}

// One panel per language: the English catalog the panel imports is swapped for that language's.
const panelHash = createHash('sha256');
for (const language of LANGUAGES) {
  const catalog = join(ROOT, `worker/lib/i18n/compiled/widget.${language}.js`);
  await buildEntry('widget/src/panel.tsx', `panel.${language}.js`, {}, [
    { find: /^.*\/compiled\/widget\.en\.js$/, replacement: catalog },
  ]);
  panelHash.update(readFileSync(join(outDir, `panel.${language}.js`)));
}
copyFileSync(join(outDir, 'panel.en.js'), join(outDir, 'panel.js'));
const panelVersion = panelHash.digest('hex').slice(0, 12);
await buildEntry('widget/loader.ts', 'widget.js', { __PANEL_VERSION__: JSON.stringify(panelVersion) });
// The console's own enhancements (copy buttons, live preview) sit beside them.
await buildEntry('widget/console.ts', 'console.js');
// The workbench's live list (polling while visible).
await buildEntry('widget/workbench.ts', 'workbench.js');
// A lead's live conversation, for its claimer.
await buildEntry('widget/lead.ts', 'lead.js');
// The docs' search, copy buttons and live widget buttons.
await buildEntry('widget/docs.ts', 'docs.js');
// The passkey ceremonies of the sign-in and account security pages.
await buildEntry('widget/passkeys.ts', 'passkeys.js');

// Workers static assets read this file. Short caching for all three: the snippet's loader URL
// never changes, and the hosted inbox asks for the panel without a version. The loader asks
// for panel.js?v=<hash>, so a widget picks up a new panel as soon as its loader refreshes.
writeFileSync(
  join(ROOT, 'dist/public/_headers'),
  `/embed/widget.js
  Cache-Control: public, max-age=300, stale-while-revalidate=3600
  X-Content-Type-Options: nosniff
/embed/panel*
  Cache-Control: public, max-age=300, stale-while-revalidate=3600
  X-Content-Type-Options: nosniff
/embed/console.js
  Cache-Control: public, max-age=300
  X-Content-Type-Options: nosniff
/embed/workbench.js
  Cache-Control: public, max-age=300
  X-Content-Type-Options: nosniff
/embed/lead.js
  Cache-Control: public, max-age=300
  X-Content-Type-Options: nosniff
/embed/docs.js
  Cache-Control: public, max-age=300
  X-Content-Type-Options: nosniff
/embed/passkeys.js
  Cache-Control: public, max-age=300
  X-Content-Type-Options: nosniff
`,
);
console.log(`widget built: dist/public/embed/widget.js, panel.js (v=${panelVersion})`);
