/** @jsxImportSource hono/jsx */
/** The workbench's form for asking a lead's fee back (docs/design/billing.md). */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../env';
import { ApiError } from '../../lib/errors';
import { REFUND_REASONS } from '../../lib/vocabulary';
import { requestRefund } from '../../platform/billing';
import { requireProviderRow } from '../../platform/providers';
import { readForm } from '../shared/form-input';
import { userAuditContext } from '../shared/workspace';

type Reason = (typeof REFUND_REASONS)[number];

/** Registers POST /provider/workbench/leads/:leadId/refund-request (a form; back to the credits card). */
export function registerCreditRoutes(app: OpenAPIHono<AppEnv>): void {
  app.post('/provider/workbench/leads/:leadId/refund-request', async (c) => {
    const provider = requireProviderRow(c);
    const form = await readForm(c);
    const reason = (REFUND_REASONS as readonly string[]).includes(form.reason ?? '') ? (form.reason as Reason) : null;
    if (!reason) throw new ApiError('validation_failed', 'Choose spam or unreachable.');
    await requestRefund(
      c.var.db,
      userAuditContext(c),
      { providerId: provider.id, leadId: c.req.param('leadId'), reason, note: null },
      c.var.services.clock.now(),
    );
    return c.redirect('/provider/workbench?notice=refund_requested#credits', 303);
  });
}
