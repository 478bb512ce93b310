/** GET /api/insights (docs/design/insights.md): a workspace's numbers, for its owners or a key with channels:read. */
import { createRoute } from '@hono/zod-openapi';
import { newApp } from '../../lib/app';
import { jsonContent, problemResponses } from '../../lib/openapi';
import { requireWorkspace, requireWorkspaceAccess } from '../identity';
import { insightsQuerySchema, insightsSchema } from './schemas';
import { insightsView } from './service';

const insightsAccess = [requireWorkspaceAccess('insights.read')];
const security: Record<string, string[]>[] = [{ bearerAuth: [] }, { consoleSession: [] }];

/** The insights route. */
export function insightsRoutes() {
  const app = newApp('problem');
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/insights',
      operationId: 'getInsights',
      tags: ['Insights'],
      summary: 'Your funnel, response times and outcomes, per day and in total',
      description:
        'Conversations; demands answered by an agent or a robot, turned into leads, held or rejected; the leads by ' +
        'status; time to first claim and to first reply (p50, p90); won rate and value; the agents’ answers; top ' +
        'topics. `from` and `to` are days (UTC, `to` included; the last 30 days by default, at most 366). At most a ' +
        'minute behind: the numbers are counted each minute.',
      security,
      middleware: insightsAccess,
      request: { query: insightsQuerySchema },
      responses: {
        200: jsonContent(insightsSchema, 'The numbers.'),
        ...problemResponses([401, 403, 404, 422] as const),
      },
    }),
    async (c) => {
      c.header('Cache-Control', 'no-store');
      const { from, to, channel } = c.req.valid('query');
      // Counts that decide nothing: a replica's read (docs/design/scale.md).
      const view = await insightsView(
        c.var.reads,
        requireWorkspace(c).workspaceId,
        { ...(from ? { from } : {}), ...(to ? { to } : {}), ...(channel ? { channel } : {}) },
        c.var.services.clock.now(),
      );
      return c.json(view, 200);
    },
  );
  return app;
}
