/**
 * The privacy routes (docs/design/data-lifecycle.md#erasure): an owner's session, or an
 * administrator's token naming the workspace in `workspace_id`, asks for an erasure or an export
 * (202: it runs within seconds), reads it back, and downloads an export through its signed link.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../../env';
import { newApp } from '../../lib/app';
import { parseJsonBody, readJsonBody } from '../../lib/body';
import { clock } from '../../lib/clock';
import { ApiError } from '../../lib/errors';
import { PRIVACY_REQUEST_STATUSES } from '../../vocabulary';
import { jsonContent as json, problemResponses } from '../../lib/openapi';
import type { AuditContext } from '../audit';
import { requireOwnerOrNamingAdmin, requireWorkspace } from '../identity';
import {
  privacyRequest,
  RECENT_PRIVACY_REQUESTS,
  recentPrivacyRequests,
  requestErasure,
  requestExport,
} from './privacy';
import { exportLink, openExport } from './export-links';

const TAG = 'Privacy';
const security: Record<string, string[]>[] = [{ consoleSession: [] }, { bearerAuth: [] }];
const access = requireOwnerOrNamingAdmin('privacy.manage');

const requestSchema = z
  .object({
    id: z.string(),
    kind: z.enum(['erasure', 'export']),
    status: z.enum(PRIVACY_REQUEST_STATUSES),
    target_kind: z.enum(['conversation', 'contact', 'workspace']),
    result: z.record(z.string(), z.unknown()).nullable(),
    created_at: z.string(),
    completed_at: z.string().nullable(),
    download_url: z.string().optional().describe('A finished export: signed for 24 hours from this answer.'),
  })
  .openapi('PrivacyRequest');

const erasureBody = z
  .strictObject({
    conversation_id: z.string().min(1).max(64).optional(),
    contact_email: z.email().max(254).optional(),
  })
  .refine((body) => Boolean(body.conversation_id) !== Boolean(body.contact_email), {
    message: 'Name one of conversation_id or contact_email.',
  });
const exportBody = z.strictObject({ contact_email: z.email().max(254).optional() });

function auditOf(c: Context<AppEnv>): AuditContext & { workspaceId: string; organizationId: string } {
  const workspace = requireWorkspace(c);
  return {
    actorKind: workspace.actorKind,
    actorId: workspace.actorId,
    requestId: c.var.requestId,
    traceId: c.var.traceId,
    workspaceId: workspace.workspaceId,
    organizationId: workspace.organizationId,
  };
}

function linkSecret(c: Context<AppEnv>): string {
  const secret = c.var.settings.SECRETS_KEY;
  if (!secret) throw new ApiError('service_unavailable', 'Exports need SECRETS_KEY on this deployment.');
  return secret;
}

type Row = Awaited<ReturnType<typeof privacyRequest>>;

async function view(c: Context<AppEnv>, row: Row): Promise<z.infer<typeof requestSchema>> {
  const iso = (at: number | null) => (at === null ? null : new Date(at).toISOString());
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    target_kind: row.targetKind,
    result: row.result ?? null,
    created_at: iso(row.createdAt)!,
    completed_at: iso(row.completedAt),
    ...(row.kind === 'export' && row.status === 'done'
      ? { download_url: await exportLink(linkSecret(c), row.id, clock.now()) }
      : {}),
  };
}

/** The privacy routes. */
export function privacyRoutes() {
  const app = newApp('problem');
  const accepted = (description: string) => ({
    202: json(requestSchema, description),
    ...problemResponses([400, 401, 403, 404, 413, 415, 422] as const),
  });

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/privacy/erasures',
      operationId: 'requestErasure',
      tags: [TAG],
      summary: 'Erase a visitor’s data',
      description:
        'Name a conversation, or a contact address (every lead of it in the workspace). Message texts, contact ' +
        'details and the request’s words are replaced by `[erased]` in the database and in the archives; an open ' +
        'lead is withdrawn, and a fee paid for one of its leads is given back; money records and counts stay; the ' +
        'workspace’s exports are deleted (they may hold what was erased). Answers 202 with the request, done ' +
        'within seconds; asked while it is pending, it answers that request; asked after, it runs again over ' +
        'what the address has by then. Another workspace’s conversation is 404. Owners only.',
      security,
      middleware: [readJsonBody(), access, parseJsonBody] as const,
      request: { body: { required: true, content: { 'application/json': { schema: erasureBody } } } },
      responses: accepted('The erasure, queued or done.'),
    }),
    async (c) => {
      const body = c.req.valid('json');
      const target = body.conversation_id
        ? { conversationId: body.conversation_id }
        : { contactEmail: body.contact_email! };
      const row = await requestErasure(c.var.db, c.var.services.queues.events, auditOf(c), target, clock.now());
      return c.json(await view(c, row), 202);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/privacy/exports',
      operationId: 'requestExport',
      tags: [TAG],
      summary: 'Export the workspace’s data, or one contact’s',
      description:
        'Gzip NDJSON, one line per row (`table` names it): channels, conversations, messages, leads and their ' +
        'history; with `contact_email`, that contact’s only. Answers 202; read the request back for its ' +
        '`download_url`, signed for 24 hours. The export is kept 7 days (then `expired`), and deleted by any ' +
        'later erasure in the workspace.',
      security,
      middleware: [readJsonBody(), access, parseJsonBody] as const,
      request: { body: { required: true, content: { 'application/json': { schema: exportBody } } } },
      responses: accepted('The export, queued.'),
    }),
    async (c) => {
      const target = { contactEmail: c.req.valid('json').contact_email };
      const row = await requestExport(c.var.db, c.var.services.queues.events, auditOf(c), target, clock.now());
      return c.json(await view(c, row), 202);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/privacy/requests',
      operationId: 'listPrivacyRequests',
      tags: [TAG],
      summary: 'List the workspace’s erasures and exports',
      description: `The newest ${RECENT_PRIVACY_REQUESTS}, newest first, as the console’s Privacy page shows them.`,
      security,
      middleware: [access] as const,
      responses: {
        200: json(z.object({ data: z.array(requestSchema) }), 'The requests.'),
        ...problemResponses([401, 403] as const),
      },
    }),
    async (c) => {
      c.header('Cache-Control', 'no-store');
      const rows = await recentPrivacyRequests(c.var.db, requireWorkspace(c).workspaceId);
      return c.json({ data: await Promise.all(rows.map((row) => view(c, row))) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/privacy/requests/{id}',
      operationId: 'getPrivacyRequest',
      tags: [TAG],
      summary: 'Read an erasure or an export',
      security,
      middleware: [access] as const,
      request: { params: z.object({ id: z.string().max(64) }) },
      responses: { 200: json(requestSchema, 'The request.'), ...problemResponses([401, 403, 404] as const) },
    }),
    async (c) => {
      c.header('Cache-Control', 'no-store');
      const row = await privacyRequest(c.var.db, requireWorkspace(c).workspaceId, c.req.valid('param').id);
      return c.json(await view(c, row), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/privacy/exports/{id}/download',
      operationId: 'downloadExport',
      tags: [TAG],
      summary: 'Download an export through its signed link',
      description: 'The link is the credential: 403 when it was changed or has expired (24 hours).',
      request: {
        params: z.object({ id: z.string().max(64) }),
        query: z.object({ expires: z.coerce.number().int(), signature: z.string().max(128) }),
      },
      responses: {
        200: { description: 'The export, gzip NDJSON.', content: { 'application/gzip': { schema: z.string() } } },
        ...problemResponses([403, 404, 422] as const),
      },
    }),
    async (c) => {
      const { expires, signature } = c.req.valid('query');
      const id = c.req.valid('param').id;
      const object = await openExport(c.var.db, c.env.ARCHIVE, linkSecret(c), { id, expires, signature }, clock.now());
      return c.body(object.body, 200, {
        'Content-Type': 'application/gzip',
        'Content-Length': String(object.size),
        'Content-Disposition': `attachment; filename="${id}.ndjson.gz"`,
        'Cache-Control': 'no-store',
      });
    },
  );
  return app;
}
