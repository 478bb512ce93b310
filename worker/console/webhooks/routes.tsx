/** @jsxImportSource hono/jsx */
/** /integrations/webhooks: a workspace owner's read-only view of its endpoints and delivery log. */
import { newPageApp } from '../shared/app';
import { deliveryLog, endpointOfWorkspace, listEndpoints } from '../../platform/webhooks';
import { noticeOf } from '../shared/notices';
import { consolePageGuards, currentUser } from '../shared/session';
import { workspaceContext } from '../shared/workspace';
import { DeliveryLogPage, WebhooksPage } from './pages';

/** The webhook pages. */
export function webhookPageRoutes() {
  const app = newPageApp();
  for (const path of ['/integrations/webhooks', '/integrations/webhooks/*']) app.use(path, ...consolePageGuards);

  app.get('/integrations/webhooks', async (c) => {
    const context = await workspaceContext(c, 'webhooks.read');
    const endpoints = await listEndpoints(c.var.reads, context.current.workspaceId);
    return c.html(<WebhooksPage user={currentUser(c)} {...context} endpoints={endpoints} notice={noticeOf(c)} />);
  });

  app.get('/integrations/webhooks/:webhookId', async (c) => {
    const context = await workspaceContext(c, 'webhooks.read');
    const endpoint = await endpointOfWorkspace(c.var.reads, context.current.workspaceId, c.req.param('webhookId'));
    const log = await deliveryLog(c.var.reads, endpoint.webhook_id, { limit: 50 });
    return c.html(
      <DeliveryLogPage user={currentUser(c)} {...context} endpoint={endpoint} log={log.data} notice={noticeOf(c)} />,
    );
  });

  return app;
}
