/**
 * `POST /api/payments/stripe/webhook` (docs/design/billing.md#card-top-ups): Stripe's deliveries,
 * verified on their raw body. Only Stripe calls it; it is described for completeness.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { emailLinkOrigin } from '../../env';
import { newApp } from '../../lib/app';
import { readJsonBody } from '../../lib/body';
import { ApiError } from '../../lib/errors';
import { jsonContent as json, problemResponses } from '../../lib/openapi';
import { paymentsConfig } from './config';
import { receiveStripeWebhook } from './webhook';

const answerSchema = z
  .object({
    received: z.literal(true),
    outcome: z.enum(['credited', 'refunded', 'held', 'expired', 'ignored', 'refused', 'duplicate']),
    event_id: z.string(),
  })
  .openapi('StripeWebhookAnswer');

const webhookRoute = createRoute({
  method: 'post',
  path: '/api/payments/stripe/webhook',
  tags: ['Payments'],
  summary: 'Stripe’s webhook (card top-ups)',
  description:
    'Called by Stripe, signed with the endpoint’s secret (`Stripe-Signature`). A verified event is recorded once ' +
    'and acted on: a paid Checkout Session credits its escrow once, a refund takes the amount back, a dispute ' +
    'holds the escrow. Anything that does not match its payment is recorded and refused (200).',
  security: [],
  middleware: [readJsonBody()] as const,
  responses: {
    200: json(answerSchema, 'What was done with the event'),
    ...problemResponses([400, 404, 413, 415]),
  },
});

/** The payment processor's routes. */
export function paymentRoutes() {
  const app = newApp();
  app.openapi(webhookRoute, async (c) => {
    const config = paymentsConfig(c.var.settings);
    if (!config) throw new ApiError('payments_unavailable', 'This deployment takes no card payments.');
    const rawBody = (await (c.req.bodyCache as { text?: Promise<string> }).text) ?? '';
    const answer = await receiveStripeWebhook(c.var.services, config, {
      rawBody,
      signature: c.req.header('Stripe-Signature'),
      // The console origin the receipt and alerts link to (CONSOLE_URL; locally, the loopback one).
      linkOrigin: emailLinkOrigin(c.var.settings, c.req.url),
    });
    return c.json({ received: true as const, ...answer }, 200);
  });
  return app;
}
