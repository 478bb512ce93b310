// `npm run bench -- insights`: the owner's insights over a year of history. A fixture writes
// 100,000 leads (2,000 in the smoke run) of the demo workspace over 365 days straight into D1,
// with their moves, conversations, events and agents' answers; the rollups' sweep counts them;
// then GET /api/insights (the demo key) and the Insights page (the demo owner) are each asked 30
// times over 90 and 365 days. Prints p50/p99, the D1 round trips and the rows D1 read per request,
// before the history and after it; fails unless the round trips are the same and a request reads
// no more rows than a bound that does not grow with the history (periods x metrics).
import { DEMO_TEST_PASSWORD } from './local-worker.mjs';

const SIZES = { full: 100_000, smoke: 2_000 };
const ASKS = { full: 30, smoke: 3 };
/**
 * The most rows one insights request may read, whatever the history: a year is read as 12 month
 * rows and at most 62 days at its edges, each with at most 100 metrics (the buckets of the response
 * times, the statuses, the topics and the agents included).
 */
const ROWS_BOUND = (12 + 62) * 100;

async function signInOwner(worker) {
  const response = await fetch(`${worker.url}/auth/sign-in`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: worker.url },
    body: new URLSearchParams({ email: 'owner@demo.test', password: DEMO_TEST_PASSWORD }),
    redirect: 'manual',
  });
  const cookie = response.headers.getSetCookie().find((line) => /^(__Host-)?egw_session=/.test(line));
  if (!cookie) throw new Error(`sign-in: ${response.status}`);
  return cookie.split(';')[0];
}

/** Asks a path `times` times in a row; answers p50/p99 latency and the last answer's D1 work. */
async function ask(url, headers, times) {
  const durations = [];
  let last;
  for (let index = 0; index < times; index++) {
    const started = performance.now();
    last = await fetch(url, { headers });
    await last.arrayBuffer();
    if (last.status !== 200) throw new Error(`${url}: ${last.status}`);
    durations.push(performance.now() - started);
  }
  durations.sort((a, b) => a - b);
  const at = (share) => durations[Math.min(durations.length - 1, Math.floor(share * durations.length))];
  return {
    p50: at(0.5),
    p99: at(0.99),
    trips: Number(last.headers.get('X-D1-Queries')),
    rows: Number(last.headers.get('X-D1-Rows-Read')),
  };
}

async function post(worker, path, body) {
  const response = await fetch(`${worker.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Runs the insights bench against a started local Worker (EXPOSE_DB_METRICS set); answers whether it held. */
export async function benchInsights(worker, { smoke = false } = {}) {
  const leads = SIZES[smoke ? 'smoke' : 'full'];
  const times = ASKS[smoke ? 'smoke' : 'full'];
  console.log(`\nInsights: ${leads.toLocaleString('en')} leads over a year, each request asked ${times} times`);
  const cookie = await signInOwner(worker);
  const api = { Authorization: `Bearer ${worker.demoApiKey}` };
  const targets = (label, days) => {
    const to = new Date().toISOString().slice(0, 10);
    const from = new Date(Date.now() - (days - 1) * 86_400_000).toISOString().slice(0, 10);
    return [
      [`API, ${label}`, `${worker.url}/api/insights?from=${from}&to=${to}`, api],
      [`page, ${label}`, `${worker.url}/integrations/insights?ws=ws_demo&from=${from}&to=${to}`, { Cookie: cookie }],
    ];
  };
  const all = [...targets('90 days', 90), ...targets('365 days', 365)];
  const before = [];
  // Each asked once first: the isolate's caches (the key's context, the directory's entries) warm.
  for (const [, url, headers] of all) await ask(url, headers, 1);
  for (const [, url, headers] of all) before.push(await ask(url, headers, 1));

  const started = performance.now();
  await post(worker, '/__bench/insights-fixture', { tag: `i${Date.now().toString(36)}`, leads });
  const written = performance.now();
  let remaining = Number.POSITIVE_INFINITY;
  for (let round = 0; remaining > 0 && round < 200; round++)
    ({ remaining } = await post(worker, '/__bench/rollup', { ticks: 10 }));
  const counted = performance.now();
  console.log(
    `  fixture written in ${((written - started) / 1000).toFixed(1)} s; the rollups counted it in ` +
      `${((counted - written) / 1000).toFixed(1)} s (5,000 rows of each source a tick)`,
  );

  let held = remaining === 0;
  for (const [index, [name, url, headers]] of all.entries()) {
    const after = await ask(url, headers, times);
    const was = before[index];
    console.log(
      `  ${name.padEnd(17)} p50 ${after.p50.toFixed(1).padStart(6)} ms  p99 ${after.p99.toFixed(1).padStart(6)} ms  ` +
        `${after.trips} D1 round trips (${was.trips} before the history), ${after.rows.toLocaleString('en')} rows read`,
    );
    if (after.trips !== was.trips || after.rows > ROWS_BOUND) held = false;
  }
  console.log(
    held
      ? `  ✓ constant round trips; every request read under ${ROWS_BOUND.toLocaleString('en')} rows`
      : '  ✗ insights did not hold',
  );
  return held;
}
