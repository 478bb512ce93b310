/** @jsxImportSource hono/jsx */
/**
 * Provisioning's pages: an owner's request (from the integrations page), the one showing of an
 * approved secret, and the platform admins' queue with their decisions. The services are
 * provisioning's; the rules are the access policy's.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../../env';
import { emailLinkOrigin } from '../../env';
import { ApiError } from '../../lib/errors';
import {
  decideProvisioning,
  listPendingRequests,
  provisioningDecisionSchema,
  provisioningRequestBodySchema,
  requestProvisioning,
  revealProvisionedSecret,
} from '../../platform/provisioning';
import { newPageApp } from '../shared/app';
import { formErrors, formList, readForm } from '../shared/form-input';
import { wsQuery } from '../shared/layout';
import { noticeOf } from '../shared/notices';
import { consolePageGuards, currentUser, requirePlatformAdmin } from '../shared/session';
import { userAuditContext, workspaceContext } from '../shared/workspace';
import { integrationsWithErrors } from '../integrations/routes';
import { AdminRequestsPage, SecretOncePage } from './pages';

const linkOriginOf = (c: Context<AppEnv>) => emailLinkOrigin(c.var.settings, c.req.url);

async function renderQueue(c: Context<AppEnv>, error?: string, status: 200 | 409 = 200) {
  const requests = await listPendingRequests(c.var.db);
  c.header('Cache-Control', 'no-store');
  return c.html(
    <AdminRequestsPage user={currentUser(c)} requests={requests} notice={noticeOf(c)} {...(error ? { error } : {})} />,
    status,
  );
}

/** Provisioning's pages: the owner's requests (the integrations page shows the forms) and the admins' queue. */
export function provisioningPageRoutes() {
  const app = newPageApp();
  for (const path of ['/integrations/requests', '/integrations/requests/*', '/admin/requests', '/admin/requests/*'])
    app.use(path, ...consolePageGuards);
  for (const path of ['/admin/requests', '/admin/requests/*']) app.use(path, requirePlatformAdmin);

  app.post('/integrations/requests', async (c) => {
    const context = await workspaceContext(c, 'provisioning.request');
    const form = await readForm(c);
    const body =
      form.kind === 'api_key'
        ? { kind: 'api_key', name: form.name ?? '', scopes: formList(form, 'scopes'), purpose: form.purpose ?? '' }
        : {
            kind: 'webhook_endpoint',
            url: (form.url ?? '').trim(),
            event_types: formList(form, 'event_types'),
            purpose: form.purpose ?? '',
          };
    const parsed = provisioningRequestBodySchema.safeParse(body);
    if (!parsed.success) return integrationsWithErrors(c, context, formErrors(parsed.error), form);
    await requestProvisioning(
      c.var.db,
      userAuditContext(c),
      {
        workspaceId: context.current.workspaceId,
        userId: currentUser(c).id,
        body: parsed.data,
        linkOrigin: linkOriginOf(c),
      },
      c.var.services.clock.now(),
    );
    return c.redirect(`/integrations${wsQuery(context.current.workspaceId)}&notice=requested#requests-title`, 303);
  });

  app.post('/integrations/requests/:requestId/secret', async (c) => {
    const context = await workspaceContext(c, 'provisioning.request');
    const { request, secret } = await revealProvisionedSecret(
      c.var.db,
      userAuditContext(c),
      context.current.workspaceId,
      c.req.param('requestId'),
      c.var.services.secretsKey,
      c.var.services.clock.now(),
    );
    c.header('Cache-Control', 'no-store');
    return c.html(
      <SecretOncePage
        user={currentUser(c)}
        workspaceId={context.current.workspaceId}
        request={request}
        secret={secret}
      />,
    );
  });

  app.get('/admin/requests', (c) => renderQueue(c));

  app.post('/admin/requests/:requestId', async (c) => {
    const form = await readForm(c);
    const parsed = provisioningDecisionSchema.safeParse({
      decision: form.decision,
      ...(form.note?.trim() ? { note: form.note } : {}),
    });
    if (!parsed.success) throw new ApiError('validation_failed', 'Choose approve or decline.');
    try {
      await decideProvisioning(
        c.var.db,
        userAuditContext(c),
        c.req.param('requestId'),
        { decision: parsed.data.decision, note: parsed.data.note ?? null },
        { egress: c.var.services.egress, secretsKey: c.var.services.secretsKey, linkOrigin: linkOriginOf(c) },
        c.var.services.clock.now(),
      );
    } catch (error) {
      if (error instanceof ApiError && error.status < 500 && error.status !== 404)
        return renderQueue(c, error.detail, 409);
      throw error;
    }
    const notice = parsed.data.decision === 'approve' ? 'request_approved' : 'request_declined';
    return c.redirect(`/admin/requests?notice=${notice}`, 303);
  });
  return app;
}
