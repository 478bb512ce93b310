// `npm run bench -- live`: live conversation under load, against the real local Worker. 200
// conversations, each with a visitor socket and the claiming expert's socket, exchange messages for
// 30 s: the visitor writes through intake, the expert through the reply route, each paced like a
// person. Delivery latency is measured from the send's response to the message's arrival on the
// other side's socket (p50, p99), with messages per second; then the same through the polling
// fallback (the widget's 2 s poll), as the floor to beat. Fails if a message is lost.
import WebSocket from 'ws';
import { activeExpert } from './bench-accounts.mjs';

/** The sizes: the full run, and the smoke run of `npm test` (seconds). */
const SIZES = {
  full: { conversations: 200, experts: 50, liveSeconds: 30, pollConversations: 40, pollSeconds: 12 },
  smoke: { conversations: 4, experts: 2, liveSeconds: 3, pollConversations: 2, pollSeconds: 4 },
};
/** A person writes about every 5 s; spread so that the load is steady. */
const PACE_MS = 5_000;
const ORIGIN = 'https://bench.example.com';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (sorted, p) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

/** A socket that resolves waiters by message id. */
function openSocket(url) {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const waiting = new Map();
    const arrived = new Map();
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data));
      if (frame.type !== 'message') return;
      const at = performance.now();
      arrived.set(frame.message.message_id, at);
      waiting.get(frame.message.message_id)?.(at);
    });
    socket.on('open', () => {
      socket.send(JSON.stringify({ type: 'resume', after: null }));
      resolve({
        socket,
        /** When the message arrives (or arrived), within 10 s; null when it never does. */
        arrival: (messageId) =>
          arrived.has(messageId)
            ? Promise.resolve(arrived.get(messageId))
            : new Promise((done) => {
                waiting.set(messageId, done);
                setTimeout(() => done(null), 10_000);
              }),
      });
    });
    socket.on('error', reject);
  });
}

/** Sets up one conversation: a visitor's handoff makes a lead, which its expert claims. */
async function conversation(worker, channelKey, expert, index) {
  const intake = (body) =>
    fetch(`${worker.url}/api/public/widget/${channelKey}/intake`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: ORIGIN },
      body: JSON.stringify(body),
    }).then((response) => response.json());
  const first = await intake({ trigger: 'handoff', message: { text: `Conversation ${index}: a person, please.` } });
  const claim = await fetch(`${worker.url}/api/provider/workbench/leads/${first.lead_id}/claim`, {
    method: 'POST',
    headers: expert,
  });
  if (claim.status !== 200) throw new Error(`claim ${index}: ${claim.status}`);
  const visitorAuth = { Authorization: `Bearer ${first.session_id}`, Origin: ORIGIN };
  return {
    index,
    async say(text) {
      const startedAt = performance.now();
      const answer = await intake({ session_id: first.session_id, message: { text } });
      return { messageId: answer.messages?.[0]?.message_id, startedAt, sentAt: performance.now() };
    },
    async reply(text) {
      const startedAt = performance.now();
      const response = await fetch(`${worker.url}/api/provider/workbench/leads/${first.lead_id}/messages`, {
        method: 'POST',
        headers: expert,
        body: JSON.stringify({ text }),
      });
      if (response.status !== 201) throw new Error(`reply ${index}: ${response.status} ${await response.text()}`);
      return { messageId: (await response.json()).message_id, startedAt, sentAt: performance.now() };
    },
    async visitorSocket() {
      const ticket = await fetch(`${worker.url}/api/public/widget/${channelKey}/live-ticket`, {
        method: 'POST',
        headers: visitorAuth,
      }).then((response) => response.json());
      return openSocket(ticket.url);
    },
    async expertSocket() {
      const ticket = await fetch(`${worker.url}/api/provider/workbench/leads/${first.lead_id}/live-ticket`, {
        method: 'POST',
        headers: expert,
      }).then((response) => response.json());
      return openSocket(ticket.url);
    },
    /** The visitor's polling, on its own clock: every 2 s (the widget's shortest wait), as the fallback does. */
    startPolling() {
      const arrived = new Map();
      let after = null;
      let running = true;
      (async () => {
        while (running) {
          const thread = await fetch(
            `${worker.url}/api/public/widget/${channelKey}/messages${after ? `?after=${after}` : ''}`,
            { headers: visitorAuth },
          ).then((response) => response.json());
          for (const message of thread.messages) arrived.set(message.message_id, performance.now());
          after = thread.messages.at(-1)?.message_id ?? after;
          await sleep(2_000);
        }
      })();
      return {
        async arrival(messageId, within = 10_000) {
          const deadline = performance.now() + within;
          while (!arrived.has(messageId) && performance.now() < deadline) await sleep(20);
          return arrived.get(messageId) ?? null;
        },
        stop: () => {
          running = false;
        },
      };
    },
  };
}

function report(label, latencies, lost, seconds) {
  const sorted = latencies.slice().sort((a, b) => a - b);
  console.log(
    `${label}: ${latencies.length} delivered, ${lost} lost, ${(latencies.length / seconds).toFixed(1)} msg/s; ` +
      `latency p50 ${percentile(sorted, 0.5).toFixed(1)} ms, p99 ${percentile(sorted, 0.99).toFixed(1)} ms`,
  );
  return sorted;
}

