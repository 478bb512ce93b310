/**
 * Wiring only: build the app from its route groups, and export the Worker's entry points
 * (HTTP, the events queue, the cron trigger, incoming email) and its Durable Object classes.
 */
import { newApp } from './lib/app';
import { consoleErrorPages } from './console/shared/app';
import { pageSecurityHeaders } from './console/shared/security';
import { emailPageRoutes } from './console/email/routes';
import { privacyPageRoutes } from './console/privacy/routes';
import { usagePageRoutes } from './console/usage/routes';
import { insightsPageRoutes } from './console/insights/routes';
import { provisioningPageRoutes } from './console/provisioning/routes';
import { adminPageRoutes } from './console/admin/routes';
import { authRoutes } from './console/auth/routes';
import { accountRoutes } from './console/account/routes';
import { integrationsRoutes } from './console/integrations/routes';
import { providerPageRoutes } from './console/provider/routes';
import { publicPageRoutes } from './console/public/routes';
import { teamRoutes } from './console/team/routes';
import { webhookPageRoutes } from './console/webhooks/routes';
import { knowledgePageRoutes } from './console/knowledge/routes';
import type { Bindings } from './env';
import { executeRoutes } from './gateway/execute';
import { mcpRoutes } from './gateway/mcp';
import { a2aRoutes } from './gateway/a2a';
import { healthzRoutes } from './gateway/healthz';
import { openApiRoutes } from './gateway/openapi';
import { widgetRoutes } from './gateway/widget';
import { handleQueue, handleScheduled } from './jobs';
import { handleInboundEmail } from './jobs/inbound-email';
import { publishAfterResponse } from './jobs/publish';
import { liveRoutes } from './live/routes';
import { requestContext } from './lib/request-context';
import { adminRoutes } from './platform/admin';
import { agentProviderRoutes } from './platform/providers';
import { channelRoutes } from './platform/channels';
import { knowledgeRoutes } from './platform/knowledge';
import { privacyRoutes } from './platform/lifecycle';
import { workbenchRoutes } from './platform/leads';
import { paymentRoutes } from './platform/payments';
import { billingRoutes } from './platform/billing';
import { insightsRoutes } from './platform/insights';
import { providerProfileRoutes } from './platform/providers';

export { ConversationRoom } from './live/conversation-room';
export { WebhookEndpointOutbox } from './jobs/webhook-endpoint';

export const app = newApp('problem', consoleErrorPages);
app.use('*', requestContext);
// Pages outside the page groups (the 404 page of an unknown path) carry the page headers too.
app.use('*', async (c, next) => {
  await next();
  if (c.res.headers.get('Content-Type')?.startsWith('text/html')) await pageSecurityHeaders(c, async () => {});
});
// After the response, the events a request committed go to the events queue (the outbox).
app.use('*', publishAfterResponse);

// Machine routes: the gateway and the platform core (problem+json errors).
app.route('/', healthzRoutes());
app.route('/', executeRoutes());
app.route('/', mcpRoutes());
app.route('/', a2aRoutes());
app.route('/', channelRoutes());
app.route('/', knowledgeRoutes());
app.route('/', privacyRoutes());
app.route('/', widgetRoutes());
app.route('/', providerProfileRoutes());
app.route('/', agentProviderRoutes());
app.route('/', workbenchRoutes());
app.route('/', billingRoutes());
app.route('/', paymentRoutes());
app.route('/', insightsRoutes());
app.route('/', liveRoutes());
app.route('/', adminRoutes());
app.route('/', openApiRoutes(app));
// People's pages (HTML errors).
app.route('/', authRoutes());
app.route('/', accountRoutes());
app.route('/', integrationsRoutes());
app.route('/', teamRoutes());
app.route('/', webhookPageRoutes());
app.route('/', knowledgePageRoutes());
app.route('/', emailPageRoutes());
app.route('/', privacyPageRoutes());
app.route('/', usagePageRoutes());
app.route('/', insightsPageRoutes());
app.route('/', provisioningPageRoutes());
app.route('/', providerPageRoutes());
app.route('/', adminPageRoutes());
app.route('/', publicPageRoutes(app));

const worker: ExportedHandler<Bindings> &
  Required<Pick<ExportedHandler<Bindings>, 'fetch' | 'queue' | 'scheduled' | 'email'>> = {
  fetch: app.fetch,
  queue: (batch, env) => handleQueue(batch, env),
  scheduled: (controller, env) => handleScheduled(controller, env),
  email: async (message, env) => {
    await handleInboundEmail(message, env);
  },
};
export default worker;
