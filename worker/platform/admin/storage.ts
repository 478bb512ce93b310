/** The admin route for the database's size (docs/design/scale.md). */
import { z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../env';
import { storageView } from '../lifecycle';
import { defineAdminRoute } from './define';

const tablesSchema = z.array(
  z.object({ table: z.string(), rows: z.number().int(), estimated_bytes: z.number().int() }),
);
const storageSchema = z.object({
  tables: tablesSchema,
  database_bytes: z.number().int().nullable(),
  databases: z.array(
    z.object({ database: z.string(), tables: tablesSchema, database_bytes: z.number().int().nullable() }),
  ),
});

/** Registers GET /api/admin/storage. */
export function registerStorageRoutes(app: OpenAPIHono<AppEnv>) {
  defineAdminRoute(
    app,
    {
      method: 'get',
      path: '/api/admin/storage',
      response: storageSchema,
      status: 200,
      description:
        'Each table’s rows and estimated bytes (from a sample of its rows), largest first, and the size as D1 ' +
        'reports it: summed over the directory and every shard, and per database (`dir`, `0`, `1`, …). It ' +
        'counts every row: ask it now and then.',
    },
    async (_input, c) => storageView(c.var.services.everyDatabase()),
  );
}
