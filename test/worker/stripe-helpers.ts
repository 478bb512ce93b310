/**
 * A stubbed Stripe for the worker tests (its API at STRIPE_API_URL, https://stripe.test): Checkout
 * Sessions made and read back, and webhook deliveries signed with Stripe's own SDK.
 */
import { env } from 'cloudflare:test';
import Stripe from 'stripe';
import { expect } from 'vitest';
import { jsonResponse, remotes } from './agent-helpers';
import { postForm } from './console-helpers';
import { call } from './helpers';

export const STRIPE_ORIGIN = 'https://stripe.test';

/** A Checkout Session as the stub keeps it. */
export interface StubSession {
  id: string;
  object: 'checkout.session';
  url: string;
  amount_total: number;
  currency: string;
  metadata: Record<string, string>;
  payment_status: 'unpaid' | 'paid';
  payment_intent: string | null;
  status: 'open' | 'complete';
}

export const sessions = new Map<string, StubSession>();
let serial = 0;

/** Installs the stub (after installRemotes): sessions are made with POST and read with GET. */
export function installStripe(): void {
  sessions.clear();
  remotes.set(`${STRIPE_ORIGIN}/v1/checkout/sessions`, async (request) => {
    const form = new URLSearchParams(await request.text());
    const metadata: Record<string, string> = {};
    for (const [key, value] of form) {
      const field = /^metadata\[(\w+)\]$/.exec(key);
      if (field) metadata[field[1]!] = value;
    }
    serial += 1;
    const id = `cs_test_${serial}_${Date.now().toString(36)}`;
    const session: StubSession = {
      id,
      object: 'checkout.session',
      url: `${STRIPE_ORIGIN}/pay/${id}`,
      amount_total: Number(form.get('line_items[0][price_data][unit_amount]')),
      currency: form.get('line_items[0][price_data][currency]') ?? '',
      metadata,
      payment_status: 'unpaid',
      payment_intent: null,
      status: 'open',
    };
    sessions.set(id, session);
    return jsonResponse(session);
  });
  remotes.set(STRIPE_ORIGIN, (request) => {
    // A paid session's payment intent, with its charge's receipt (Stripe's own page).
    const intent = /^\/v1\/payment_intents\/pi_([\w-]+)$/.exec(new URL(request.url).pathname)?.[1];
    if (intent && sessions.has(intent))
      return jsonResponse({
        id: `pi_${intent}`,
        object: 'payment_intent',
        latest_charge: {
          id: `ch_${intent}`,
          object: 'charge',
          receipt_url: `https://pay.stripe.test/receipts/${intent}`,
        },
      });
    const id = /^\/v1\/checkout\/sessions\/([\w-]+)$/.exec(new URL(request.url).pathname)?.[1];
    const session = id ? sessions.get(id) : undefined;
    if (!session) return jsonResponse({ error: { type: 'invalid_request_error', message: 'No such session' } }, 404);
    return jsonResponse(session);
  });
}

/** Marks a session paid, as Stripe would after the payer paid on its page. */
export function pay(sessionId: string): StubSession {
  const session = sessions.get(sessionId)!;
  Object.assign(session, { payment_status: 'paid', status: 'complete', payment_intent: `pi_${sessionId}` });
  return session;
}

/** A Stripe event of `type` about `object`. */
export function stripeEvent(type: string, object: Record<string, unknown>, id = `evt_${crypto.randomUUID()}`) {
  return {
    id,
    object: 'event',
    type,
    api_version: '2025-01-01',
    created: Math.floor(Date.now() / 1000),
    data: { object },
  };
}

/** Delivers an event to the webhook, signed as Stripe signs (or with `signature` instead). */
export async function deliver(event: unknown, options: { signature?: string; timestamp?: number } = {}) {
  const payload = JSON.stringify(event);
  const header =
    options.signature ??
    (await new Stripe('sk_test_signer').webhooks.generateTestHeaderStringAsync({
      payload,
      secret: (env as unknown as { STRIPE_WEBHOOK_SECRET: string }).STRIPE_WEBHOOK_SECRET,
      ...(options.timestamp ? { timestamp: options.timestamp } : {}),
    }));
  return call('/api/payments/stripe/webhook', {
    body: payload,
    headers: { 'Stripe-Signature': header, 'Content-Type': 'application/json; charset=utf-8' },
  });
}

/** An owner's top-up through the Usage page's form: answers the session Stripe's page would show. */
export async function ownerTopUp(owner: { cookie: string; workspaceId: string }, amount: string) {
  const response = await postForm(
    `/integrations/usage/top-up?ws=${owner.workspaceId}`,
    { amount },
    {
      cookie: owner.cookie,
    },
  );
  expect(response.status, await response.clone().text()).toBe(303);
  const location = response.headers.get('Location')!;
  expect(location).toMatch(`${STRIPE_ORIGIN}/pay/`);
  return sessions.get(location.split('/pay/')[1]!)!;
}
