/** The workbench API (docs/design/providers-and-leads.md): an active expert lists, claims and works leads. */
import { createRoute, z } from '@hono/zod-openapi';
import { requireVerifiedEmail } from '../identity';
import type { Context } from 'hono';
import { newApp } from '../../lib/app';
import type { AppEnv } from '../../env';
import { parseJsonBody, readJsonBody } from '../../lib/body';
import { jsonBody, jsonContent, problemResponses } from '../../lib/openapi';
import { requireProvider, requireProviderRow } from '../providers';
import type { AuditContext } from '../audit';
import {
  providerCredits,
  providerCreditsSchema,
  refundRequestBodySchema,
  refundRequestSchema,
  requestRefund,
} from '../billing';
import { replyToLead } from './conversation';
import {
  leadDetailSchema,
  leadListQuerySchema,
  leadListSchema,
  leadStatusBodySchema,
  replyBodySchema,
  replyCreatedSchema,
} from './schemas';
import { claimLead, enterLeadOrganization } from './claim';
import { changeLeadStatus, leadDetailForProvider, listLeadsForProvider } from './workbench';

const TAG = 'Workbench';
const security: Record<string, string[]>[] = [{ consoleSession: [] }];
const leadIdParam = z.object({
  leadId: z
    .string()
    .startsWith('lead_')
    .max(64)
    .openapi({ param: { name: 'leadId', in: 'path' }, example: 'lead_01m83…' }),
});
const workbench = requireProvider('workbench.use');

function providerAudit(c: Context<AppEnv>): AuditContext {
  return { actorKind: 'user', actorId: c.var.user.id, requestId: c.var.requestId, traceId: c.var.traceId };
}

export const listLeadsRoute = createRoute({
  method: 'get',
  path: '/api/provider/workbench/leads',
  operationId: 'listLeads',
  tags: [TAG],
  summary: 'List leads: open ones in your scope, or the ones you claimed',
  description:
    'Newest first, with cursor pagination (`starting_after` = the last `lead_id` you have), so leads that arrive ' +
    'meanwhile never shift a page. `contact` appears only on leads you claimed. Needs an active expert.',
  security,
  middleware: [workbench] as const,
  request: { query: leadListQuerySchema },
  responses: {
    200: jsonContent(leadListSchema, 'A page of leads, and the count of each tab.'),
    ...problemResponses([401, 403, 422] as const),
  },
});

export const leadDetailRoute = createRoute({
  method: 'get',
  path: '/api/provider/workbench/leads/{leadId}',
  operationId: 'getLead',
  tags: [TAG],
  summary: 'One lead, with the whole conversation and its history',
  description: 'A lead you may not see (another pool, another scope, or claimed by someone else) is 404.',
  security,
  middleware: [workbench] as const,
  request: { params: leadIdParam },
  responses: { 200: jsonContent(leadDetailSchema, 'The lead.'), ...problemResponses([401, 403, 404] as const) },
});

export const claimLeadRoute = createRoute({
  method: 'post',
  path: '/api/provider/workbench/leads/{leadId}/claim',
  operationId: 'claimLead',
  tags: [TAG],
  summary: 'Claim a lead',
  description:
    'Atomic: when several experts claim one lead at once, exactly one wins and the others get 409 `already_claimed`. ' +
    'The answer carries the contact details. Only a lead offered to you can be claimed (else 404); not within 24 ' +
    'hours of releasing it or letting it lapse (409 `recently_released`); not beyond your `max_open_claims` (409 ' +
    "`capacity_reached`); at most 30 claims an hour (429); not before the account's email is confirmed (403 " +
    '`email_unverified`). Reply within the channel’s `claim_sla_minutes`, or the ' +
    'lead is released and offered to others.',
  security,
  middleware: [workbench] as const,
  request: { params: leadIdParam },
  responses: {
    200: jsonContent(leadDetailSchema, 'The claimed lead, with contact details.'),
    ...problemResponses([401, 403, 404, 409, 429] as const),
  },
});

export const leadStatusRoute = createRoute({
  method: 'post',
  path: '/api/provider/workbench/leads/{leadId}/status',
  operationId: 'changeLeadStatus',
  tags: [TAG],
  summary: 'Move a lead you claimed along, or release it',
  description:
    '`claimed → contacted → qualified → won | lost`; `open` releases the lead (from claimed, contacted or qualified) ' +
    'back to the pool (offered to every matching expert; you may not claim it again for 24 hours). Only the ' +
    'claimer may (else 403 `not_claimer`); any other change is 409 ' +
    '`invalid_transition`. The note goes into the history.',
  security,
  middleware: [readJsonBody(), workbench, parseJsonBody] as const,
  request: {
    params: leadIdParam,
    body: jsonBody(leadStatusBodySchema, { status: 'contacted', note: 'Called, meeting on Tuesday.' }),
  },
  responses: {
    200: jsonContent(leadDetailSchema, 'The lead after the change.'),
    ...problemResponses([400, 401, 403, 404, 409, 413, 415, 422] as const),
  },
});

