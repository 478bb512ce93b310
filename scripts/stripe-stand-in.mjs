// A local stand-in for Stripe (docs/design/billing.md#card-top-ups), for `npm run dev` and the Node
// tests: the Checkout Session API the Worker's Stripe SDK calls (pointed here by STRIPE_API_URL), a
// "pay" page in Stripe's place, and the webhook a paid session sends, signed with the SDK's own
// generateTestHeaderString and STRIPE_WEBHOOK_SECRET. Local only: it takes any card-less "payment".
import { createServer } from 'node:http';
import Stripe from 'stripe';

const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/**
 * Starts the stand-in on 127.0.0.1:`port` (0: any free port). `webhookUrl` is where paid sessions
 * are announced. Answers its URL, the sessions it made, and close().
 */
export async function startStripeStandIn({ port = 0, webhookUrl, webhookSecret, quiet = true }) {
  const signer = new Stripe('sk_test_stand_in');
  const sessions = new Map();
  const byIdempotencyKey = new Map();
  let serial = 0;
  const log = (line) => quiet || console.log(`[stripe stand-in] ${line}`);

  async function announce(session, type = 'checkout.session.completed') {
    const event = {
      id: `evt_local_${Date.now().toString(36)}_${++serial}`,
      object: 'event',
      type,
      api_version: '2025-01-01',
      created: Math.floor(Date.now() / 1000),
      data: { object: session },
    };
    const payload = JSON.stringify(event);
    const signature = signer.webhooks.generateTestHeaderString({ payload, secret: webhookSecret });
    const response = await fetch(typeof webhookUrl === 'function' ? webhookUrl() : webhookUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json; charset=utf-8', 'Stripe-Signature': signature },
      body: payload,
    });
    log(`${type} ${session.id} → ${response.status} ${await response.text()}`);
  }

  const server = createServer(async (request, response) => {
    const url = new URL(request.url, 'http://stand-in');
    const chunks = [];
    for await (const chunk of request) chunks.push(chunk);
    const body = Buffer.concat(chunks).toString('utf8');
    const send = (status, value, type = 'application/json') => {
      response.writeHead(status, { 'Content-Type': type });
      response.end(type === 'application/json' ? JSON.stringify(value) : value);
    };
    if (request.method === 'POST' && url.pathname === '/v1/checkout/sessions') {
      const key = request.headers['idempotency-key'];
      if (key && byIdempotencyKey.has(key)) return send(200, sessions.get(byIdempotencyKey.get(key)));
      const form = new URLSearchParams(body);
      const metadata = {};
      for (const [name, value] of form) {
        const field = /^metadata\[(\w+)\]$/.exec(name);
        if (field) metadata[field[1]] = value;
      }
      const id = `cs_local_${Date.now().toString(36)}_${++serial}`;
      const session = {
        id,
        object: 'checkout.session',
        url: `${base()}/pay/${id}`,
        amount_total: Number(form.get('line_items[0][price_data][unit_amount]')),
        currency: form.get('line_items[0][price_data][currency]'),
        customer_email: form.get('customer_email'),
        metadata,
        payment_status: 'unpaid',
        payment_intent: null,
        status: 'open',
        success_url: form.get('success_url'),
        cancel_url: form.get('cancel_url'),
      };
      sessions.set(id, session);
      if (key) byIdempotencyKey.set(key, id);
      log(`session ${id}: ${session.amount_total} ${session.currency}`);
      return send(200, session);
    }
    const read = /^\/v1\/checkout\/sessions\/([\w-]+)$/.exec(url.pathname);
    if (request.method === 'GET' && read) {
      const session = sessions.get(read[1]);
      return session
        ? send(200, session)
        : send(404, { error: { type: 'invalid_request_error', message: `No such checkout.session: ${read[1]}` } });
    }
    // A paid session's payment intent, its charge's receipt expanded (the Worker links to it).
    const intent = /^\/v1\/payment_intents\/pi_([\w-]+)$/.exec(url.pathname);
    if (request.method === 'GET' && intent && sessions.has(intent[1])) {
      return send(200, {
        id: `pi_${intent[1]}`,
        object: 'payment_intent',
        latest_charge: { id: `ch_${intent[1]}`, object: 'charge', receipt_url: `${base()}/receipts/${intent[1]}` },
      });
    }
    const receipt = /^\/receipts\/([\w-]+)$/.exec(url.pathname);
    if (request.method === 'GET' && receipt && sessions.has(receipt[1])) {
      const paid = sessions.get(receipt[1]);
      const amount = `${(paid.amount_total / 100).toFixed(2)} ${paid.currency.toUpperCase()}`;
      return send(
        200,
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Receipt</title></head><body><main>
<h1>Receipt: ${escapeHtml(amount)}</h1><p>${escapeHtml(paid.id)} (the local Stripe stand-in)</p></main></body></html>`,
        'text/html; charset=utf-8',
      );
    }
    const page = /^\/pay\/([\w-]+)$/.exec(url.pathname);
    const session = page ? sessions.get(page[1]) : undefined;
    if (page && !session) return send(404, 'No such payment page.', 'text/plain');
    if (request.method === 'GET' && session) {
      const amount = `${(session.amount_total / 100).toFixed(2)} ${session.currency.toUpperCase()}`;
      return send(
        200,
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Pay ${escapeHtml(amount)} (local Stripe stand-in)</title>
<style>body{font:16px system-ui;max-width:28rem;margin:3rem auto;padding:0 1rem}
button{font:inherit;padding:.6rem 1.2rem}</style>
</head><body><main><h1>Pay ${escapeHtml(amount)}</h1>
<p>The local stand-in for Stripe Checkout: no card is asked for. With a real test key, Stripe's own page is here.</p>
<form method="post"><button type="submit">Pay ${escapeHtml(amount)}</button></form>
<p><a href="${escapeHtml(session.cancel_url)}">Cancel and go back</a></p></main></body></html>`,
        'text/html; charset=utf-8',
      );
    }
    if (request.method === 'POST' && session) {
      Object.assign(session, { payment_status: 'paid', status: 'complete', payment_intent: `pi_${session.id}` });
      await announce(session).catch((error) => log(`webhook failed: ${error.message}`));
      response.writeHead(303, { Location: session.success_url });
      return response.end();
    }
    send(404, { error: { type: 'invalid_request_error', message: `Unknown path ${url.pathname}` } });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const base = () => `http://127.0.0.1:${server.address().port}`;
  return {
    url: base(),
    port: server.address().port,
    sessions,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
