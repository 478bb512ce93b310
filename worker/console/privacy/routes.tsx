/** @jsxImportSource hono/jsx */
/**
 * /integrations/privacy (docs/design/data-lifecycle.md): the owner's data requests, as the privacy
 * API asks them (`privacy.manage`: owners only): an export of the workspace, an erasure by a
 * visitor's address, and a finished export's download, signed when it is followed.
 */
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../env';
import { clock } from '../../lib/clock';
import { ApiError } from '../../lib/errors';
import type { MemberWorkspaces } from '../../platform/identity';
import {
  exportLink,
  privacyRequest,
  recentPrivacyRequests,
  requestErasure,
  requestExport,
} from '../../platform/lifecycle';
import { newPageApp } from '../shared/app';
import { readForm } from '../shared/form-input';
import type { FieldErrors } from '../shared/forms';
import { noticeOf } from '../shared/notices';
import { consolePageGuards, currentUser } from '../shared/session';
import { userAuditContext, workspaceContext } from '../shared/workspace';
import { PrivacyPage } from './page';

const RIGHT = 'privacy.manage';

const auditOf = (c: Context<AppEnv>, context: MemberWorkspaces) => ({
  ...userAuditContext(c),
  workspaceId: context.current.workspaceId,
  organizationId: context.current.organizationId,
});

const back = (context: MemberWorkspaces, notice: string) =>
  `/integrations/privacy?ws=${encodeURIComponent(context.current.workspaceId)}&notice=${notice}`;

async function renderPrivacy(
  c: Context<AppEnv>,
  context: MemberWorkspaces,
  extra: { errors?: FieldErrors; values?: Record<string, string>; error?: string } = {},
  status: 200 | 422 = 200,
) {
  const requests = await recentPrivacyRequests(c.var.reads, context.current.workspaceId);
  return c.html(
    <PrivacyPage user={currentUser(c)} {...context} requests={requests} notice={noticeOf(c)} {...extra} />,
    status,
  );
}

/** The privacy pages. */
export function privacyPageRoutes() {
  const app = newPageApp();
  for (const path of ['/integrations/privacy', '/integrations/privacy/*']) app.use(path, ...consolePageGuards);

  app.get('/integrations/privacy', async (c) => renderPrivacy(c, await workspaceContext(c, RIGHT)));

  app.post('/integrations/privacy/exports', async (c) => {
    const context = await workspaceContext(c, RIGHT);
    await requestExport(c.var.db, c.var.services.queues.events, auditOf(c, context), {}, clock.now());
    return c.redirect(back(context, 'export_requested'), 303);
  });

  app.post('/integrations/privacy/erasures', async (c) => {
    const context = await workspaceContext(c, RIGHT);
    const form = await readForm(c);
    const errors: FieldErrors = {};
    const email = z
      .email()
      .max(254)
      .safeParse(form.contact_email?.trim() ?? '');
    if (!email.success) errors.contact_email = 'Enter the address the visitor left, such as name@example.com.';
    if (form.confirm !== 'yes') errors.confirm = 'Tick the box to confirm: an erasure cannot be undone.';
    if (!email.success || Object.keys(errors).length > 0)
      return renderPrivacy(c, context, { errors, values: form, error: 'Please check the form.' }, 422);
    await requestErasure(
      c.var.db,
      c.var.services.queues.events,
      auditOf(c, context),
      { contactEmail: email.data },
      clock.now(),
    );
    return c.redirect(back(context, 'contact_erased'), 303);
  });

  // The link is signed when it is followed, so a page left open never shows one that has expired.
  app.get('/integrations/privacy/exports/:requestId/download', async (c) => {
    const context = await workspaceContext(c, RIGHT);
    const row = await privacyRequest(c.var.db, context.current.workspaceId, c.req.param('requestId'));
    if (row.kind !== 'export' || row.status !== 'done') throw new ApiError('not_found', 'No such export.');
    const secret = c.var.settings.SECRETS_KEY;
    if (!secret) throw new ApiError('service_unavailable', 'Exports need SECRETS_KEY on this deployment.');
    return c.redirect(await exportLink(secret, row.id, clock.now()), 303);
  });
  return app;
}
