// `npm run bench -- claims`: 20 experts claim the same lead at once, 20 times over, against the
// real local Worker. Every lead comes from a channel that offers it to all of them at once (the
// first wave at its widest), so that each is allowed to race. Fails unless each round has exactly
// one winner and 19 × 409 already_claimed.
import { activeExpert } from './bench-accounts.mjs';

const ORIGIN = 'https://bench.example.com';

/** One claimer: an active expert with room for every lead it wins. */
async function claimer(worker, adminCall, domain, index) {
  const headers = await activeExpert(worker, adminCall, { domain, index, name: 'Claimer', headline: 'Claims fast' });
  // Every round's winner keeps the lead it won: room for all of them.
  await fetch(`${worker.url}/api/provider/preferences`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ max_open_claims: 100 }),
  });
  return headers;
}

/** Runs the claim race against a started local Worker; answers whether it held. */
export async function benchClaims(worker, adminCall, { smoke = false } = {}) {
  const CLAIMERS = smoke ? 5 : 20;
  const ROUNDS = smoke ? 3 : 20;
  const domain = `claims-${Date.now().toString(36)}`;
  await adminCall(worker, '/api/admin/domains', { domain, name: 'Claims bench' });
  const organization = await adminCall(worker, '/api/admin/organizations', { name: 'Bench claims' });
  const key = await adminCall(worker, '/api/admin/api-keys', {
    workspace_id: organization.workspace_id,
    name: 'claims',
    scopes: ['execute', 'channels:write'],
    rate_limit_per_minute: 1_000_000,
  });
  const channel = await fetch(`${worker.url}/api/integrations/channels`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Claims bench', domain, allowed_origins: [ORIGIN], routing: { offer_first: 50 } }),
  }).then((response) => response.json());
  const claimers = [];
  for (let index = 0; index < CLAIMERS; index++) claimers.push(await claimer(worker, adminCall, domain, index));
  let held = true;
  const durations = [];
  for (let round = 0; round < ROUNDS; round++) {
    const intake = await fetch(`${worker.url}/api/public/widget/${channel.channel_key}/intake`, {
      method: 'POST',
      headers: { Origin: ORIGIN, 'Content-Type': 'application/json' },
      body: JSON.stringify({ message: { text: `Race ${round}` }, trigger: 'handoff' }),
    }).then((response) => response.json());
    const leadId = intake.lead_id;
    const started = Date.now();
    const statuses = await Promise.all(
      claimers.map((headers) =>
        fetch(`${worker.url}/api/provider/workbench/leads/${leadId}/claim`, { method: 'POST', headers }).then(
          (response) => response.status,
        ),
      ),
    );
    durations.push(Date.now() - started);
    const winners = statuses.filter((status) => status === 200).length;
    const refused = statuses.filter((status) => status === 409).length;
    if (winners !== 1 || refused !== CLAIMERS - 1) {
      console.error(`FAIL: round ${round}: ${winners} winners, ${refused} × 409 (all: ${statuses.join(', ')})`);
      held = false;
    }
  }
  durations.sort((a, b) => a - b);
  console.log(
    `Claims: ${ROUNDS} rounds of ${CLAIMERS} concurrent claims on one lead; exactly one winner each: ` +
      `${held ? 'yes' : 'NO'}; a round took p50 ${durations[ROUNDS >> 1]} ms, max ${durations.at(-1)} ms`,
  );
  return held;
}
