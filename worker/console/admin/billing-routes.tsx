/** @jsxImportSource hono/jsx */
/** /admin/billing: the admin's contracts, credits and refund decisions, through the ledger's services. */
import { enterBy, enterContractOwner, enterEscrowOwner, handleInWorkspace } from '../../platform/shards';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../../env';
import { ApiError } from '../../lib/errors';
import { CONTRACT_METERS } from '../../vocabulary';
import {
  creditEscrow,
  creditSchema,
  createContract,
  decideRefund,
  endContract,
  escrowBalances,
  listContracts,
  listRefundRequests,
  newContractSchema,
} from '../../platform/billing';
import { heldEscrows, liftHold, paymentsOverview } from '../../platform/payments';
import { formErrors, readForm } from '../shared/form-input';
import { noticeOf } from '../shared/notices';
import { currentUser } from '../shared/session';
import { userAuditContext } from '../shared/workspace';
import { BillingPage, type BillingPageProps } from './billing-page';

const WORKSPACE = /^ws_[A-Za-z0-9_]{1,60}$/;

async function renderBilling(
  c: Context<AppEnv>,
  extra: Partial<Pick<BillingPageProps, 'error' | 'errors'>> = {},
  status: 200 | 409 | 422 = 200,
) {
  const wanted = c.req.query('workspace') ?? '';
  const workspaceId = WORKSPACE.test(wanted) ? wanted : null;
  const now = c.var.services.clock.now();
  // The workspace's contracts and escrows are on its organisation's shard; the refund requests and
  // the payments are read where each is (c.var.db keeps its route).
  const inWorkspace = workspaceId ? await handleInWorkspace(c.var.db, workspaceId) : undefined;
  const [contracts, refunds, payments] = await Promise.all([
    inWorkspace && workspaceId ? listContracts(inWorkspace, workspaceId, now) : Promise.resolve([]),
    listRefundRequests(c.var.db, { status: 'pending' }),
    paymentsOverview(c.var.db, now, { before: c.req.query('payments_before') }),
  ]);
  const held = await heldEscrows(c.var.db);
  const balances = await escrowBalances(
    inWorkspace ?? c.var.db,
    contracts.map((contract) => contract.escrow_id),
  );
  return c.html(
    <BillingPage
      user={currentUser(c)}
      workspaceId={workspaceId}
      contracts={contracts.map((contract) => ({ ...contract, balance_minor: balances.get(contract.escrow_id) ?? 0 }))}
      refunds={refunds}
      payments={{ ...payments, held }}
      notice={noticeOf(c)}
      {...extra}
    />,
    status,
  );
}

/** The contract a form describes, in the admin API's shape (empty fields left out). */
function contractFromForm(form: Record<string, string | undefined>, workspaceId: string) {
  const number = (name: string) => (form[name]?.trim() ? Number(form[name]) : undefined);
  const allowances = Object.fromEntries(
    CONTRACT_METERS.flatMap((meter) =>
      number(`allowance_${meter}`) === undefined ? [] : [[meter, number(`allowance_${meter}`)]],
    ),
  );
  const overage = Object.fromEntries(
    CONTRACT_METERS.flatMap((meter) =>
      number(`price_${meter}`) === undefined ? [] : [[meter, { unit_price_minor: number(`price_${meter}`) }]],
    ),
  );
  const startsAt = form.starts_at?.trim();
  return {
    workspace_id: workspaceId,
    plan: form.plan ?? '',
    currency: (form.currency ?? '').trim().toUpperCase(),
    starts_at: startsAt && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(startsAt) ? `${startsAt}:00Z` : (startsAt ?? ''),
    ...(form.reference?.trim() ? { reference: form.reference.trim() } : {}),
    allowances,
    overage,
  };
}

