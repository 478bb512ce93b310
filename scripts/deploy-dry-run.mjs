// `wrangler deploy --dry-run`: proves the Worker bundles for production, prints its size, and
// fails over the budget. Workers allow 3 MiB gzip (free plan); the budget keeps well under it and
// makes any dependency's weight a decision (the README lists what each one added).
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { wrangler } from './lib.mjs';

/** The Worker bundle's budget, gzip. */
export const WORKER_BUDGET_KIB = 470;

const outdir = mkdtempSync(join(tmpdir(), 'egw-dry-run-'));
try {
  await wrangler(['deploy', '--dry-run', '--outdir', outdir]);
  const bundle = readdirSync(outdir).find((name) => name.endsWith('.js'));
  if (!bundle) throw new Error('wrangler deploy --dry-run wrote no bundle');
  const path = join(outdir, bundle);
  const gzip = gzipSync(readFileSync(path)).length;
  const kib = gzip / 1024;
  const summary =
    `${bundle}: ${(statSync(path).size / 1024).toFixed(1)} KiB, ${kib.toFixed(1)} KiB gzip ` +
    `(budget ${WORKER_BUDGET_KIB} KiB gzip, ${Math.round((kib / WORKER_BUDGET_KIB) * 100)}% used)`;
  if (kib > WORKER_BUDGET_KIB) {
    console.error(`wrangler deploy --dry-run: OVER BUDGET (${summary})`);
    process.exitCode = 1;
  } else console.log(`wrangler deploy --dry-run: ok (${summary})`);
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
