// Cron triggers under `npm run dev`. `wrangler dev` never fires them on its own, and with `[assets]`
// in wrangler.toml its /cdn-cgi/handler/scheduled route answers 500 without running the handler (a
// wrangler bug; ). So `npm run dev` starts wrangler with `--test-scheduled` and this
// ticker calls `/__scheduled?cron=…` for each cron of wrangler.toml when it is due, once a minute,
// as production would: webhook sweeps, housekeeping and timers work in the demo without a command.
import { readFileSync } from 'node:fs';
import { Cron } from 'croner';
import { join } from 'node:path';
import { ROOT } from './lib.mjs';

/** The cron expressions of `[triggers] crons` in wrangler.toml. */
export function wranglerCrons(toml = readFileSync(join(ROOT, 'wrangler.toml'), 'utf8')) {
  const line = toml.split('\n').find((entry) => /^\s*crons\s*=/.test(entry));
  if (!line) return [];
  return [...line.matchAll(/"([^"]+)"/g)].map((match) => match[1]);
}

/**
 * Whether a five-field cron expression (UTC, as Cloudflare runs them) is due at this minute, read
 * by croner: steps, lists, ranges, names, and a day of the month or of the week (either, when both
 * are given, as standard cron fires).
 */
export function cronDue(expression, date) {
  if (expression.trim().split(/\s+/).length !== 5) throw new Error(`Not a five-field cron expression: "${expression}"`);
  const minute = new Date(Math.floor(date.getTime() / 60_000) * 60_000);
  return new Cron(expression, { timezone: 'UTC', paused: true, domAndDow: false }).match(minute);
}

/**
 * Fires each due cron at the start of every minute through wrangler's `/__scheduled` route, and
 * prints one line per run. Answers a function that stops it.
 */
export function startCronTicker(base, crons = wranglerCrons(), log = console.log) {
  let timer;
  const tick = async () => {
    const now = new Date();
    for (const cron of crons.filter((expression) => cronDue(expression, now))) {
      try {
        const response = await fetch(`${base}/__scheduled?cron=${encodeURIComponent(cron)}`);
        log(`[cron] ${cron} → ${response.status} ${(await response.text()).trim()}`);
      } catch (error) {
        log(`[cron] ${cron} → not reached (${error.message})`);
      }
    }
    timer = setTimeout(tick, 60_000 - (Date.now() % 60_000) + 50);
  };
  timer = setTimeout(tick, 60_000 - (Date.now() % 60_000) + 50);
  return () => clearTimeout(timer);
}
