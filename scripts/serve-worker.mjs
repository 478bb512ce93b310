// Runs the Worker locally as `wrangler dev` does (local D1, the same bindings), but without the
// devtools inspector, for `npm run bench`. Under `wrangler dev` every runtime event (each log
// line, each D1 round trip's events) is forwarded to wrangler's Node process, which appends it to
// a debug log file: about 2 ms of CPU per D1 round trip on the machine being measured, a cost
// that production does not have and that made one D1 round trip look dearer than it is.
// Usage (from local-worker.mjs): node scripts/serve-worker.mjs '{"port":…,"persistTo":…,"vars":{…},"entry":…}'
import { unstable_startWorker } from 'wrangler';
import { join } from 'node:path';
import { ROOT } from './lib.mjs';

const { port, persistTo, vars, entry, inspectorPort } = JSON.parse(process.argv[2]);
const worker = await unstable_startWorker({
  config: join(ROOT, 'wrangler.toml'),
  // The bench runs its own entry (bench/entry.ts): the deployed Worker plus the bench's routes.
  ...(entry ? { entrypoint: join(ROOT, entry) } : {}),
  // A profile reads function and module names: the bundle is left unminified for it.
  ...(inspectorPort ? { build: { minify: false } } : {}),
  bindings: Object.fromEntries(Object.entries(vars).map(([name, value]) => [name, { type: 'plain_text', value }])),
  dev: {
    // Only for a CPU profile (scripts/profile.mjs): the devtools protocol, without wrangler dev's log forwarding.
    inspector: inspectorPort ? { port: inspectorPort } : false,
    persist: persistTo,
    server: { hostname: '127.0.0.1', port },
    // EGW_SERVE_LOG_LEVEL=log shows the Worker's own log lines (quiet by default: they cost CPU).
    logLevel: process.env.EGW_SERVE_LOG_LEVEL ?? 'warn',
    watch: false,
    remote: false,
    // `/__scheduled?cron=…` runs the cron handler, as `npm run dev` (wrangler dev --test-scheduled) does.
    testScheduled: true,
  },
});
await worker.ready;
const stop = async () => {
  await worker.dispose();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
