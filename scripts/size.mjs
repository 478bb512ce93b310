// `npm run size`: the widget's size budgets. Fails when a bundle is over budget.
//   loader /embed/widget.js  ≤ 2,048 bytes gzip  (Chatwoot's SDK budget is 40 KB)
//   panel  /embed/panel.{language}.js ≤ 20 KB gzip each, Preact and that language's catalog included
//   docs   /embed/docs.js    ≤ 2 KB gzip (search, copy buttons)
//   passkeys /embed/passkeys.js ≤ 5 KB gzip (@simplewebauthn/browser, on sign-in and security pages only)
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { LANGUAGES } from './compile-i18n.mjs';
import { ROOT } from './lib.mjs';

const budgets = [
  { name: 'loader /embed/widget.js', file: 'dist/public/embed/widget.js', gzipBudget: 2048 },
  ...LANGUAGES.map((language) => ({
    name: `panel  /embed/panel.${language}.js`,
    file: `dist/public/embed/panel.${language}.js`,
    gzipBudget: 20 * 1024,
  })),
  { name: 'docs   /embed/docs.js', file: 'dist/public/embed/docs.js', gzipBudget: 2048 },
  { name: 'passkeys /embed/passkeys.js', file: 'dist/public/embed/passkeys.js', gzipBudget: 5120 },
];

let over = false;
for (const { name, file, gzipBudget } of budgets) {
  const path = join(ROOT, file);
  if (!existsSync(path)) {
    console.error(`${name}: ${file} is missing; run npm run build:widget first.`);
    process.exit(1);
  }
  const bytes = readFileSync(path);
  const gzip = gzipSync(bytes, { level: 9 }).length;
  const brotli = brotliCompressSync(bytes).length;
  const ok = gzip <= gzipBudget;
  over ||= !ok;
  console.log(
    `${ok ? 'ok  ' : 'OVER'} ${name}: ${bytes.length} B raw, ${gzip} B gzip, ${brotli} B brotli (budget ` +
      `${gzipBudget} B gzip, ${((gzip / gzipBudget) * 100).toFixed(0)}% used)`,
  );
}
if (over) {
  console.error('A widget bundle is over its size budget.');
  process.exit(1);
}
