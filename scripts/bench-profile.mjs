// `npm run bench -- profile` (and after the gateway run): where an execution's CPU goes in
// workerd. A Worker of its own is started with only the devtools inspector's port open
// (profile.mjs) and an unminified bundle, so functions and modules have their names; /api/execute
// is sent one request after another, without and under a contract, and the top areas and
// functions by self time are printed, per request. Under the inspector each console.log is also
// handed to the devtools session, so the log line costs more here than it does in production:
// it is printed apart.
import { profileRequests } from './profile.mjs';
import { startLocalWorker } from './local-worker.mjs';

const executeBody = JSON.stringify({
  domain: 'consultation',
  execution_mode: 'sync',
  required_scopes: ['execute'],
  text: 'Benchmark: I need help choosing a CRM for 20 sales reps.',
});

/** Profiles /api/execute plain and under a contract; prints the top entries. Answers true (nothing to fail). */
export async function benchProfile(adminCall, contractedKey, { smoke = false } = {}) {
  const worker = await startLocalWorker({
    inspector: false,
    profile: true,
    vars: { EXPOSE_DB_METRICS: '1' },
    entry: 'bench/entry.ts',
  });
  try {
    const organization = await adminCall(worker, '/api/admin/organizations', { name: 'Bench profile' });
    const plain = await adminCall(worker, '/api/admin/api-keys', {
      workspace_id: organization.workspace_id,
      name: 'bench profile',
      scopes: ['execute'],
      rate_limit_per_minute: 1_000_000,
    });
    const contracted = await contractedKey(worker);
    const requests = smoke ? 20 : 300;
    // The floor first: one trivial D1 batch behind the same stack (bench/routes.ts). What execute
    // spends beyond it is its own work; the rest of a request's time is the local D1's.
    const floor = async () => {
      const response = await fetch(`${worker.url}/__bench/d1-batch`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${plain.token}` },
      });
      await response.arrayBuffer();
    };
    for (let index = 0; index < 20; index++) await floor();
    const floorProfile = await profileRequests(worker.inspectorPort, floor, { requests, top: 1 });
    const perRequest = [];
    for (const [label, token] of [
      ['POST /api/execute', plain.token],
      ['  under a contract', contracted.token],
    ]) {
      const send = async () => {
        const response = await fetch(`${worker.url}/api/execute`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: executeBody,
        });
        if (response.status !== 200) throw new Error(`execute: ${response.status} ${await response.text()}`);
        await response.arrayBuffer();
      };
      for (let index = 0; index < 20; index++) await send(); // warm the isolate and its caches
      const profile = await profileRequests(worker.inspectorPort, send, { requests, top: 8 });
      const row = ({ name, ms, share }) =>
        `    ${ms.toFixed(3).padStart(6)} ms ${`${(share * 100).toFixed(1)}%`.padStart(6)}  ${name}`;
      console.log(
        `CPU profile of ${label.trim()} (workerd, ${requests} requests one after another, sampled every 0.1 ms): ` +
          `${profile.msPerRequest.toFixed(2)} ms of samples per request`,
      );
      console.log('  by area (our folders, libraries, the runtime):');
      for (const entry of profile.areas) console.log(row(entry));
      console.log('  by function:');
      for (const entry of profile.functions) console.log(row(entry));
      perRequest.push([label.trim(), profile.msPerRequest]);
    }
    console.log(
      `The Worker's own CPU per request (samples, workerd): the floor route (one D1 batch) ` +
        `${floorProfile.msPerRequest.toFixed(2)} ms; ` +
        perRequest
          .map(([label, ms]) => `${label} ${ms.toFixed(2)} ms (${(ms / floorProfile.msPerRequest).toFixed(1)}×)`)
          .join(', '),
    );
    console.log(
      '  (a function without a module is the runtime\'s; "logLine" and the runtime\'s console.log beneath it are ' +
        'dearer under the inspector, which receives every log line)',
    );
    return true;
  } finally {
    await worker.stop();
  }
}
