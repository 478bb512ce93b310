/** The platform core's channel API (docs/design/channels-and-widget.md). */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { newApp } from '../../lib/app';
import { resolvePlatformUrls, type AppEnv } from '../../env';
import { parseJsonBody, readJsonBody } from '../../lib/body';
import { takeSlotOrRefuse } from '../../lib/rate-limit';
import { jsonContent as json, problemResponses } from '../../lib/openapi';
import { requireWorkspace, requireWorkspaceAccess } from '../identity';
import type { AuditContext } from '../audit';
import { listChannelIntake } from '../leads';
import { checkSitePolicies, cspFindingSchema } from './csp-check';
import { channelSchema, createChannelSchema, updateChannelSchema } from './schemas';
import { createChannel, describeChannel, getChannel, listChannels, updateChannel } from './service';

const TAG = 'Channels';
/** A workspace API key, or a console session of a member. */
const security: Record<string, string[]>[] = [{ bearerAuth: [] }, { consoleSession: [] }];
const channelKeyParam = z.object({
  channelKey: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: 'channelKey', in: 'path' }, example: 'ch_demo' }),
});

const writeMiddleware = [readJsonBody(), requireWorkspaceAccess('channels.write'), parseJsonBody];
const readMiddleware = [requireWorkspaceAccess('channels.read')];

function auditFrom(c: Context<AppEnv>): AuditContext {
  const workspace = requireWorkspace(c);
  return {
    actorKind: workspace.actorKind,
    actorId: workspace.actorId,
    requestId: c.var.requestId,
    traceId: c.var.traceId,
  };
}

const intakeEntrySchema = z
  .object({
    demand_id: z.string(),
    trigger: z.string().nullable(),
    text: z.string().nullable(),
    attribution: z.record(z.string(), z.unknown()).nullable(),
    created_at: z.string(),
    lead: z
      .object({
        lead_id: z.string(),
        status: z.string(),
        contact_fields: z.array(z.string()),
        wave: z
          .number()
          .int()
          .openapi({ description: '0: held (see `held`); 1: offered to the best few experts; 2: to every match.' }),
        held: z.boolean().openapi({
          description: "Held past this month's allowance: offered to nobody until the allowance or the balance allows.",
        }),
        seconds_to_first_claim: z.number().int().nullable(),
        seconds_to_first_contact: z.number().int().nullable(),
      })
      .nullable(),
  })
  .openapi('IntakeEntry');

