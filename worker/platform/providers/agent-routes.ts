/**
 * The provider API of agents and robots: rotating the signing secret (issued at approval, shown
 * once to the approver; a rotation gives one only the provider has seen, with a 24-hour overlap)
 * and the health of the last 24 hours.
 */
import { createRoute } from '@hono/zod-openapi';
import { newApp } from '../../lib/app';
import { jsonContent, problemResponses } from '../../lib/openapi';
import { requireProvider, requireProviderRow } from './gate';
import { agentHealthSchema, signingSecretSchema } from '../agents';
import { agentHealth, rotateSigningSecret } from '../agents';
import { clock } from '../../lib/clock';

const TAG = 'Providers';
const security: Record<string, string[]>[] = [{ consoleSession: [] }];
const operate = requireProvider('agent.operate');

export const rotateSecretRoute = createRoute({
  method: 'post',
  path: '/api/provider/signing-secret/rotate',
  operationId: 'rotateSigningSecret',
  tags: [TAG],
  summary: 'Rotate the signing secret',
  description:
    'Every call the platform makes to you carries Standard Webhooks headers signed with your `whsec_` secret; verify ' +
    'them (the npm `standardwebhooks` library does). This issues a new secret, shown once in this answer. For 24 ' +
    'hours calls carry signatures under both the old and the new secret, so you can deploy the new one without ' +
    'missing a call.',
  security,
  middleware: [operate] as const,
  responses: {
    200: jsonContent(signingSecretSchema, 'The new secret. Store it now.'),
    ...problemResponses([401, 403, 409, 503] as const),
  },
});

export const healthRoute = createRoute({
  method: 'get',
  path: '/api/provider/health',
  operationId: 'getAgentHealth',
  tags: [TAG],
  summary: 'Your agent’s or robot’s last 24 hours',
  description:
    'Calls, success rate, p50 and p95 latency, the circuit breaker (5 failures in a row skip you for a minute) and ' +
    'the last errors, each with its execution id.',
  security,
  middleware: [operate] as const,
  responses: { 200: jsonContent(agentHealthSchema, 'The health view.'), ...problemResponses([401, 403] as const) },
});

/** The agent and robot routes of the provider API. */
export function agentProviderRoutes() {
  const app = newApp('problem');
  app.openapi(rotateSecretRoute, async (c) => {
    const provider = requireProviderRow(c);
    const rotated = await rotateSigningSecret(
      c.var.db,
      { actorKind: 'user', actorId: provider.userId, requestId: c.var.requestId },
      provider.id,
      c.var.services.secretsKey,
      clock.now(),
    );
    c.header('Cache-Control', 'no-store');
    return c.json(rotated, 200);
  });
  app.openapi(healthRoute, async (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json(await agentHealth(c.var.db, requireProviderRow(c).id, clock.now()), 200);
  });
  return app;
}
