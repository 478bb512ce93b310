/** @jsxImportSource hono/jsx */
/**
 * An expert's credits bought by card (docs/design/billing.md#card-top-ups): the form on the
 * credits card sends them to Stripe's page; the webhook credits, never the way back.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { type AppEnv, consoleOrigin, resolvePlatformUrls } from '../../env';
import { ApiError } from '../../lib/errors';
import { providerEscrow } from '../../platform/billing';
import { escrowPayments, type PaymentView, paymentsConfig, startTopUp } from '../../platform/payments';
import { requireProviderRow } from '../../platform/providers';
import { readForm } from '../shared/form-input';
import { minorUnitsOf } from '../shared/money';
import { allowCheckoutRedirect } from '../shared/security';
import { currentUser } from '../shared/session';
import type { TopUpOffer } from '../shared/top-up';

/** What the credits card shows of card top-ups. */
export interface CreditsTopUp {
  offer: TopUpOffer | null;
  payments: PaymentView[];
  returned?: string;
}

/** The expert's top-up form and payments (read on the primary: the page they return to shows the credit). */
export async function creditsTopUp(c: Context<AppEnv>, providerId: string, currency: string): Promise<CreditsTopUp> {
  const escrow = await providerEscrow(c.var.db, providerId);
  const config = paymentsConfig(c.var.settings);
  const limits = config?.limits.get(escrow?.currency ?? currency);
  if (escrow && limits) allowCheckoutRedirect(c, config?.apiUrl);
  return {
    offer:
      escrow && limits ? { action: '/provider/workbench/credits/top-up', currency: escrow.currency, ...limits } : null,
    payments: escrow ? await escrowPayments(c.var.db, escrow.id) : [],
    returned: c.req.query('payment'),
  };
}

/** Registers the credits' top-up form. */
export function registerCreditTopUp(app: OpenAPIHono<AppEnv>): void {
  app.post('/provider/workbench/credits/top-up', async (c) => {
    const provider = requireProviderRow(c);
    const config = paymentsConfig(c.var.settings);
    if (!config) throw new ApiError('payments_unavailable', 'This deployment takes no card payments.');
    const escrow = await providerEscrow(c.var.db, provider.id);
    if (!escrow) throw new ApiError('conflict', 'Your credits open when your profile is approved.');
    const amount = minorUnitsOf((await readForm(c)).amount ?? '', escrow.currency) ?? Number.NaN;
    const page = `${consoleOrigin(resolvePlatformUrls(c.var.settings, c.req.url))}/provider/workbench`;
    const user = currentUser(c);
    const started = await startTopUp(
      c.var.services,
      config,
      { escrowId: escrow.id, currency: escrow.currency, workspaceId: null, providerId: provider.id },
      { userId: user.id, email: user.email },
      amount,
      { successUrl: `${page}?payment={PAYMENT}#credits`, cancelUrl: `${page}?notice=top_up_cancelled#credits` },
    );
    return c.redirect(started.url, 303);
  });
}