/** The channel routes: create, list, read, update, and recent intake. */
export function channelRoutes() {
  const app = newApp('problem');
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/integrations/channels',
      operationId: 'createChannel',
      tags: [TAG],
      summary: 'Create a channel (widget and hosted inbox)',
      description:
        'Needs an API key with `channels:write`. The answer carries the ready-to-paste snippet and the hosted inbox ' +
        'URL.',
      security,
      middleware: writeMiddleware,
      request: {
        body: {
          required: true,
          content: {
            'application/json': {
              schema: createChannelSchema,
              example: { name: 'Main website', domain: 'consultation', allowed_origins: ['https://www.example.com'] },
            },
          },
        },
      },
      responses: {
        201: json(channelSchema, 'The new channel.'),
        ...problemResponses([400, 401, 403, 413, 415, 422] as const),
      },
    }),
    async (c) => {
      const workspace = requireWorkspace(c);
      const urls = resolvePlatformUrls(c.var.settings, c.req.url);
      const row = await createChannel(c.var.db, workspace, auditFrom(c), c.req.valid('json'), urls);
      return c.json(describeChannel(row, urls), 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/integrations/channels',
      operationId: 'listChannels',
      tags: [TAG],
      summary: 'List the workspace’s channels',
      description: 'Needs an API key with `channels:read`.',
      security,
      middleware: readMiddleware,
      responses: {
        200: json(z.object({ data: z.array(channelSchema) }), 'Channels, newest first.'),
        ...problemResponses([401, 403] as const),
      },
    }),
    async (c) => {
      const urls = resolvePlatformUrls(c.var.settings, c.req.url);
      const rows = await listChannels(c.var.db, requireWorkspace(c).workspaceId);
      return c.json({ data: rows.map((row) => describeChannel(row, urls)) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/integrations/channels/{channelKey}',
      operationId: 'getChannel',
      tags: [TAG],
      summary: 'Read one channel',
      security,
      middleware: readMiddleware,
      request: { params: channelKeyParam },
      responses: { 200: json(channelSchema, 'The channel.'), ...problemResponses([401, 403, 404] as const) },
    }),
    async (c) => {
      const row = await getChannel(c.var.db, requireWorkspace(c).workspaceId, c.req.valid('param').channelKey);
      return c.json(describeChannel(row, resolvePlatformUrls(c.var.settings, c.req.url)), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'patch',
      path: '/api/integrations/channels/{channelKey}',
      operationId: 'updateChannel',
      tags: [TAG],
      summary: 'Update a channel: name, domain, origins, status, widget configuration',
      description:
        '`widget` is merged section by section, so `{"widget":{"colors":{"primary":"#0a7"}}}` changes one colour.',
      security,
      middleware: writeMiddleware,
      request: {
        params: channelKeyParam,
        body: {
          required: true,
          content: {
            'application/json': {
              schema: updateChannelSchema,
              example: { widget: { colors: { primary: '#0b6e4f' } } },
            },
          },
        },
      },
      responses: {
        200: json(channelSchema, 'The updated channel.'),
        ...problemResponses([400, 401, 403, 404, 413, 415, 422] as const),
      },
    }),
    async (c) => {
      const urls = resolvePlatformUrls(c.var.settings, c.req.url);
      const row = await updateChannel(
        c.var.db,
        requireWorkspace(c),
        auditFrom(c),
        c.req.valid('param').channelKey,
        c.req.valid('json'),
        urls,
      );
      return c.json(describeChannel(row, urls), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/integrations/channels/{channelKey}/intake',
      operationId: 'listChannelIntake',
      tags: [TAG],
      summary: 'Recent demand and leads captured by a channel',
      description:
        'Newest first, with attribution. Visitor contact details are not included; `contact_fields` says which were ' +
        'given.',
      security,
      middleware: readMiddleware,
      request: {
        params: channelKeyParam,
        query: z.object({ limit: z.coerce.number().int().min(1).max(100).default(25) }),
      },
      responses: {
        200: json(z.object({ data: z.array(intakeEntrySchema) }), 'Recent intake.'),
        ...problemResponses([401, 403, 404, 422] as const),
      },
    }),
    async (c) => {
      const row = await getChannel(c.var.db, requireWorkspace(c).workspaceId, c.req.valid('param').channelKey);
      return c.json({ data: await listChannelIntake(c.var.db, row.id, c.req.valid('query').limit) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/integrations/channels/{channelKey}/csp-check',
      operationId: 'checkChannelCsp',
      tags: [TAG],
      summary: 'Will each site’s Content-Security-Policy let the widget run?',
      description:
        'Reads the page at each allowed and first-party origin (through the egress guard: public https only) and ' +
        'checks its policies against what the widget loads: its script, its calls, and its live socket on the ' +
        '`wss://` twin. Each finding names the exact sources to add. At most 10 checks a minute per channel.',
      security,
      middleware: readMiddleware,
      request: { params: channelKeyParam },
      responses: {
        200: json(z.object({ data: z.array(cspFindingSchema) }), 'One finding per origin.'),
        ...problemResponses([401, 403, 404, 429] as const),
      },
    }),
    async (c) => {
      const row = await getChannel(c.var.db, requireWorkspace(c).workspaceId, c.req.valid('param').channelKey);
      return c.json({ data: await channelCspFindings(c, row) }, 200);
    },
  );
  return app;
}

/**
 * The CSP findings of a channel's sites. Each check fetches every site of the channel, so it is
 * limited per channel (10 a minute) and per workspace (20 a minute, whatever its number of
 * channels: new channels are free to make).
 */
export async function channelCspFindings(
  c: Context<AppEnv>,
  row: { id: number; workspaceId: string; allowedOrigins: string[]; firstPartyOrigins: string[] },
) {
  const now = c.var.services.clock.now();
  await takeSlotOrRefuse(c.var.db, `csp-check-workspace:${row.workspaceId}`, now, {
    windowMs: 60_000,
    max: 20,
    detail: 'At most 20 policy checks a minute per workspace.',
  });
  await takeSlotOrRefuse(c.var.db, `csp-check:${row.id}`, now, {
    windowMs: 60_000,
    max: 10,
    detail: 'At most 10 policy checks a minute per channel.',
  });
  const origins = [...new Set([...row.allowedOrigins, ...row.firstPartyOrigins])];
  return checkSitePolicies(origins, resolvePlatformUrls(c.var.settings, c.req.url), c.var.services.egress);
}