/** Registers the billing pages on the admin's page app (its guards already ran). */
export function registerBillingPages(app: OpenAPIHono<AppEnv>): void {
  app.get('/admin/billing', (c) => renderBilling(c));

  app.post('/admin/billing/contracts', async (c) => {
    const workspaceId = c.req.query('workspace') ?? '';
    if (!WORKSPACE.test(workspaceId)) throw new ApiError('not_found', 'Name the workspace first.');
    const parsed = newContractSchema.safeParse(contractFromForm(await readForm(c), workspaceId));
    if (!parsed.success)
      return renderBilling(c, { errors: formErrors(parsed.error), error: 'Check the contract’s fields.' }, 422);
    // The contract, its escrow and its audit are the workspace's organisation's: on its shard.
    if (!(await enterBy(c.var.db, 'workspace', workspaceId))) throw new ApiError('not_found', 'No such workspace.');
    try {
      await createContract(c.var.db, userAuditContext(c), parsed.data, c.var.services.clock.now());
    } catch (error) {
      if (error instanceof ApiError && error.status < 500) return renderBilling(c, { error: error.detail }, 409);
      throw error;
    }
    return c.redirect(`/admin/billing?workspace=${workspaceId}&notice=contract_recorded`, 303);
  });

  app.post('/admin/billing/contracts/:contractId/end', async (c) => {
    await enterContractOwner(c.var.db, c.req.param('contractId'));
    const contract = await endContract(
      c.var.db,
      userAuditContext(c),
      c.req.param('contractId'),
      c.var.services.clock.now(),
    );
    return c.redirect(`/admin/billing?workspace=${contract.workspace_id}&notice=contract_ended`, 303);
  });

  // A dispute settled with Stripe: the escrow may pay charges and fees again.
  app.post('/admin/billing/escrows/:escrowId/lift-hold', async (c) => {
    await enterEscrowOwner(c.var.db, c.req.param('escrowId'));
    await liftHold(c.var.db, userAuditContext(c), c.req.param('escrowId'), c.var.services.clock.now());
    return c.redirect('/admin/billing?notice=hold_lifted', 303);
  });

  app.post('/admin/billing/credits', async (c) => {
    const form = await readForm(c);
    const escrowId = form.escrow_id?.trim() ?? '';
    const parsed = creditSchema.safeParse({ amount_minor: Number(form.amount_minor), reference: form.reference ?? '' });
    if (!parsed.success || !escrowId.startsWith('esc_'))
      return renderBilling(
        c,
        {
          errors: {
            ...(parsed.success ? {} : formErrors(parsed.error)),
            ...(escrowId.startsWith('esc_') ? {} : { escrow_id: 'An escrow id starts with esc_.' }),
          },
          error: 'Check the credit’s fields.',
        },
        422,
      );
    let credited: Awaited<ReturnType<typeof creditEscrow>>;
    await enterEscrowOwner(c.var.db, escrowId);
    try {
      credited = await creditEscrow(c.var.db, userAuditContext(c), escrowId, parsed.data, c.var.services.clock.now());
    } catch (error) {
      if (error instanceof ApiError && error.status < 500) return renderBilling(c, { error: error.detail }, 409);
      throw error;
    }
    return c.redirect(
      `/admin/billing?notice=${credited.already_recorded ? 'credit_already_recorded' : 'credited'}`,
      303,
    );
  });

  for (const decision of ['accept', 'decline'] as const) {
    app.post(`/admin/billing/refunds/:requestId/${decision}`, async (c) => {
      try {
        await decideRefund(
          c.var.db,
          userAuditContext(c),
          c.req.param('requestId'),
          { decision, note: null },
          c.var.services.clock.now(),
        );
      } catch (error) {
        if (error instanceof ApiError && error.code === 'invalid_transition')
          return renderBilling(c, { error: error.detail }, 409);
        throw error;
      }
      return c.redirect(`/admin/billing?notice=refund_${decision === 'accept' ? 'accepted' : 'declined'}`, 303);
    });
  }
}
