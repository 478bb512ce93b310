// `npm run bench -- sweep`: the cron sweep's lead timers over 10,000 open leads and 500 experts
// (50 domains of 10), against the real local Worker and its D1. The fixture is written straight
// into D1 through a bench-only route. The sweep runs at four clocks: nothing due, 10,000 leads due
// to widen (every expert of each domain gets the offer: 100,000 offer rows), 10,000 due to escalate,
// and again at the same time (an overlapping sweep: nothing left to do). Prints each run's D1
// round trips and time, with a trivial D1 batch measured in the same run as the floor; fails unless
// every run takes the same 3 round trips on each shard and the repeat does nothing.
/** The sizes: the full run, and the smoke run of `npm test`. */
const SIZES = { full: { leads: 10_000, domains: 50, experts: 10 }, smoke: { leads: 200, domains: 5, experts: 4 } };
const MINUTE = 60_000;

async function post(worker, path, body) {
  const started = performance.now();
  const response = await fetch(`${worker.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body ?? {}),
  });
  const ms = performance.now() - started;
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return { body: await response.json(), ms };
}

/** Runs the sweep bench against a started local Worker (EXPOSE_DB_METRICS set); answers whether it held. */
export async function benchSweep(worker, { smoke = false } = {}) {
  const { leads: LEADS, domains: DOMAINS, experts: EXPERTS_PER_DOMAIN } = SIZES[smoke ? 'smoke' : 'full'];
  const count = LEADS.toLocaleString('en');
  console.log(`\nLead timers: ${LEADS.toLocaleString()} open leads, ${DOMAINS * EXPERTS_PER_DOMAIN} experts`);
  const tag = `s${Date.now().toString(36)}`;
  const fixture = await post(worker, '/__bench/lead-fixture', {
    tag,
    domains: DOMAINS,
    experts: EXPERTS_PER_DOMAIN,
    leads: LEADS,
  });
  console.log(`  fixture written in ${(fixture.ms / 1000).toFixed(1)} s`);
  const floor = [];
  for (let i = 0; i < 20; i++) floor.push((await post(worker, '/__bench/d1-batch')).ms);
  floor.sort((a, b) => a - b);
  const floorMs = floor[Math.floor(floor.length / 2)];
  const created = fixture.body.created_at;
  const runs = [
    ['nothing due', created + 5 * MINUTE],
    [`${count} widen`, created + 11 * MINUTE],
    [`${count} escalate`, created + 61 * MINUTE],
    ['again, same time', created + 61 * MINUTE],
  ];
  let held = true;
  console.log(`  floor (one trivial D1 batch, median of 20): ${floorMs.toFixed(1)} ms`);
  for (const [name, now] of runs) {
    const run = await post(worker, '/__bench/lead-sweep', { now });
    const { widened, escalated, lapsed, round_trips: trips, shards } = run.body;
    console.log(
      `  ${name.padEnd(17)} ${String(trips).padStart(2)} D1 round trips (${shards} shards) ` +
        ` ${run.ms.toFixed(0).padStart(6)} ms ` +
        `(${(run.ms / floorMs).toFixed(0)}× the floor)  widened ${widened}, escalated ${escalated}, lapsed ${lapsed}`,
    );
    // Each shard sweeps its own leads: the same 3 round trips on each, whatever is due.
    if (trips !== 3 * shards) held = false;
    if (name === `${count} widen` && widened !== LEADS) held = false;
    if (name === `${count} escalate` && escalated !== LEADS) held = false;
    if (name === 'again, same time' && widened + escalated + lapsed !== 0) held = false;
  }
  console.log(held ? '  ✓ constant round trips; the repeat did nothing' : '  ✗ the sweep did not hold');
  return held;
}
