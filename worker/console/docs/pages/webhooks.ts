/** /docs/webhooks: the events, their payloads, verification in Node and Python, retries, de-duplication. */
import { EVENT_TYPES, type EventType } from '../../../platform/events';
import { blocks, fence, table } from '../text';
import type { DocsPageSource } from './context';

const EVENT_MEANINGS: Record<EventType, string> = {
  'lead.created': 'A demand became a lead for experts.',
  'lead.claimed': 'An expert claimed a lead.',
  'lead.status_changed': 'The claimer moved a lead (contacted, qualified, won, lost, or released).',
  'lead.released': 'A claimed lead went back to the experts: its claimer released it, or the claim SLA lapsed.',
  'lead.unclaimed': 'Nobody claimed a lead within the channel’s `escalate_minutes`: its owners were emailed.',
  'execution.completed': 'An execution completed (API or channel), on the agent or the lead path.',
  'provider.status_changed': 'A provider who is a member of the workspace changed state (approved, suspended…).',
  'intake.received': 'A visitor’s message, handoff or contact form reached a channel.',
  'conversation.message_created': 'A message was added to a conversation (visitor, agent, expert or platform).',
  'usage.threshold_reached':
    'A meter of the contract reached 80% or 100% of its monthly allowance (once a month each).',
  'escrow.low_balance': 'The contract’s escrow fell below its low-balance threshold.',
  'statement.issued': 'A month closed: the contract’s statement is ready (JSON or CSV at /api/usage/statements).',
};

/** A lead.created event as it is sent: the test checks it against the event's own schema. */
export const EXAMPLE_EVENT = {
  id: 'evt_01m82f7a9k2c4d6e8g0h2j4k6m',
  type: 'lead.created',
  created_at: '2026-11-24T09:30:12.345Z',
  workspace_id: 'ws_demo',
  data: {
    lead_id: 'lead_01m82f7a9k2c4d6e8g0h2j4k6n',
    demand_id: 'dem_01m82f7a9k2c4d6e8g0h2j4k6p',
    execution_id: 'exe_01m82f7a9k2c4d6e8g0h2j4k6q',
    reference: 'D-8S5BSX',
    status: 'open',
    trigger: 'consultation',
    domain: 'consultation',
    topic: 'general',
    urgency: 'normal',
    channel_key: 'ch_demo',
    summary: 'I need help choosing a CRM for 20 sales reps.',
    created_at: '2026-11-24T09:30:12.301Z',
  },
};

const NODE_RECEIVER = `// npm install express standardwebhooks
import express from 'express';
import { Webhook } from 'standardwebhooks';

const webhook = new Webhook(process.env.WEBHOOK_SECRET); // whsec_…
const seen = new Set(); // use your database: keep handled webhook-ids for a few days

const app = express();
app.post('/hooks/gateway', express.text({ type: 'application/json' }), (req, res) => {
  let event;
  try {
    event = webhook.verify(req.body, req.headers); // checks the signature and the timestamp (5 minutes)
  } catch {
    return res.status(401).end();
  }
  const id = req.headers['webhook-id'];
  if (seen.has(id)) return res.status(200).end(); // a retry of what you already handled
  seen.add(id);
  console.log(event.type, event.data); // may arrive out of order: use the record's own timestamps
  res.status(204).end();
});
app.listen(Number(process.env.PORT ?? 3000));`;

const PYTHON_RECEIVER = `# Python 3, standard library only
import base64, hashlib, hmac, json, os, time
from http.server import BaseHTTPRequestHandler, HTTPServer

SECRET = base64.b64decode(os.environ["WEBHOOK_SECRET"].removeprefix("whsec_"))
seen = set()  # use your database: keep handled webhook-ids for a few days

def verify(headers, body):
    msg_id, timestamp = headers["webhook-id"], headers["webhook-timestamp"]
    if abs(time.time() - int(timestamp)) > 300:
        raise ValueError("timestamp too old or too new")
    signed = f"{msg_id}.{timestamp}.".encode() + body
    expected = base64.b64encode(hmac.new(SECRET, signed, hashlib.sha256).digest()).decode()
    for signature in headers["webhook-signature"].split(" "):  # two during a secret rotation
        version, _, value = signature.partition(",")
        if version == "v1" and hmac.compare_digest(value, expected):
            return json.loads(body)
    raise ValueError("no valid signature")

class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        try:
            event = verify(self.headers, body)
        except (KeyError, ValueError):
            self.send_response(401)
            self.end_headers()
            return
        if self.headers["webhook-id"] not in seen:  # a retry of what you already handled is skipped
            seen.add(self.headers["webhook-id"])
            print(event["type"], event["data"])
        self.send_response(204)
        self.end_headers()

HTTPServer(("127.0.0.1", int(os.environ.get("PORT", "3000"))), Receiver).serve_forever()`;

export const webhooksPage: DocsPageSource = {
  slug: 'webhooks',
  title: 'Webhooks',
  summary: 'Event types and payloads, verification in Node and Python, retries and de-duplication.',
  markdown: () =>
    blocks(
      'Your systems hear about changes without polling. Endpoints are set up per workspace through provisioning, ' +
        'with the event types they want; the workspace’s owners see them and their delivery log in the console.',
      '## Events {#events}',
      table(
        ['Type', 'Sent when'],
        EVENT_TYPES.map((type) => [`\`${type}\``, EVENT_MEANINGS[type]]),
      ),
      'Each event is `POST`ed as JSON: `{id, type, created_at, workspace_id, data}`, where `data` is the public ' +
        'shape of the record. A visitor’s contact details are never in an event.',
      fence('json event', JSON.stringify(EXAMPLE_EVENT, null, 2)),
      '## Verifying the signature {#verify}',
      'Every request carries the [Standard Webhooks](https://www.standardwebhooks.com/) headers `webhook-id` (the ' +
        'event’s id, the same on every retry), `webhook-timestamp` and `webhook-signature`: `v1,` and the base64 ' +
        'HMAC-SHA256 of `{id}.{timestamp}.{body}` under your `whsec_` secret (base64 after the prefix). During a ' +
        'secret rotation it holds two signatures, old and new, for 24 hours; either verifies. Check the raw body, ' +
        'before any JSON parsing.',
      '### Node {#node}',
      fence('js receiver', NODE_RECEIVER),
      '### Python {#python}',
      fence('python receiver', PYTHON_RECEIVER),
      '## Retries {#retries}',
      [
        '- Answer 2xx within 10 seconds. Any other answer, a timeout or a redirect is retried with exponential ' +
          'backoff and jitter (from 30 seconds, doubling up to 6 hours) for about 3 days, with the same ' +
          '`webhook-id`; `Retry-After` is honoured.',
        '- `410 Gone` disables the endpoint at once, and so do 3 days without a success. Owners see a warning in ' +
          'the console. Nothing is dropped: deliveries wait as paused, and go out when the endpoint is enabled ' +
          'again, if they are within 3 days of their event.',
        '- One slow endpoint delays no other endpoint’s deliveries.',
      ].join('\n'),
      '## De-duplication and order {#deduplication}',
      '**Delivery is at least once, and events may arrive out of order.** Keep the `webhook-id`s you handled for a ' +
        'few days and answer 2xx to a repeat without handling it again (both receivers above do). Order by the ' +
        'record’s own timestamps (`claimed_at`, `changed_at`…), not by arrival.',
    ),
};