/** Runs the live bench against a started local Worker; answers whether nothing was lost. */
export async function benchLive(worker, adminCall, { smoke = false } = {}) {
  const size = SIZES[smoke ? 'smoke' : 'full'];
  const { conversations: CONVERSATIONS, experts: EXPERTS, liveSeconds: LIVE_SECONDS } = size;
  const { pollConversations: POLL_CONVERSATIONS, pollSeconds: POLL_SECONDS } = size;
  const domain = `live-${Date.now().toString(36)}`;
  await adminCall(worker, '/api/admin/domains', { domain, name: 'Live bench' });
  const organization = await adminCall(worker, '/api/admin/organizations', { name: 'Bench live' });
  const key = await adminCall(worker, '/api/admin/api-keys', {
    workspace_id: organization.workspace_id,
    name: 'live',
    scopes: ['execute', 'channels:write'],
  });
  const channel = await fetch(`${worker.url}/api/integrations/channels`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key.token}`, 'Content-Type': 'application/json' },
    // Every lead is offered to all the experts at once (the first wave at its widest): any may claim it.
    body: JSON.stringify({ name: 'Live bench', domain, allowed_origins: [ORIGIN], routing: { offer_first: 50 } }),
  }).then((response) => response.json());
  const experts = [];
  for (let index = 0; index < EXPERTS; index++)
    experts.push(await activeExpert(worker, adminCall, { domain, index, name: 'Live', headline: 'Answers live' }));
  const conversations = [];
  for (let start = 0; start < CONVERSATIONS; start += 20) {
    const batch = Array.from({ length: Math.min(20, CONVERSATIONS - start) }, (_, offset) => start + offset);
    conversations.push(
      ...(await Promise.all(
        batch.map((index) => conversation(worker, channel.channel_key, experts[index % EXPERTS], index)),
      )),
    );
  }
  const sockets = await Promise.all(
    conversations.map(async (entry) => ({
      entry,
      visitor: await entry.visitorSocket(),
      expert: await entry.expertSocket(),
    })),
  );
  await sleep(1_000); // Every socket has resumed.

  // Live: each conversation writes both ways at a person's pace, offset so that the load is steady.
  const latencies = [];
  const endToEnd = [];
  let lost = 0;
  const liveUntil = performance.now() + LIVE_SECONDS * 1000;
  await Promise.all(
    sockets.map(async ({ entry, visitor, expert }) => {
      await sleep((entry.index / CONVERSATIONS) * PACE_MS);
      let turn = 0;
      while (performance.now() < liveUntil) {
        const beat = performance.now();
        const said = await entry.say(`Visitor turn ${turn} of ${entry.index}`);
        const heard = await expert.arrival(said.messageId);
        if (heard === null) lost++;
        else {
          latencies.push(Math.max(0, heard - said.sentAt));
          endToEnd.push(heard - said.startedAt);
        }
        const replied = await entry.reply(`Expert turn ${turn} of ${entry.index}`);
        const read = await visitor.arrival(replied.messageId);
        if (read === null) lost++;
        else {
          latencies.push(Math.max(0, read - replied.sentAt));
          endToEnd.push(read - replied.startedAt);
        }
        turn++;
        await sleep(Math.max(0, PACE_MS - (performance.now() - beat)));
      }
    }),
  );
  const live = report(
    `Live sockets (${CONVERSATIONS} conversations, ${LIVE_SECONDS} s), from the send's response`,
    latencies,
    lost,
    LIVE_SECONDS,
  );
  // 0 ms: the message was on the other socket by the time the sender had read its answer.
  report('  the same, from the start of the send (HTTP, the D1 batch, the fan-out)', endToEnd, lost, LIVE_SECONDS);
  for (const { visitor, expert } of sockets) {
    visitor.socket.close();
    expert.socket.close();
  }
  // Each expert's fixed window of 60 replies a minute starts afresh before the polling run (a smoke
  // run sends too few to reach it).
  if (!smoke) await sleep(61_000);

  // The floor: the same replies, read by the visitor's polling fallback.
  const polled = [];
  let pollLost = 0;
  const pollUntil = performance.now() + POLL_SECONDS * 1000;
  await Promise.all(
    conversations.slice(0, POLL_CONVERSATIONS).map(async (entry) => {
      const poller = entry.startPolling();
      await sleep((entry.index / POLL_CONVERSATIONS) * PACE_MS);
      let turn = 0;
      while (performance.now() < pollUntil) {
        const beat = performance.now();
        const replied = await entry.reply(`Polled turn ${turn++} of ${entry.index}`);
        const read = await poller.arrival(replied.messageId);
        if (read === null) pollLost++;
        else polled.push(read - replied.startedAt);
        await sleep(Math.max(0, PACE_MS / 2 - (performance.now() - beat)));
      }
      poller.stop();
    }),
  );
  const floor = report(
    `Polling fallback (${POLL_CONVERSATIONS} conversations, ${POLL_SECONDS} s)`,
    polled,
    pollLost,
    POLL_SECONDS,
  );
  const sortedEndToEnd = endToEnd.slice().sort((a, b) => a - b);
  const p99 = percentile(live, 0.99);
  const p99EndToEnd = percentile(sortedEndToEnd, 0.99);
  console.log(
    `Live p99 ${p99.toFixed(1)} ms after the response, ${p99EndToEnd.toFixed(1)} ms from the start of the send ` +
      `(target ≤ 100 ms: ${p99EndToEnd <= 100 ? 'met' : 'NOT met'}); the polling floor's p50 is ` +
      `${(percentile(floor, 0.5) / percentile(sortedEndToEnd, 0.5)).toFixed(0)}× the live p50 (both from the start)`,
  );
  return lost === 0 && pollLost === 0;
}
