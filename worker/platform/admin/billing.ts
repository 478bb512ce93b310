/**
 * Admin routes for the ledger (docs/design/billing.md): contracts, escrows and their credits,
 * lead-fee refund decisions, and the charges as meter events for an outside billing system.
 */
import { z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../env';
import {
  contractSchema,
  createContract,
  creditAnswerSchema,
  creditEscrow,
  creditSchema,
  decideRefund,
  endContract,
  escrowSchema,
  escrowView,
  listContracts,
  listRefundRequests,
  meterEvents,
  meterEventSchema,
  newContractSchema,
  refundDecisionSchema,
  refundRequestSchema,
} from '../billing';
import { calendarTime } from '../../lib/openapi';
import { REFUND_STATUSES } from '../../vocabulary';
import { adminAuditContext, defineAdminRoute, idParam } from './define';

const list = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item) });

/** Registers the contract, escrow, refund and meter-event routes. */
export function registerBillingRoutes(app: OpenAPIHono<AppEnv>): void {
  const now = (c: { var: { services: { clock: { now(): number } } } }) => c.var.services.clock.now();
  defineAdminRoute(
    app,
    {
      method: 'post',
      path: '/api/admin/contracts',
      body: newContractSchema,
      response: contractSchema,
      status: 201,
      description: 'The contract, with the escrow opened for it.',
    },
    ({ body }, c) => createContract(c.var.db, adminAuditContext(c), body, now(c)),
  );
  defineAdminRoute(
    app,
    {
      method: 'get',
      path: '/api/admin/contracts',
      query: z.object({ workspace_id: z.string().startsWith('ws_').max(64) }),
      response: list(contractSchema),
      status: 200,
      description: 'The workspace’s contracts, the latest first.',
    },
    async ({ query }, c) => ({ data: await listContracts(c.var.db, query.workspace_id, now(c)) }),
  );
  defineAdminRoute(
    app,
    {
      method: 'post',
      path: '/api/admin/contracts/{contract_id}/end',
      params: idParam('contract_id', 'ctr'),
      response: contractSchema,
      status: 200,
      description: 'The contract, ended now (a scheduled one never comes into force).',
    },
    ({ params }, c) => endContract(c.var.db, adminAuditContext(c), params.contract_id, now(c)),
  );
  defineAdminRoute(
    app,
    {
      method: 'post',
      path: '/api/admin/escrows/{escrow_id}/credits',
      params: idParam('escrow_id', 'esc'),
      body: creditSchema,
      response: creditAnswerSchema,
      status: 201,
      description: 'The credit’s ledger entry and the balance after it (the first one, for a reference used before).',
    },
    ({ params, body }, c) => creditEscrow(c.var.db, adminAuditContext(c), params.escrow_id, body, now(c)),
  );
  defineAdminRoute(
    app,
    {
      method: 'get',
      path: '/api/admin/escrows/{escrow_id}',
      params: idParam('escrow_id', 'esc'),
      response: escrowSchema,
      status: 200,
      description: 'The escrow, its balance and its latest 100 entries.',
    },
    ({ params }, c) => escrowView(c.var.db, params.escrow_id),
  );
  defineAdminRoute(
    app,
    {
      method: 'get',
      path: '/api/admin/refund-requests',
      query: z.object({ status: z.enum(REFUND_STATUSES).optional() }),
      response: list(refundRequestSchema),
      status: 200,
      description: 'Lead-fee refund requests, newest first (200 at most).',
    },
    async ({ query }, c) => ({
      data: await listRefundRequests(c.var.db, query.status ? { status: query.status } : {}),
    }),
  );
  defineAdminRoute(
    app,
    {
      method: 'post',
      path: '/api/admin/refund-requests/{refund_request_id}/decision',
      params: idParam('refund_request_id', 'rfr'),
      body: refundDecisionSchema,
      response: refundRequestSchema,
      status: 200,
      description: 'The request, decided; an accepted one has credited the fee back.',
    },
    ({ params, body }, c) =>
      decideRefund(
        c.var.db,
        adminAuditContext(c),
        params.refund_request_id,
        { decision: body.decision, note: body.note ?? null },
        now(c),
      ),
  );
  defineAdminRoute(
    app,
    {
      method: 'get',
      path: '/api/admin/meter-events',
      query: z.object({
        since: calendarTime(),
        after: z
          .string()
          .max(1000)
          .optional()
          .openapi({ description: 'The previous page’s next_after: how far each database’s charges were read.' }),
        limit: z.coerce.number().int().min(1).max(1000).default(1000),
      }),
      response: z.object({ data: z.array(meterEventSchema), next_after: z.string().nullable() }),
      status: 200,
      description: 'The contracts’ charges since a time, in the shape billing systems take, oldest first.',
    },
    ({ query }, c) =>
      meterEvents(c.var.db, { since: Date.parse(query.since), after: query.after ?? null, limit: query.limit }),
  );
}
