/**
 * One way to declare an admin route: its method, path, inputs (zod), answer status and handler.
 * Every admin route takes an administrator token, is validated like the gateway (content type,
 * size and bearer before the body), answers JSON, and stays out of the public description.
 */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../../env';
import { parseJsonBody, readJsonBody } from '../../lib/body';
import { displayText, jsonBody, jsonContent } from '../../lib/openapi';
import { requireAdmin, requireBearer } from '../identity';
import type { AuditContext } from '../audit';
import { schema, type Database } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { enterBy, enterEscrowOwner, enterOrganization, enterWhereFound, shardOfOrganization } from '../shards';

const adminJsonMiddleware: MiddlewareHandler<AppEnv>[] = [readJsonBody(), requireBearer('admin'), parseJsonBody];
const adminMiddleware: MiddlewareHandler<AppEnv>[] = [requireBearer('admin')];

type Shape = z.ZodObject | undefined;
type Parsed<S extends Shape> = S extends z.ZodObject ? z.infer<S> : undefined;

export interface AdminRouteInput<P extends Shape, Q extends Shape, B extends Shape> {
  params: Parsed<P>;
  query: Parsed<Q>;
  body: Parsed<B>;
}

export interface AdminRouteSpec<P extends Shape, Q extends Shape, B extends Shape, R extends z.ZodType> {
  method: 'get' | 'post' | 'put' | 'patch';
  path: string;
  params?: P;
  query?: Q;
  body?: B;
  status: 200 | 201;
  /** What it answers (responses.ts): the answer is checked against it before it leaves. */
  response: R;
  description: string;
  /** Secrets shown once (new tokens) must not be cached anywhere. */
  noStore?: boolean;
}

/** Every admin route declared, with its body schema: the tests check each one (bounds, odd input). */
export const ADMIN_ROUTES: Array<{ method: string; path: string; body?: z.ZodObject }> = [];

/** Registers an admin route; the handler gets the validated inputs and answers a JSON value. */
export function defineAdminRoute<
  R extends z.ZodType,
  P extends Shape = undefined,
  Q extends Shape = undefined,
  B extends Shape = undefined,
>(
  app: OpenAPIHono<AppEnv>,
  spec: AdminRouteSpec<P, Q, B, R>,
  handler: (input: AdminRouteInput<P, Q, B>, c: Context<AppEnv>) => Promise<z.input<R>>,
): void {
  ADMIN_ROUTES.push({ method: spec.method, path: spec.path, ...(spec.body ? { body: spec.body } : {}) });
  const route = createRoute({
    method: spec.method,
    path: spec.path,
    hide: true,
    middleware: spec.body ? adminJsonMiddleware : adminMiddleware,
    request: {
      ...(spec.params ? { params: spec.params } : {}),
      ...(spec.query ? { query: spec.query } : {}),
      ...(spec.body ? { body: jsonBody(spec.body) } : {}),
    },
    responses: { [spec.status]: jsonContent(spec.response, spec.description) },
  });
  app.openapi(route, async (c) => {
    // The validator ran on each declared input; read them back by target.
    const valid = c.req.valid.bind(c.req) as unknown as (target: 'param' | 'query' | 'json') => unknown;
    const input = {
      params: spec.params ? valid('param') : undefined,
      query: spec.query ? valid('query') : undefined,
      body: spec.body ? valid('json') : undefined,
    } as AdminRouteInput<P, Q, B>;
    await enterNamedTenant(c.var.db, input);
    const answer = await handler(input, c);
    // The answer must be what the route declares (unknown fields pass; missing or mistyped ones are a bug).
    const checked = spec.response.safeParse(answer);
    if (!checked.success) {
      throw new Error(`${spec.method.toUpperCase()} ${spec.path} answered off its schema: ${checked.error.message}`);
    }
    if (spec.noStore) c.header('Cache-Control', 'no-store');
    return c.json(answer as Record<string, unknown>, spec.status);
  });
}

/** Records an admin names by id alone, found on whichever shard holds them. */
const LOCATABLE = {
  webhook_id: [schema.webhookEndpoints, schema.webhookEndpoints.id, schema.webhookEndpoints.workspaceId],
  contract_id: [schema.contracts, schema.contracts.id, schema.contracts.workspaceId],
} as const;

/**
 * Enters the shard of the tenant an admin route names (docs/design/scale.md#the-layout): by its
 * workspace, organisation or key (the directory's maps), or by a record's id (asked of every
 * shard). An id nothing knows is the route's 404. Routes that name no tenant span them all.
 */
async function enterNamedTenant(db: Database, input: AdminRouteInput<Shape, Shape, Shape>): Promise<void> {
  const named = { ...(input.query ?? {}), ...(input.body ?? {}), ...(input.params ?? {}) } as Record<string, unknown>;
  const text = (key: string) => (typeof named[key] === 'string' ? (named[key] as string) : undefined);
  const workspaceId = text('workspace_id');
  const organizationId = text('organization_id');
  const keyId = text('key_id');
  if (workspaceId && !(await enterBy(db, 'workspace', workspaceId)))
    throw new ApiError('not_found', `No workspace ${workspaceId}.`);
  if (organizationId) {
    if ((await shardOfOrganization(db, organizationId)) === undefined)
      throw new ApiError('not_found', `No organisation ${organizationId}.`);
    await enterOrganization(db, organizationId);
  }
  if (keyId && !(await enterBy(db, 'key', keyId))) throw new ApiError('not_found', `No API key ${keyId}.`);
  for (const [key, [table, id, workspace]] of Object.entries(LOCATABLE)) {
    const value = text(key);
    if (value) await enterWhereFound(db, table, id, workspace, value);
  }
  const escrowId = text('escrow_id');
  if (escrowId) await enterEscrowOwner(db, escrowId);
}

/** The administrator acting, for the audit record. */
export function adminAuditContext(c: Context<AppEnv>): AuditContext {
  return { actorKind: 'admin', actorId: requireAdmin(c).adminId, requestId: c.var.requestId, traceId: c.var.traceId };
}

/** A path parameter holding a public id with this prefix. */
export const idParam = <N extends string>(name: N, prefix: string) =>
  z.object({ [name]: z.string().startsWith(`${prefix}_`).max(64) } as Record<N, z.ZodString>);

export const nameSchema = displayText({ min: 1, max: 120 });
