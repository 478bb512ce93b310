// `npm run bench -- storage`: what one execution, one conversation turn and one lead cost in D1,
// and how many days one database (10 GB) lasts at a daily volume, with and without retention
// (docs/design/scale.md). Each unit is made N times through the real routes; the database's size
// (D1's own figure, indexes included) is read before and after, and GET /api/admin/storage splits
// the growth by table, so the share that retention removes (events 90 days, audit 400) is known.

const GB = 1024 ** 3;
const LIMIT_BYTES = 10 * GB;
/** A busy workspace group's day: the volume the table is printed for. */
const DAILY = { executions: 10_000, turns: 50_000, leads: 1_000 };
/** Tables whose rows retention removes, and after how many days (platform/lifecycle/retention.ts). */
const EXPIRES = { events: 90, webhook_deliveries: 30, webhook_attempts: 30, emails: 90, audit_log: 400 };
const ORIGIN = 'https://bench.example.com';
/**
 * The same bench before issue 52’s cuts (commit a21bdbb, this machine, 2026-12-02): every event
 * kept 90 days whoever listened, an execution's audit entry copied into audit_log, scopes as JSON.
 */
const BEFORE = { execution: 2_458, turn: 4_533, lead: 4_260, daysWithRetention: 44 };
const BEFORE_BYTES = [BEFORE.execution, BEFORE.turn, BEFORE.lead];

async function storage(worker) {
  const response = await fetch(`${worker.url}/api/admin/storage`, {
    headers: { Authorization: `Bearer ${worker.adminToken}` },
  });
  if (!response.ok) throw new Error(`storage: ${response.status} ${await response.text()}`);
  return response.json();
}

/** One tick of the every-minute cron (the rollups fold the outbox; events nobody receives leave it). */
async function cronTick(worker) {
  const response = await fetch(`${worker.url}/__scheduled?cron=${encodeURIComponent('* * * * *')}`);
  if (!response.ok) throw new Error(`cron: ${response.status} ${await response.text()}`);
}

/**
 * Makes `count` units; answers the database's growth per unit and the tables' share of it, as it
 * stands after the next cron tick (what the database holds at rest, a minute later).
 */
async function growthPer(worker, count, make) {
  await cronTick(worker);
  const before = await storage(worker);
  for (let index = 0; index < count; index++) await make(index);
  await cronTick(worker);
  const after = await storage(worker);
  const byTable = Object.fromEntries(before.tables.map((table) => [table.table, table.estimated_bytes]));
  const tables = after.tables
    .map((table) => ({ table: table.table, bytes: table.estimated_bytes - (byTable[table.table] ?? 0) }))
    .filter((table) => table.bytes > 0);
  const estimated = tables.reduce((sum, table) => sum + table.bytes, 0);
  const databaseGrowth =
    after.database_bytes !== null && before.database_bytes !== null
      ? after.database_bytes - before.database_bytes
      : null;
  // The database's own figure counts indexes and free pages too; the tables' split shares it out.
  const total = databaseGrowth !== null && databaseGrowth > 0 ? databaseGrowth : estimated;
  const perDays = (days) =>
    tables.filter((table) => EXPIRES[table.table] === days).reduce((sum, table) => sum + table.bytes, 0) /
    Math.max(1, estimated);
  return {
    bytes: total / count,
    expiring: Object.fromEntries([30, 90, 400].map((days) => [days, perDays(days) * (total / count)])),
    tables,
  };
}

/**
 * Days until 10 GB: all kept, or with each expiring share capped at its retention window
 * (`windows` maps a class's default days to the days it is kept).
 */
function daysTo10GB(units, windows = { 30: 30, 90: 90, 400: 400 }) {
  const daily = units.reduce((sum, unit) => sum + unit.bytes * unit.perDay, 0);
  const expiringDaily = (days) => units.reduce((sum, unit) => sum + (unit.expiring[days] ?? 0) * unit.perDay, 0);
  const keptDaily = daily - [30, 90, 400].reduce((sum, days) => sum + expiringDaily(days), 0);
  const without = LIMIT_BYTES / daily;
  // With retention, each expiring share stops growing after its window; the kept share grows on.
  let days = 0;
  for (let size = 0; size < LIMIT_BYTES && days < 100_000; days++)
    size =
      keptDaily * days +
      [30, 90, 400].reduce((sum, window) => sum + expiringDaily(window) * Math.min(days, windows[window]), 0);
  return { daily, without, with: days };
}

