// One `npm run dev` per local database: the running one notes its address and process in its state
// directory, and a second one on the same state stops at once, naming it (two Workers over one
// local D1 would both seed it, and both fire its crons). And the ports the helpers listen on, from
// the environment first (`SMTP_PORT=2601 npm run dev`), then .dev.vars, then the defaults.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The file a running dev server keeps in its state directory. */
export const RUNNING_FILE = 'dev-server.json';

/** Whether a process of this id is alive (signal 0 only asks). */
export function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/**
 * Claims the state directory for this run: answers `{ problem }` naming the other run when one is
 * alive on it, else writes this run's address and process id and answers `{ release }`.
 */
export function claimState(stateDir, run, alive = processAlive) {
  const file = join(stateDir, RUNNING_FILE);
  if (existsSync(file)) {
    try {
      const other = JSON.parse(readFileSync(file, 'utf8'));
      if (other.pid !== run.pid && alive(other.pid))
        return {
          problem:
            `Another npm run dev (process ${other.pid}) serves this local database at ${other.url}. Use that one, ` +
            `stop it first, or give this one a database of its own: npm run dev -- --persist-to .wrangler/second`,
        };
    } catch {
      // A file half written by a run that died: it claims nothing.
    }
  }
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(file, `${JSON.stringify({ url: run.url, pid: run.pid })}\n`);
  return { release: () => rmSync(file, { force: true }) };
}

/** A helper's port: the environment's, else .dev.vars', else the default. */
export function helperPort(name, vars, fallback, env = process.env) {
  const value = env[name] ?? vars[name];
  const port = Number(value ?? fallback);
  return Number.isInteger(port) && port > 0 && port < 65536 ? port : fallback;
}
