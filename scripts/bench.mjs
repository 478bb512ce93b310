// `npm run bench`: starts the Worker locally (wrangler dev, local D1), loads /healthz and
// /api/execute from this separate process with autocannon, and prints throughput, latency and
// the ratio execute/healthz (healthz is the floor: the same stack without auth or D1).
// It also prints the D1 work of one execute before and after the data grows; that number
// must not grow with keys or rows, and the script fails if it does.
import autocannon from 'autocannon';
import { parseArgs } from 'node:util';
import { startLocalWorker } from './local-worker.mjs';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '16' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);

const executeBody = JSON.stringify({
  domain: 'consultation',
  execution_mode: 'sync',
  required_scopes: ['execute'],
  text: 'Benchmark: I need help choosing a CRM for 20 sales reps.',
});

function load(options) {
  return new Promise((resolve, reject) => {
    autocannon({ connections, duration, ...options }, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

async function adminCall(worker, path, body) {
  const response = await fetch(`${worker.url}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${worker.adminToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

async function d1WorkOfOneExecute(worker, token) {
  const response = await fetch(`${worker.url}/api/execute`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: executeBody,
  });
  if (response.status !== 200) throw new Error(`execute: ${response.status} ${await response.text()}`);
  return { roundTrips: Number(response.headers.get('X-D1-Queries')), statements: Number(response.headers.get('X-D1-Statements')) };
}

const summarize = (result) => ({
  requestsPerSecond: result.requests.average,
  p50: result.latency.p50,
  p99: result.latency.p99,
  total: result.requests.total,
  non2xx: result.non2xx,
  errors: result.errors,
});

console.log(`Starting the Worker locally (wrangler dev, local D1)…`);
const worker = await startLocalWorker({ vars: { EXPOSE_DB_METRICS: '1' } });
let failed = false;
try {
  // A key of its own with a rate limit the load cannot reach, so the bench measures execution.
  const organization = await adminCall(worker, '/api/admin/organizations', { name: 'Bench' });
  const key = await adminCall(worker, '/api/admin/api-keys', {
    workspace_id: organization.workspace_id,
    name: 'bench',
    scopes: ['execute'],
    rate_limit_per_minute: 1_000_000,
  });
  const d1Before = await d1WorkOfOneExecute(worker, key.token);

  console.log(`Load: ${connections} connections, ${duration} s per endpoint, from this process (autocannon).`);
  const healthz = summarize(await load({ url: `${worker.url}/healthz` }));
  const execute = summarize(
    await load({
      url: `${worker.url}/api/execute`,
      method: 'POST',
      headers: { Authorization: `Bearer ${key.token}`, 'Content-Type': 'application/json' },
      body: executeBody,
    }),
  );

  // Grow the data further: many more organisations, keys and channels, on top of the rows the load wrote.
  for (let i = 0; i < 25; i++) {
    const org = await adminCall(worker, '/api/admin/organizations', { name: `Growth ${i}` });
    for (let j = 0; j < 4; j++) {
      const grown = await adminCall(worker, '/api/admin/api-keys', { workspace_id: org.workspace_id, name: `k${j}`, scopes: ['execute', 'channels:write'] });
      const channel = await fetch(`${worker.url}/api/integrations/channels`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${grown.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: `Site ${j}`, domain: 'consultation' }),
      });
      if (channel.status !== 201) throw new Error(`channel: ${channel.status}`);
    }
  }
  const d1After = await d1WorkOfOneExecute(worker, key.token);

  const row = (name, s) =>
    `${name.padEnd(14)} ${s.requestsPerSecond.toFixed(0).padStart(8)} req/s   p50 ${String(s.p50).padStart(4)} ms   p99 ${String(s.p99).padStart(4)} ms   ${s.total} requests, ${s.non2xx} non-2xx, ${s.errors} errors`;
  console.log('');
  console.log(row('GET /healthz', healthz));
  console.log(row('POST /execute', execute));
  console.log(`ratio execute/healthz: throughput ${(execute.requestsPerSecond / healthz.requestsPerSecond).toFixed(3)}, p50 latency ${(execute.p50 / Math.max(healthz.p50, 1)).toFixed(2)}x`);
  console.log(
    `D1 per execute: ${d1Before.roundTrips} round trips (${d1Before.statements} statements) on a fresh key; ` +
      `${d1After.roundTrips} round trips (${d1After.statements} statements) after ${execute.total} more executions, 100 more keys and 100 more channels`,
  );
  if (d1After.roundTrips !== d1Before.roundTrips || d1After.statements !== d1Before.statements) {
    console.error('FAIL: the D1 work of one execute grew with the data.');
    failed = true;
  }
  if (execute.non2xx > 0 || execute.errors > 0) {
    console.error('FAIL: some executions did not succeed.');
    failed = true;
  }
} finally {
  await worker.stop();
}
process.exit(failed ? 1 : 0);
