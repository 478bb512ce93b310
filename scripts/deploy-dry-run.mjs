// `wrangler deploy --dry-run`: proves the Worker bundles for production, and prints its size.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { wrangler } from './lib.mjs';

const outdir = mkdtempSync(join(tmpdir(), 'egw-dry-run-'));
try {
  await wrangler(['deploy', '--dry-run', '--outdir', outdir]);
  const bundle = readdirSync(outdir).find((name) => name.endsWith('.js'));
  if (!bundle) throw new Error('wrangler deploy --dry-run wrote no bundle');
  const path = join(outdir, bundle);
  const gzip = gzipSync(readFileSync(path)).length;
  console.log(
    `wrangler deploy --dry-run: ok (${bundle}: ${(statSync(path).size / 1024).toFixed(1)} KiB, ` +
      `${(gzip / 1024).toFixed(1)} KiB gzip)`,
  );
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
