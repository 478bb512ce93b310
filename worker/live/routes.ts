/**
 * The live routes (docs/design/live.md): two routes that issue a single-use ticket after checking
 * who may listen (the visitor by the `egv_` session, the expert by the claim), and the socket
 * address itself, which hands the upgrade to the conversation's room with the ticket.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { newApp } from '../lib/app';
import { resolvePlatformUrls } from '../env';
import { ApiError, type ErrorCode } from '../lib/errors';
import { jsonContent, problemResponses } from '../lib/openapi';
import { admittedChannel, channelGate, PUBLIC_CHANNEL_PATHS, widgetCors } from '../gateway/widget';
import { visitorConversation } from '../platform/conversations';
import { claimedConversation, enterLeadOrganization } from '../platform/leads';
import { requireProvider, requireProviderRow } from '../platform/providers';
import type { TicketResult } from './conversation-room';
import { roomOf } from './fan-out';
import { LIVE_LIMITS } from './frames';

const liveTicketSchema = z
  .object({
    url: z.string().openapi({ example: 'wss://gateway.example.com/live/cnv_01m83…?ticket=lvt_…' }),
    expires_in: z.number().int().openapi({ description: 'Seconds the ticket stays good: open the socket before.' }),
  })
  .openapi('LiveTicket');

const BEARER = /^Bearer +(egv_[A-Za-z0-9]{1,64}) *$/i;
const CONVERSATION_ID = /^cnv_[0-9a-z]{26}$/;

/** The socket address of a conversation: ws:// beside an http base (local), wss:// otherwise. */
function socketUrl(baseUrl: string, conversationId: string, ticket: string): string {
  const url = new URL(`/live/${conversationId}`, baseUrl);
  url.protocol = url.protocol === 'http:' ? 'ws:' : 'wss:';
  url.searchParams.set('ticket', ticket);
  return url.toString();
}

/** The room's ticket, or its refusal as a 429 (too many unspent, or too many a minute). */
function ticketOrRefuse(result: TicketResult): string {
  if ('refused' in result) throw new ApiError('rate_limited', result.refused, { headers: { 'Retry-After': '60' } });
  return result.ticket;
}

/** The live ticket routes and the socket address. */
export function liveRoutes() {
  const app = newApp('problem');
  for (const paths of PUBLIC_CHANNEL_PATHS) {
    app.openapi(
      createRoute({
        method: 'post',
        path: paths.liveTicket,
        operationId: `visitorLiveTicket${paths.idSuffix}`,
        tags: ['Widget (public)'],
        summary: 'A ticket for the visitor’s live socket',
        description:
          'With the visitor’s `Authorization: Bearer egv_…`. The ticket opens one socket within 60 s, once. Send ' +
          '`{"type":"resume","after":…}` first; the thread after that message (and the 5 s before it again: ' +
          'de-duplicate by `message_id`) comes back before anything live.',
        security: [{ visitorSession: [] }],
        middleware: [channelGate(paths.param, { requireOrigin: false }), widgetCors],
        request: { params: z.object({ [paths.param]: z.string().min(1).max(64) }) },
        responses: {
          200: jsonContent(liveTicketSchema, 'The socket address, with its ticket.'),
          ...problemResponses([401, 403, 404] as const),
        },
      }),
      async (c) => {
        c.header('Cache-Control', 'no-store');
        const token = BEARER.exec(c.req.header('Authorization') ?? '')?.[1];
        const channel = admittedChannel(c);
        const conversationId = await visitorConversation(c.var.db, channel.id, token);
        const ticket = ticketOrRefuse(
          await roomOf(c.env.CONVERSATIONS, conversationId).issueTicket(
            conversationId,
            { role: 'visitor', id: conversationId },
            channel.workspaceId,
          ),
        );
        const base = resolvePlatformUrls(c.var.settings, c.req.url).baseUrl;
        return c.json({ url: socketUrl(base, conversationId, ticket), expires_in: LIVE_LIMITS.ticketMs / 1000 }, 200);
      },
    );
  }

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/provider/workbench/leads/{leadId}/live-ticket',
      operationId: 'providerLiveTicket',
      tags: ['Workbench'],
      summary: 'A ticket for the claimer’s live socket on a lead’s conversation',
      description:
        'Only the claimer (403 `not_claimer`), only while the lead is claimed, contacted or qualified (409 ' +
        '`lead_closed`). The ticket opens one socket within 60 s, once; a release or a close ends the session.',
      security: [{ consoleSession: [] }],
      middleware: [requireProvider('workbench.use')] as const,
      request: { params: z.object({ leadId: z.string().startsWith('lead_').max(64) }) },
      responses: {
        200: jsonContent(liveTicketSchema, 'The socket address, with its ticket.'),
        ...problemResponses([401, 403, 404, 409] as const),
      },
    }),
    async (c) => {
      c.header('Cache-Control', 'no-store');
      const provider = requireProviderRow(c);
      await enterLeadOrganization(c.var.db, c.req.valid('param').leadId);
      const lead = await claimedConversation(c.var.db, provider, c.req.valid('param').leadId);
      const ticket = ticketOrRefuse(
        await roomOf(c.env.CONVERSATIONS, lead.conversationId).issueTicket(
          lead.conversationId,
          { role: 'provider', id: provider.id },
          lead.workspaceId,
        ),
      );
      const base = resolvePlatformUrls(c.var.settings, c.req.url).baseUrl;
      return c.json(
        { url: socketUrl(base, lead.conversationId, ticket), expires_in: LIVE_LIMITS.ticketMs / 1000 },
        200,
      );
    },
  );

  // The socket itself: the room checks and spends the ticket.
  app.get('/live/:conversationId', async (c) => {
    const conversationId = c.req.param('conversationId');
    if (!CONVERSATION_ID.test(conversationId)) return c.notFound();
    // The room's refusals carry this request's id, as every problem does.
    const forwarded = new Request(c.req.raw);
    forwarded.headers.set('X-Request-Id', c.var.requestId);
    const response = await roomOf(c.env.CONVERSATIONS, conversationId).fetch(forwarded);
    if (response.status === 101) return response;
    // The room's refusal, as the problem+json every route answers (with this request's id).
    const refusal = (await response.json()) as { code: ErrorCode; detail: string };
    throw new ApiError(refusal.code, refusal.detail);
  });
  return app;
}
