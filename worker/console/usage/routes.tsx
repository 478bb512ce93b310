/** @jsxImportSource hono/jsx */
/**
 * /integrations/usage: a workspace's usage, balance and statements (owners), and the same numbers
 * as CSV files a spreadsheet opens.
 */
import type { Context } from 'hono';
import { consoleOrigin, resolvePlatformUrls, type AppEnv } from '../../env';
import { ApiError } from '../../lib/errors';
import { csvHeaders } from '../../lib/csv';
import { dayOf } from '../../lib/periods';
import { contractInForce, listStatements, statementsCsv, usageView, workspaceEscrowIds } from '../../platform/billing';
import { escrowPayments, paymentsConfig, startTopUp } from '../../platform/payments';
import { readForm } from '../shared/form-input';
import { minorUnitsOf } from '../shared/money';
import type { TopUpOffer } from '../shared/top-up';
import { newPageApp } from '../shared/app';
import { chartCsv } from '../shared/charts';
import { noticeOf } from '../shared/notices';
import { allowCheckoutRedirect } from '../shared/security';
import { consolePageGuards, currentUser } from '../shared/session';
import { workspaceContext } from '../shared/workspace';
import { dailySeries, UsagePage } from './pages';

const csv = (c: Context<AppEnv>, name: string, body: string) => c.body(body, 200, csvHeaders(name));

/** The usage pages. */
export function usagePageRoutes() {
  const app = newPageApp();
  app.use('/integrations/usage', ...consolePageGuards);
  app.use('/integrations/usage/*', ...consolePageGuards);
  app.get('/integrations/usage', async (c) => renderUsage(c, await workspaceContext(c, 'usage.read')));
  // A card top-up (docs/design/billing.md#card-top-ups): to Stripe's page; the webhook credits, never this.
  app.post('/integrations/usage/top-up', async (c) => {
    const context = await workspaceContext(c, 'usage.read');
    const config = paymentsConfig(c.var.settings);
    if (!config) throw new ApiError('payments_unavailable', 'This deployment takes no card payments.');
    const { workspaceId } = context.current;
    const contract = await contractInForce(c.var.db, workspaceId, c.var.services.clock.now());
    if (!contract) throw new ApiError('conflict', 'This workspace has no contract, so no balance to top up.');
    const typed = (await readForm(c)).amount ?? '';
    const amount = minorUnitsOf(typed, contract.currency) ?? Number.NaN;
    const origin = consoleOrigin(resolvePlatformUrls(c.var.settings, c.req.url));
    const page = `${origin}/integrations/usage?ws=${workspaceId}`;
    try {
      const user = currentUser(c);
      const started = await startTopUp(
        c.var.services,
        config,
        { escrowId: contract.escrowId, currency: contract.currency, workspaceId, providerId: null },
        { userId: user.id, email: user.email },
        amount,
        { successUrl: `${page}&payment={PAYMENT}`, cancelUrl: `${page}&notice=top_up_cancelled` },
      );
      return c.redirect(started.url, 303);
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'validation_failed') throw error;
      return renderUsage(c, context, { value: typed, error: error.options.errors?.[0]?.detail ?? error.detail }, 422);
    }
  });
  app.get('/integrations/usage/daily.csv', async (c) => {
    const context = await workspaceContext(c, 'usage.read');
    const usage = await usageView(
      c.var.reads,
      context.current.workspaceId,
      { group_by: 'day' },
      c.var.services.clock.now(),
    );
    const { labels, series } = dailySeries(usage);
    return csv(c, `usage-${usage.period.from}-${usage.period.to}.csv`, chartCsv('day', labels, series));
  });
  app.get('/integrations/usage/statements.csv', async (c) => {
    const context = await workspaceContext(c, 'usage.read');
    const ids = await workspaceEscrowIds(c.var.reads, context.current.workspaceId);
    return csv(c, 'statements.csv', statementsCsv(await listStatements(c.var.reads, ids)));
  });
  return app;
}

/** The Usage page, with the top-up form (and what was typed in it, when it was refused). */
async function renderUsage(
  c: Context<AppEnv>,
  context: Awaited<ReturnType<typeof workspaceContext>>,
  typed: { value: string; error: string } | null = null,
  status: 200 | 422 = 200,
) {
  const { workspaceId } = context.current;
  const now = c.var.services.clock.now();
  const config = paymentsConfig(c.var.settings);
  const [usage, statements, contract] = await Promise.all([
    usageView(c.var.reads, workspaceId, { group_by: 'day' }, now),
    workspaceEscrowIds(c.var.reads, workspaceId).then((ids) => listStatements(c.var.reads, ids)),
    contractInForce(c.var.reads, workspaceId, now),
  ]);
  // The payments are read on the primary: the page the payer returns to shows the webhook's credit at once.
  const payments = contract ? await escrowPayments(c.var.db, contract.escrowId) : [];
  const limits = contract ? config?.limits.get(contract.currency) : undefined;
  const offer: TopUpOffer | null =
    contract && limits
      ? { action: `/integrations/usage/top-up?ws=${workspaceId}`, currency: contract.currency, ...limits, ...typed }
      : null;
  if (offer) allowCheckoutRedirect(c, config?.apiUrl);
  c.header('Cache-Control', 'no-store');
  return c.html(
    <UsagePage
      user={currentUser(c)}
      {...context}
      notice={noticeOf(c)}
      usage={usage}
      statements={statements}
      today={dayOf(now)}
      topUp={{ offer, reference: contract?.escrowId ?? '', payments, returned: c.req.query('payment') }}
    />,
    status,
  );
}