export const replyRoute = createRoute({
  method: 'post',
  path: '/api/provider/workbench/leads/{leadId}/messages',
  operationId: 'replyToLead',
  tags: [TAG],
  summary: 'Write to the visitor in the lead’s conversation',
  description:
    'Only the claimer (else 403 `not_claimer`), only while the lead is claimed, contacted or qualified (else 409 ' +
    '`lead_closed`). The first reply moves a claimed lead to `contacted`. The visitor reads it in the widget or the ' +
    `hosted inbox within a second. At most 60 replies a minute per provider (429).`,
  security,
  middleware: [readJsonBody(), workbench, parseJsonBody] as const,
  request: { params: leadIdParam, body: jsonBody(replyBodySchema, { text: 'Hi Robin, happy to help. Which CRM?' }) },
  responses: {
    201: jsonContent(replyCreatedSchema, 'The reply, stored and on its way.'),
    ...problemResponses([400, 401, 403, 404, 409, 413, 415, 422, 429] as const),
  },
});

/** The workbench routes. */
export function workbenchRoutes() {
  const app = newApp('problem');
  app.openapi(listLeadsRoute, async (c) => {
    const query = c.req.valid('query');
    c.header('Cache-Control', 'no-store');
    // A list decides nothing (a claim re-checks everything on the primary): a replica's read.
    const page = await listLeadsForProvider(c.var.reads, requireProviderRow(c), {
      scope: query.scope,
      ...(query.status ? { status: query.status } : {}),
      limit: query.limit,
      ...(query.starting_after ? { startingAfter: query.starting_after } : {}),
    });
    return c.json(page, 200);
  });
  app.openapi(leadDetailRoute, async (c) => {
    c.header('Cache-Control', 'no-store');
    const provider = requireProviderRow(c);
    await enterLeadOrganization(c.var.db, c.req.valid('param').leadId);
    return c.json(await leadDetailForProvider(c.var.db, provider, c.req.valid('param').leadId), 200);
  });
  app.openapi(claimLeadRoute, async (c) => {
    c.header('Cache-Control', 'no-store');
    requireVerifiedEmail(c.var.user);
    const provider = requireProviderRow(c);
    await enterLeadOrganization(c.var.db, c.req.valid('param').leadId);
    const lead = await claimLead(c.var.db, provider, c.req.valid('param').leadId, providerAudit(c));
    return c.json(lead, 200);
  });
  app.openapi(leadStatusRoute, async (c) => {
    const { status, note, value } = c.req.valid('json');
    c.header('Cache-Control', 'no-store');
    const provider = requireProviderRow(c);
    await enterLeadOrganization(c.var.db, c.req.valid('param').leadId);
    return c.json(
      await changeLeadStatus(
        c.var.db,
        provider,
        c.req.valid('param').leadId,
        status,
        { note: note ?? null, ...(value ? { value } : {}) },
        providerAudit(c),
      ),
      200,
    );
  });
  app.openapi(replyRoute, async (c) => {
    c.header('Cache-Control', 'no-store');
    const { text } = c.req.valid('json');
    const provider = requireProviderRow(c);
    const leadId = c.req.valid('param').leadId;
    await enterLeadOrganization(c.var.db, leadId);
    return c.json(await replyToLead(c.var.db, provider, leadId, text, providerAudit(c), c.var.services.mail), 201);
  });
  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/provider/credits',
      operationId: 'getCredits',
      tags: ['Workbench'],
      summary: 'Your credits: balance, lead fees, refunds and refund requests',
      security: security,
      middleware: [requireProvider('workbench.use')] as const,
      responses: {
        200: jsonContent(providerCreditsSchema, 'Your escrow, its latest 50 entries, and your refund requests.'),
        ...problemResponses([401, 403] as const),
      },
    }),
    async (c) => {
      c.header('Cache-Control', 'no-store');
      const provider = requireProviderRow(c);
      return c.json(await providerCredits(c.var.db, provider.id, c.var.services.settings.PLATFORM_CURRENCY), 200);
    },
  );
  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/provider/workbench/leads/{leadId}/refund-request',
      operationId: 'requestLeadRefund',
      tags: ['Workbench'],
      summary: 'Ask for a lead’s fee back (spam, unreachable)',
      description: 'Once per lead, within 7 days of paying its fee. An administrator decides.',
      security: security,
      middleware: [readJsonBody(), requireProvider('workbench.use'), parseJsonBody] as const,
      request: { params: leadIdParam, body: jsonBody(refundRequestBodySchema) },
      responses: {
        201: jsonContent(refundRequestSchema, 'The request, pending.'),
        ...problemResponses([401, 403, 404, 409, 422] as const),
      },
    }),
    async (c) => {
      const provider = requireProviderRow(c);
      const body = c.req.valid('json');
      const request = await requestRefund(
        c.var.db,
        { actorKind: 'user', actorId: c.var.user.id, requestId: c.var.requestId, traceId: c.var.traceId },
        { providerId: provider.id, leadId: c.req.valid('param').leadId, reason: body.reason, note: body.note ?? null },
        c.var.services.clock.now(),
      );
      return c.json(request, 201);
    },
  );
  return app;
}
