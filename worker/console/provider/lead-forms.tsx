/** @jsxImportSource hono/jsx */
/**
 * The workbench's forms on one lead beyond claiming and replying: its status (with a won deal's
 * value, docs/design/insights.md), and asking its fee back (docs/design/billing.md).
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../env';
import { ApiError } from '../../lib/errors';
import { validationError } from '../../lib/app';
import { refundRequestBodySchema, requestRefund } from '../../platform/billing';
import { changeLeadStatus, enterLeadOrganization, leadStatusBodySchema } from '../../platform/leads';
import { requireProviderRow } from '../../platform/providers';
import { readForm } from '../shared/form-input';
import { minorUnitsOf } from '../shared/money';
import { userAuditContext } from '../shared/workspace';

/** A won deal's value from the form: undefined when left blank, null when it is not an amount. */
function wonValueOf(amount: string | undefined, currency: string | undefined) {
  if (!amount?.trim()) return undefined;
  const code = (currency ?? 'EUR').trim().toUpperCase();
  const minor = minorUnitsOf(amount, code);
  return minor === null ? null : { value_minor: minor, currency: code };
}

/** Registers the status and refund-request forms (back to the lead, or to the credits card). */
export function registerLeadForms(app: OpenAPIHono<AppEnv>): void {
  app.post('/provider/workbench/leads/:leadId/status', async (c) => {
    const leadId = c.req.param('leadId');
    const form = await readForm(c);
    // A won deal's value, when the form gives one (in the currency's main unit, as people write it).
    const value = form.status === 'won' ? wonValueOf(form.value_amount, form.value_currency) : undefined;
    if (value === null) throw new ApiError('validation_failed', 'Write the value as an amount, such as 1200.50.');
    // The API's own schema: the form may store nothing the API would refuse.
    const parsed = leadStatusBodySchema.safeParse({
      status: form.status,
      ...(form.note?.trim() ? { note: form.note } : {}),
      ...(value ? { value } : {}),
    });
    if (!parsed.success) throw validationError(parsed.error);
    const { status, note, value: wonValue } = parsed.data;
    await enterLeadOrganization(c.var.db, leadId);
    await changeLeadStatus(
      c.var.db,
      requireProviderRow(c),
      leadId,
      status,
      { note: note || null, ...(wonValue ? { value: wonValue } : {}) },
      userAuditContext(c),
    );
    return status === 'open'
      ? c.redirect('/provider/workbench?notice=released', 303)
      : c.redirect(`/provider/workbench/leads/${leadId}?notice=status`, 303);
  });

  app.post('/provider/workbench/leads/:leadId/refund-request', async (c) => {
    const provider = requireProviderRow(c);
    const form = await readForm(c);
    const parsed = refundRequestBodySchema.safeParse({ reason: form.reason });
    if (!parsed.success) throw new ApiError('validation_failed', 'Choose spam or unreachable.');
    await requestRefund(
      c.var.db,
      userAuditContext(c),
      { providerId: provider.id, leadId: c.req.param('leadId'), reason: parsed.data.reason, note: null },
      c.var.services.clock.now(),
    );
    return c.redirect('/provider/workbench?notice=refund_requested#credits', 303);
  });
}
