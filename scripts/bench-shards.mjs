// `npm run bench -- shards`: execute's throughput with its load on one shard and on two, in the
// same run (docs/design/scale.md#moves). Three workspaces of their own: two on shard 0, one on
// shard 1; the same connections load two keys on one shard, then one key on each. Fails unless an
// execution is one D1 round trip on either shard (a shard adds none) and no request failed.
// Locally every database is a file of the one workerd process, so two shards add no throughput
// here; on Cloudflare each D1 database has a writer of its own, which is what a second shard buys.
import autocannon from 'autocannon';

/** Runs the shards bench against a started local Worker; answers whether it held. */
export async function benchShards(worker, adminCall, { connections, duration, rounds, body }) {
  // An organisation on each shard (new ones go to the smaller shard, so one may come from the
  // list), then workspaces of its own in it: two keys on shard 0, one on shard 1.
  const listed = await fetch(`${worker.url}/api/admin/organizations`, {
    headers: { Authorization: `Bearer ${worker.adminToken}` },
  }).then((response) => response.json());
  const organizationOn = {};
  for (const organization of listed.data) organizationOn[organization.shard] ??= organization.organization_id;
  for (let made = 0; made < 12 && (!organizationOn[0] || !organizationOn[1]); made++) {
    const organization = await adminCall(worker, '/api/admin/organizations', { name: `Bench shard ${made}` });
    organizationOn[organization.shard] ??= organization.organization_id;
  }
  if (!organizationOn[0] || !organizationOn[1]) {
    console.log('Shards: no organisation on each shard; is the Worker bound to two?');
    return false;
  }
  const keyOn = async (shard) => {
    const workspace = await adminCall(worker, '/api/admin/workspaces', {
      organization_id: organizationOn[shard],
      name: `Bench shard ${shard}`,
    });
    const key = await adminCall(worker, '/api/admin/api-keys', {
      workspace_id: workspace.workspace_id,
      name: 'bench shards',
      scopes: ['execute'],
      rate_limit_per_minute: 1_000_000,
    });
    return key.token;
  };
  const keys = { 0: [await keyOn(0), await keyOn(0)], 1: [await keyOn(1)] };
  const trips = {};
  for (const [shard, token] of [
    [0, keys[0][0]],
    [1, keys[1][0]],
  ]) {
    await execute(worker, token);
    trips[shard] = await execute(worker, token);
  }
  const half = Math.max(1, Math.floor(connections / 2));
  const target = (token) => ({
    url: `${worker.url}/api/execute`,
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body,
  });
  const both = async (first, second) => {
    const results = await Promise.all(
      [first, second].map(
        (token) =>
          new Promise((resolve, reject) =>
            autocannon({ connections: half, duration, ...target(token) }, (error, result) =>
              error ? reject(error) : resolve(result),
            ),
          ),
      ),
    );
    return {
      requestsPerSecond: results.reduce((sum, result) => sum + result.requests.average, 0),
      failed: results.reduce((sum, result) => sum + result.non2xx + result.errors, 0),
    };
  };
  const one = [];
  const two = [];
  for (let round = 0; round < rounds; round++) {
    one.push(await both(keys[0][0], keys[0][1]));
    two.push(await both(keys[0][0], keys[1][0]));
  }
  const median = (runs) =>
    [...runs].map((run) => run.requestsPerSecond).sort((a, b) => a - b)[Math.floor(runs.length / 2)];
  const failed = [...one, ...two].reduce((sum, run) => sum + run.failed, 0);
  console.log(`\nShards: ${connections} connections over two keys, ${rounds} rounds of ${duration} s`);
  console.log(`  one shard  ${median(one).toFixed(0).padStart(6)} req/s`);
  console.log(
    `  two shards ${median(two).toFixed(0).padStart(6)} req/s  (${(median(two) / median(one)).toFixed(2)}× one)`,
  );
  console.log(
    `  D1 per execute on a warm key: ${trips[0].roundTrips} round trip on shard 0 ` +
      `(${trips[0].statements} statements), ` +
      `${trips[1].roundTrips} on shard 1 (${trips[1].statements}); ${failed} requests failed`,
  );
  const held = trips[0].roundTrips === 1 && trips[1].roundTrips === 1 && failed === 0;
  console.log(held ? '  ✓ a shard adds no round trip' : '  ✗ the shards did not hold');
  return held;
}

async function execute(worker, token) {
  const response = await fetch(`${worker.url}/api/execute`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ domain: 'consultation', execution_mode: 'sync', required_scopes: ['execute'], text: 'Hi' }),
  });
  if (response.status !== 200) throw new Error(`execute: ${response.status} ${await response.text()}`);
  return {
    roundTrips: Number(response.headers.get('X-D1-Queries')),
    statements: Number(response.headers.get('X-D1-Statements')),
  };
}
