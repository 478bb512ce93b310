// Small helpers shared by the Node scripts (dev, seed, bench, deploy check).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const WRANGLER = fileURLToPath(new URL('../node_modules/wrangler/bin/wrangler.js', import.meta.url));

/** Reads KEY=value lines (the .dev.vars format). */
export function readVars(path) {
  if (!existsSync(path)) return {};
  const vars = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const match = /^\s*([A-Z0-9_]+)\s*=\s*(.*?)\s*$/.exec(line);
    if (match) vars[match[1]] = match[2].replace(/^"(.*)"$/, '$1');
  }
  return vars;
}

export const sha256Hex = (text) => createHash('sha256').update(text).digest('hex');

/** Runs wrangler quietly; prints its output only when it fails. */
export function wrangler(args, { quiet = true } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRANGLER, ...args], {
      cwd: ROOT,
      stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: process.env.CI ?? 'true' },
    });
    let output = '';
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) => {
      if (code === 0) resolve(output);
      else reject(new Error(`wrangler ${args.join(' ')} failed (${code}):\n${output}`));
    });
  });
}

/**
 * The D1 bindings of wrangler.toml: the directory first, then the shards in order
 * (docs/design/scale.md#the-layout). Every one of them gets every migration.
 */
export function databaseBindings() {
  const toml = readFileSync(`${ROOT}/wrangler.toml`, 'utf8');
  const names = [...toml.matchAll(/^binding = "(DIRECTORY|DB_\d+)"$/gm)].map((match) => match[1]);
  return names.sort((a, b) =>
    a === 'DIRECTORY' ? -1 : b === 'DIRECTORY' ? 1 : a.localeCompare(b, 'en', { numeric: true }),
  );
}
