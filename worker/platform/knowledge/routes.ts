/** The knowledge API (docs/design/knowledge.md): sources, asking, and the questions it declined. */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../../env';
import { newApp } from '../../lib/app';
import { parseJsonBody, readJsonBody } from '../../lib/body';
import { clock } from '../../lib/clock';
import { jsonContent as json, problemResponses } from '../../lib/openapi';
import type { AuditContext } from '../audit';
import { requireWorkspace, requireWorkspaceAccess } from '../identity';
import { askKnowledge } from './ask';
import { ALL_RULES, RULES, type Rule } from './answer';
import { channelKnowledgeOf } from './channel';
import { listGaps } from './gaps';
import { answerSchema, askSchema, createSourceSchema, gapSchema, sourceSchema } from './schemas';
import {
  createSource,
  deleteSource,
  findSource,
  type KnowledgeDeps,
  listSources,
  sourceView,
  syncSource,
} from './sources';

const TAG = 'Knowledge';
/** A workspace API key, or an owner's console session. */
const security: Record<string, string[]>[] = [{ bearerAuth: [] }, { consoleSession: [] }];
const sourceParam = z.object({
  source_id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: 'source_id', in: 'path' }, example: 'ks_01jr3x8b2m4n6p8q0r2s4t6v8w' }),
});
/** A document's 1 MB of text, escaped in JSON, fits (the API's other bodies stay at 256 KB). */
const SOURCE_BODY_BYTES = 3 * 1024 * 1024;
// Authorised before the body is read: an anonymous caller never gets 3 MB read on its behalf.
const writeMiddleware = [requireWorkspaceAccess('knowledge.write'), readJsonBody(SOURCE_BODY_BYTES), parseJsonBody];
const readMiddleware = [requireWorkspaceAccess('knowledge.read')];

function auditOf(c: Context<AppEnv>): AuditContext & { workspaceId: string } {
  const workspace = requireWorkspace(c);
  return {
    actorKind: workspace.actorKind,
    actorId: workspace.actorId,
    requestId: c.var.requestId,
    traceId: c.var.traceId,
    workspaceId: workspace.workspaceId,
  };
}

/** What adding and syncing need: the egress guard, the queue, the clock. */
export function knowledgeDeps(c: Context<AppEnv>): KnowledgeDeps {
  return { egress: c.var.services.egress, queue: c.var.services.queues.knowledge, now: () => clock.now() };
}

/** The ranking's rules in force: all, but those a local evaluation turned off. */
function rulesInForce(off: string | undefined): ReadonlySet<Rule> {
  if (!off) return ALL_RULES;
  const turnedOff = new Set(off.split(',').map((rule) => rule.trim()));
  return new Set(RULES.filter((rule) => !turnedOff.has(rule)));
}

