/**
 * The ledger's public routes (docs/design/billing.md): a workspace's usage and statements, for
 * its owners or an administrator naming it. An expert's credits are on the workbench's routes.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../../env';
import { newApp } from '../../lib/app';
import { csvHeaders } from '../../lib/csv';
import { jsonContent, problemResponses } from '../../lib/openapi';
import { requireOwnerOrNamingAdmin, requireWorkspace } from '../identity';
import { statementSchema, usageQuerySchema, usageSchema } from './schemas';
import { listStatements, statementsCsv, workspaceEscrowIds } from './statements';
import { usageView } from './usage';

const TAG = 'Usage';
/** A console session of an owner; or an administrator token with `workspace_id`. */
const ownerSecurity: Record<string, string[]>[] = [{ consoleSession: [] }, { bearerAuth: [] }];

/** An owner's session; or an administrator's token, naming the workspace in `workspace_id`. */
const usageAccess = requireOwnerOrNamingAdmin('usage.read');

const now = (c: Context<AppEnv>) => c.var.services.clock.now();

/** The usage and statement routes. */
export function billingRoutes() {
  const app = newApp('problem');
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/usage',
      operationId: 'getUsage',
      tags: [TAG],
      summary: 'Your workspace’s usage, against its contract',
      description:
        'This month’s meters against the contract in force, the escrow’s balance, and what was used and charged ' +
        'over `[from, to]` (days, UTC; this month by default; at most 366 days), by day, meter, channel or key.',
      security: ownerSecurity,
      middleware: [usageAccess] as const,
      request: { query: usageQuerySchema },
      responses: { 200: jsonContent(usageSchema, 'The usage.'), ...problemResponses([401, 403, 404, 422] as const) },
    }),
    async (c) => {
      c.header('Cache-Control', 'no-store');
      const query = c.req.valid('query');
      return c.json(await usageView(c.var.db, requireWorkspace(c).workspaceId, query, now(c)), 200);
    },
  );
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/usage/statements',
      operationId: 'listStatements',
      tags: [TAG],
      summary: 'Your workspace’s monthly statements, as JSON or CSV',
      description: 'Newest first. With `Accept: text/csv`, one CSV line per statement and meter.',
      security: ownerSecurity,
      middleware: [usageAccess] as const,
      request: { query: z.object({ workspace_id: z.string().max(64).optional() }) },
      responses: {
        200: {
          description: 'The statements.',
          content: {
            'application/json': { schema: z.object({ data: z.array(statementSchema) }) },
            'text/csv': { schema: z.string() },
          },
        },
        ...problemResponses([401, 403, 404] as const),
      },
    }),
    async (c) => {
      c.header('Cache-Control', 'no-store');
      const list = await listStatements(c.var.db, await workspaceEscrowIds(c.var.db, requireWorkspace(c).workspaceId));
      if ((c.req.header('Accept') ?? '').includes('text/csv')) {
        return c.body(statementsCsv(list), 200, csvHeaders('statements.csv'));
      }
      return c.json({ data: list }, 200);
    },
  );
  return app;
}
