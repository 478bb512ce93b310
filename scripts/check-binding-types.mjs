// Checks that worker-configuration.d.ts matches wrangler.toml; with --write (npm run cf-typegen),
// writes it. Wrangler also types the secrets of a local .dev.vars when one exists (`npm run dev`
// writes it), so both run in a scratch folder that holds only the config and the types: the answer
// is the same before and after `npm run dev`, and no local secret's name reaches the repository.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './lib.mjs';

const scratch = mkdtempSync(join(tmpdir(), 'binding-types-'));
try {
  for (const file of ['wrangler.toml', 'worker-configuration.d.ts'])
    copyFileSync(join(ROOT, file), join(scratch, file));
  // The Durable Object classes are typed from the Worker's entry module.
  symlinkSync(join(ROOT, 'worker'), join(scratch, 'worker'));
  const wrangler = join(ROOT, 'node_modules/.bin/wrangler');
  const write = process.argv.includes('--write');
  const args = ['types', 'worker-configuration.d.ts', '--include-runtime=false', '--env-file', '/dev/null'];
  const result = spawnSync(wrangler, write ? args : [...args, '--check'], { cwd: scratch, stdio: 'inherit' });
  process.exitCode = result.status ?? 1;
  if (write && result.status === 0) {
    copyFileSync(join(scratch, 'worker-configuration.d.ts'), join(ROOT, 'worker-configuration.d.ts'));
    // In the repository's format (biome checks every file), which the check ignores: it reads the hash.
    const biome = join(ROOT, 'node_modules/.bin/biome');
    spawnSync(biome, ['format', '--write', 'worker-configuration.d.ts'], { cwd: ROOT, stdio: 'inherit' });
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