/** The knowledge routes. */
export function knowledgeRoutes() {
  const app = newApp('problem');

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/knowledge/sources',
      operationId: 'createKnowledgeSource',
      tags: [TAG],
      summary: 'Add a knowledge source',
      description:
        'Needs `knowledge:write`. A document or Q&A pair up to 200 KB is indexed at once (`status: indexed`); a ' +
        'larger one, and every URL source, is `queued` and indexed by the queue (read it back for its status).',
      security,
      middleware: writeMiddleware,
      request: {
        body: {
          required: true,
          content: {
            'application/json': {
              schema: createSourceSchema,
              example: {
                kind: 'qa',
                question: 'Do you offer refunds?',
                answer: 'Yes: within 30 days of purchase, in full.',
              },
            },
          },
        },
      },
      responses: {
        201: json(sourceSchema, 'The source, indexed or queued.'),
        ...problemResponses([400, 401, 403, 413, 415, 422] as const),
      },
    }),
    async (c) => c.json(await createSource(c.var.db, auditOf(c), c.req.valid('json'), knowledgeDeps(c)), 201),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/knowledge/sources',
      operationId: 'listKnowledgeSources',
      tags: [TAG],
      summary: 'List the knowledge sources',
      description: 'Needs `knowledge:read`. Newest first.',
      security,
      middleware: readMiddleware,
      responses: {
        200: json(z.object({ data: z.array(sourceSchema) }), 'The sources.'),
        ...problemResponses([401, 403] as const),
      },
    }),
    async (c) => c.json({ data: await listSources(c.var.reads, requireWorkspace(c).workspaceId) }, 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/knowledge/sources/{source_id}',
      operationId: 'getKnowledgeSource',
      tags: [TAG],
      summary: 'Read one knowledge source',
      security,
      middleware: readMiddleware,
      request: { params: sourceParam },
      responses: { 200: json(sourceSchema, 'The source.'), ...problemResponses([401, 403, 404] as const) },
    }),
    async (c) => {
      const row = await findSource(c.var.db, requireWorkspace(c).workspaceId, c.req.valid('param').source_id);
      return c.json(sourceView(row), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/api/knowledge/sources/{source_id}',
      operationId: 'deleteKnowledgeSource',
      tags: [TAG],
      summary: 'Delete a knowledge source and its passages',
      security,
      middleware: [requireWorkspaceAccess('knowledge.write')],
      request: { params: sourceParam },
      responses: { 204: { description: 'Deleted.' }, ...problemResponses([401, 403, 404] as const) },
    }),
    async (c) => {
      await deleteSource(c.var.db, auditOf(c), c.req.valid('param').source_id, clock.now());
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/knowledge/sources/{source_id}/sync',
      operationId: 'syncKnowledgeSource',
      tags: [TAG],
      summary: 'Index a knowledge source again',
      description:
        'A URL source is fetched again (queued); a document or Q&A pair is indexed again. A source already ' +
        '`queued` answers as it is (that crawl is the sync). At most 6 syncs of a source, and 60 of a ' +
        "workspace's sources, an hour (429 with `Retry-After` past them).",
      security,
      middleware: [requireWorkspaceAccess('knowledge.write')],
      request: { params: sourceParam },
      responses: { 202: json(sourceSchema, 'The source.'), ...problemResponses([401, 403, 404, 429] as const) },
    }),
    async (c) => {
      const { workspaceId } = requireWorkspace(c);
      const view = await syncSource(c.var.db, workspaceId, c.req.valid('param').source_id, knowledgeDeps(c));
      return c.json(view, 202);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/knowledge/ask',
      operationId: 'askKnowledge',
      tags: [TAG],
      summary: 'Ask the knowledge',
      description:
        'Needs `knowledge:read`. The answer with its citations, or `answer: null` and why (`declined`): ' +
        '`no_match` when nothing covers the question, `low_confidence` below the threshold (`min_confidence`, ' +
        'else the channel’s when named, else the default). Nothing is guessed.',
      security,
      middleware: [readJsonBody(), requireWorkspaceAccess('knowledge.read'), parseJsonBody],
      request: {
        body: {
          required: true,
          content: { 'application/json': { schema: askSchema, example: { question: 'Do you offer refunds?' } } },
        },
      },
      responses: {
        200: json(answerSchema, 'The answer, or why there is none.'),
        ...problemResponses([400, 401, 403, 404, 413, 415, 422, 429] as const),
      },
    }),
    async (c) => {
      const workspace = requireWorkspace(c);
      const { workspaceId } = workspace;
      const body = c.req.valid('json');
      const actor = c.var.actor;
      const limit = {
        caller: `${workspace.actorKind}:${workspace.actorId}`,
        workspaceId,
        perCaller: actor?.kind === 'api_key' ? actor.key.rateLimitPerMinute : null,
      };
      const setting = body.channel ? await channelKnowledgeOf(c.var.db, workspaceId, body.channel) : undefined;
      const minConfidence = body.min_confidence ?? setting?.min_confidence;
      const answer = await askKnowledge(c.var.db, workspaceId, body.question, {
        language: body.language ?? 'en',
        model: c.var.services.answerModel,
        limit,
        rules: rulesInForce(c.var.settings.KNOWLEDGE_RULES_OFF),
        ...(minConfidence === undefined ? {} : { minConfidence }),
        // A local evaluation sees every answer and what the gate weighed, to calibrate it.
        ...(c.var.settings.KNOWLEDGE_EVAL ? { evaluate: true, minConfidence: 0 } : {}),
      });
      return c.json(answer, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/knowledge/gaps',
      operationId: 'listKnowledgeGaps',
      tags: [TAG],
      summary: 'The questions the knowledge declined',
      description: 'Needs `knowledge:read`. Most asked first, with what an expert answered when one did.',
      security,
      middleware: readMiddleware,
      responses: {
        200: json(z.object({ data: z.array(gapSchema) }), 'The gaps.'),
        ...problemResponses([401, 403] as const),
      },
    }),
    async (c) => c.json({ data: await listGaps(c.var.reads, requireWorkspace(c).workspaceId) }, 200),
  );

  return app;
}
