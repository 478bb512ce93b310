/**
 * Visitor intake (SPEC.md "Console routes"), at both addresses the spec names:
 *   /api/public/channels/{channelKey}/intake  and  /api/public/widget/{channel_key}/intake
 * A thin adapter over the execution core, as /api/execute is: the channel's gate (active channel,
 * allowed origin, CORS) and then the channel visitor's source adapter (core/sources/channel.ts).
 */
import { createRoute, z } from '@hono/zod-openapi';
import { newApp } from '../lib/app';
import { parseJsonBody, readJsonBody } from '../lib/body';
import { problemResponses } from '../lib/openapi';
import { admittedChannel, channelGate, PUBLIC_CHANNEL_PATHS } from '../platform/channels';
import { intakeRequestSchema, intakeResponseSchema } from '../platform/channels';
import { runIntake } from '../platform/core';

const TAG = 'Widget (public)';
const INTAKE_MAX_BYTES = 16 * 1024;

/** The intake routes, at both addresses. */
export function intakeRoutes() {
  const app = newApp('problem');
  for (const paths of PUBLIC_CHANNEL_PATHS) {
    const params = z.object({ [paths.param]: z.string().min(1).max(64).openapi({ example: 'ch_demo' }) });
    app.openapi(
      createRoute({
        method: 'post',
        path: paths.intake,
        operationId: `submitIntake${paths.idSuffix}`,
        tags: [TAG],
        summary: 'Send a visitor message, handoff or contact details',
        description:
          'Starts or continues a visitor session and answers with the reply to show. Admission: active channel, ' +
          'allowed origin, a rate limit per channel and client, a honeypot, and 4,000 characters per message. The ' +
          'demand then runs through the same executor as /api/execute.',
        security: [],
        middleware: [
          channelGate(paths.param, { requireOrigin: true, forIntake: true }),
          readJsonBody(INTAKE_MAX_BYTES),
          parseJsonBody,
        ],
        request: {
          params,
          body: {
            required: true,
            content: {
              'application/json': {
                schema: intakeRequestSchema,
                example: { trigger: 'consultation', message: { text: 'Do you do payroll audits?' } },
              },
            },
          },
        },
        responses: {
          200: {
            description: 'What to show the visitor next.',
            content: { 'application/json': { schema: intakeResponseSchema } },
          },
          ...problemResponses([400, 403, 404, 413, 415, 422, 429, 503] as const),
        },
      }),
      async (c) => {
        const response = await runIntake(c.var.services, {
          channel: admittedChannel(c),
          request: c.req.valid('json'),
          clientIp: c.req.header('CF-Connecting-IP') ?? 'unknown',
          origin: c.var.channelOriginToGuard ?? null,
          visitor: {
            acceptLanguage: c.req.header('Accept-Language'),
            country: c.req.header('CF-IPCountry'),
          },
        });
        c.header('Cache-Control', 'no-store');
        return c.json(response, 200);
      },
    );
  }
  return app;
}