/** Runs the storage bench against a started local Worker; answers whether it ran. */
export async function benchStorage(worker, adminCall, { smoke = false } = {}) {
  const count = smoke ? 10 : 300;
  const organization = await adminCall(worker, '/api/admin/organizations', { name: 'Bench storage' });
  const key = await adminCall(worker, '/api/admin/api-keys', {
    workspace_id: organization.workspace_id,
    name: 'storage',
    scopes: ['execute', 'leads:write', 'channels:write', 'agents:invoke'],
    rate_limit_per_minute: 1_000_000,
  });
  const post = (path, body, headers = {}) =>
    fetch(`${worker.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
    }).then(async (response) => {
      if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
      return response.json();
    });
  const bearer = { Authorization: `Bearer ${key.token}` };
  const question = (index) => `How do I verify a webhook signature in my service, question ${index}?`;
  // On the faq domain the demo's agent answers questions about prices (a question it cannot take becomes a lead).
  const answerable = (index) => `What are your prices for payroll, question ${index}?`;
  const execution = await growthPer(worker, count, (index) =>
    post(
      '/api/execute',
      { domain: 'faq', execution_mode: 'sync', required_scopes: [], text: answerable(index) },
      bearer,
    ),
  );
  const lead = await growthPer(worker, count, (index) =>
    post(
      '/api/execute',
      {
        domain: 'consultation',
        execution_mode: 'sync',
        required_scopes: ['execute', 'leads:write'],
        text: question(index),
      },
      bearer,
    ),
  );
  const channel = await post(
    '/api/integrations/channels',
    { name: 'Storage bench', domain: 'faq', allowed_origins: [ORIGIN] },
    bearer,
  );
  // Conversations of five turns, each from its own visitor (the intake limit is per visitor).
  let session;
  const turn = await growthPer(worker, count, async (index) => {
    const answer = await post(
      `/api/public/widget/${channel.channel_key}/intake`,
      { message: { text: answerable(index) }, ...(session ? { session_id: session } : {}) },
      { Origin: ORIGIN, 'CF-Connecting-IP': `203.0.113.${Math.floor(index / 5) % 250}` },
    );
    session = index % 5 === 4 ? undefined : answer.session_id;
  });
  const units = [
    { name: 'execution (faq: the agent answers)', perDay: DAILY.executions, ...execution },
    { name: 'conversation turn (widget)', perDay: DAILY.turns, ...turn },
    { name: 'lead (an execution for experts)', perDay: DAILY.leads, ...lead },
  ];
  console.log(`\nStorage: ${count} of each, through the real routes; bytes from D1's size (indexes included)`);
  for (const [index, unit] of units.entries()) {
    const expiring = unit.expiring[30] + unit.expiring[90] + unit.expiring[400];
    const top = [...unit.tables]
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, 4)
      .map((table) => table.table)
      .join(', ');
    console.log(
      `  ${unit.name.padEnd(34)} ${Math.round(unit.bytes).toLocaleString('en').padStart(6)} B` +
        ` (before: ${BEFORE_BYTES[index].toLocaleString('en')} B)` +
        `  (${Math.round((100 * expiring) / unit.bytes)}% expires with retention; most in ${top})`,
    );
  }
  // Each table's share of a unit, from its rows' estimated sizes (indexes not split out).
  for (const unit of units) {
    const cells = [...unit.tables]
      .sort((a, b) => b.bytes - a.bytes)
      .map((table) => `${table.table} ${Math.round(table.bytes / count)}`)
      .join(', ');
    console.log(`    ${unit.name.split(' (')[0]}: ${cells}`);
  }
  const days = daysTo10GB(units);
  const n = (value) => value.toLocaleString('en');
  const volume = `${n(DAILY.executions)} executions, ${n(DAILY.turns)} turns and ${n(DAILY.leads)} leads a day`;
  console.log(`  at ${volume}: ${(days.daily / 1024 ** 2).toFixed(0)} MB a day`);
  console.log(
    `  days to 10 GB: ${Math.round(days.without).toLocaleString('en')} without retention, ` +
      `${days.with >= 100_000 ? 'never (it levels off)' : days.with.toLocaleString('en')} with it ` +
      `(before: ${BEFORE.daysWithRetention})`,
  );
  const short = daysTo10GB(units, { 30: 7, 90: 7, 400: 30 });
  console.log(
    `  with deliveries and events kept 7 days and audit 30 (RETENTION_*_DAYS): ${n(short.with)} days; ` +
      `the rows kept for good grow ${((days.daily - shortDaily(units)) / 1024 ** 2).toFixed(0)} MB a day`,
  );
  return true;
}

/** What expires, per day, at the default windows: the rest is kept for good (the ledger names it). */
function shortDaily(units) {
  return units.reduce(
    (sum, unit) => sum + (unit.expiring[30] + unit.expiring[90] + unit.expiring[400]) * unit.perDay,
    0,
  );
}
