/** GET /healthz: liveness, and with `?deep=1` readiness of D1. */
import { pingDatabase } from '../lib/db';
import { createRoute, z } from '@hono/zod-openapi';
import packageJson from '../../package.json';
import { newApp } from '../lib/app';
import { ApiError } from '../lib/errors';
import { problemResponses } from '../lib/openapi';

export const SERVICE_VERSION: string = packageJson.version;

const healthSchema = z
  .object({
    status: z.literal('ok'),
    version: z.string(),
    checks: z.object({ d1: z.literal('ok') }).optional(),
  })
  .openapi('Health');

export const healthzRoute = createRoute({
  method: 'get',
  path: '/healthz',
  operationId: 'healthz',
  tags: ['Gateway'],
  summary: 'Liveness, and with deep=1 readiness of D1 (the directory and every shard)',
  security: [],
  request: { query: z.object({ deep: z.enum(['0', '1']).optional() }) },
  responses: {
    200: { description: 'The service is up.', content: { 'application/json': { schema: healthSchema } } },
    ...problemResponses([503] as const),
  },
});

/** The health route. */
export function healthzRoutes() {
  const app = newApp('problem');
  app.openapi(healthzRoute, async (c) => {
    c.header('Cache-Control', 'no-store');
    if (c.req.valid('query').deep !== '1') return c.json({ status: 'ok' as const, version: SERVICE_VERSION }, 200);
    try {
      // The directory, and every shard: a request may need any of them.
      const { services } = c.var;
      const shards = Array.from({ length: services.shardCount }, (_, shard) => services.onShard(shard));
      await Promise.all([pingDatabase(c.var.db), ...shards.map(pingDatabase)]);
    } catch {
      throw new ApiError('service_unavailable', 'D1 did not answer.', { extensions: { checks: { d1: 'fail' } } });
    }
    return c.json({ status: 'ok' as const, version: SERVICE_VERSION, checks: { d1: 'ok' as const } }, 200);
  });

  return app;
}
