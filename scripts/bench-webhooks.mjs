// `npm run bench -- webhooks`: 1,000 events through the real local Worker's outbox, queue and
// consumer to a verifying receiver on loopback. The first attempt of every event whose webhook-id
// ends in an even character code fails (503), so about half are retried, and exactly those. Prints
// how long the writes and the deliveries took; fails unless every event arrives, verified, and
// exactly the failed ones were retried.
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

/** A receiver that verifies each delivery and answers 503 to the first attempt of the chosen events. */
async function startReceiver() {
  let secret = '';
  const attempts = new Map();
  const delivered = new Map();
  let rejected = 0;
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      let event;
      try {
        event = new Webhook(secret).verify(body, request.headers);
      } catch {
        rejected += 1;
        return response.writeHead(401).end();
      }
      const id = String(request.headers['webhook-id']);
      const attempt = (attempts.get(id) ?? 0) + 1;
      attempts.set(id, attempt);
      if (attempt === 1 && failsFirst(id)) return response.writeHead(503).end();
      delivered.set(id, event);
      response.writeHead(204).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/hook`,
    useSecret: (value) => (secret = value),
    attempts,
    delivered,
    rejected: () => rejected,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** Whether an event's first attempt fails: decided by its id, so the expected retries are known exactly. */
const failsFirst = (webhookId) => webhookId.charCodeAt(webhookId.length - 1) % 2 === 0;

/** Runs the webhook load against a started local Worker; answers whether it held. */
export async function benchWebhooks(worker, adminCall, { smoke = false } = {}) {
  const EVENTS = smoke ? 20 : 1000;
  const receiver = await startReceiver();
  try {
    const organization = await adminCall(worker, '/api/admin/organizations', { name: 'Bench webhooks' });
    const key = await adminCall(worker, '/api/admin/api-keys', {
      workspace_id: organization.workspace_id,
      name: 'hooks',
      scopes: ['execute'],
      rate_limit_per_minute: 1_000_000,
    });
    const hook = await adminCall(worker, '/api/admin/webhooks', {
      workspace_id: organization.workspace_id,
      url: receiver.url,
      event_types: ['execution.completed'],
    });
    receiver.useSecret(hook.secret);
    const started = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < EVENTS) {
          const index = next++;
          const send = () =>
            fetch(`${worker.url}/api/execute`, {
              method: 'POST',
              headers: { Authorization: `Bearer ${key.token}`, 'Content-Type': 'application/json' },
              body: JSON.stringify({
                domain: 'consultation',
                execution_mode: 'sync',
                required_scopes: [],
                text: `Load event ${index}`,
                // A retry (below) replays the first answer: one event per index, whatever happened.
                idempotency_key: `bench-webhooks-${started}-${index}`,
              }),
            });
          let response = await send();
          // The local runtime under a loaded machine may restart mid-request (its 503 says to send
          // again); an idempotent retry is what a client does, and counts the event once.
          for (let retry = 0; retry < 3 && (response.status === 503 || response.status === 409); retry++) {
            await new Promise((resolve) => setTimeout(resolve, 500 * (retry + 1)));
            response = await send();
          }
          if (response.status !== 200) throw new Error(`execute: ${response.status} ${await response.text()}`);
        }
      }),
    );
    const written = Date.now();
    const deadline = Date.now() + 300_000;
    while (receiver.delivered.size < EVENTS && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 250));
    const done = Date.now();
    const ids = [...receiver.attempts.keys()];
    const retried = ids.filter((id) => receiver.attempts.get(id) > 1).length;
    const expectedRetries = ids.filter(failsFirst).length;
    console.log(
      `Webhooks: ${EVENTS} events written in ${((written - started) / 1000).toFixed(1)} s; all delivered ` +
        `${((done - started) / 1000).toFixed(1)} s after the first write; ` +
        `${receiver.delivered.size} delivered, ${retried} retried after a failed first attempt (expected ` +
        `${expectedRetries}), ${receiver.rejected()} signatures refused`,
    );
    const held = receiver.delivered.size === EVENTS && receiver.rejected() === 0 && retried === expectedRetries;
    if (!held) console.error('FAIL: not every event arrived exactly as expected.');
    return held;
  } finally {
    await receiver.close();
  }
}
