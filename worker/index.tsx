/** Wiring only: build the app, mount the route groups, export the Worker. */
import { newApp } from './app';
import { siteCss } from './console/styles';
import { DocsPage, type DocsDocument } from './console/docs';
import { registerExecute } from './gateway/execute';
import { registerHealthz } from './gateway/healthz';
import { buildOpenApiDocument, registerOpenApi } from './gateway/openapi';
import { resolvePlatformUrls } from './env';
import { requestContext } from './lib/request-context';
import { registerAdminRoutes } from './platform/admin';
import { registerAuthRoutes } from './console/auth';
import { registerConsoleRoutes } from './console/routes';
import { registerChannelRoutes } from './platform/channels/routes';
import { consoleOrigin, findActiveChannel, publicWidgetConfig, snippetFor } from './platform/channels/service';
import { ChannelNotFoundPage, HostedInboxPage } from './console/hosted-inbox';
import { DemoSitePage } from './console/demo';
import { pageCsp, setPageSecurityHeaders } from './console/security';
import { registerPublicWidgetRoutes } from './platform/channels/public-routes';

const DEMO_CHANNEL_KEY = 'ch_demo';

export const app = newApp();
app.use('*', requestContext);

registerHealthz(app);
registerExecute(app);
registerChannelRoutes(app);
registerPublicWidgetRoutes(app);
registerAdminRoutes(app);
registerOpenApi(app);
registerAuthRoutes(app);
registerConsoleRoutes(app);

app.get('/assets/site.css', (c) =>
  c.body(siteCss, 200, { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'public, max-age=3600' }),
);

app.get('/docs', (c) => {
  const document = buildOpenApiDocument(app, resolvePlatformUrls(c.var.settings, c.req.url).baseUrl) as unknown as DocsDocument;
  setPageSecurityHeaders(c);
  return c.html(<DocsPage document={document} />);
});

app.get('/widget/:channelKey', async (c) => {
  const channel = await findActiveChannel(c.var.db, c.req.param('channelKey'));
  setPageSecurityHeaders(c, pageCsp({ images: "'self' https: data:" }));
  if (!channel) return c.html(<ChannelNotFoundPage />, 404);
  const urls = resolvePlatformUrls(c.var.settings, c.req.url);
  c.header('Cache-Control', 'no-store');
  return c.html(<HostedInboxPage config={publicWidgetConfig(channel, urls, consoleOrigin(urls))} />);
});

app.get('/demo', async (c) => {
  // Only the local seed creates ch_demo, so production has no demo page.
  const channel = await findActiveChannel(c.var.db, DEMO_CHANNEL_KEY);
  if (!channel) return c.notFound();
  const urls = resolvePlatformUrls(c.var.settings, c.req.url);
  setPageSecurityHeaders(c);
  return c.html(<DemoSitePage snippet={snippetFor(urls, DEMO_CHANNEL_KEY)} consoleUrl={urls.consoleUrl} channelKey={DEMO_CHANNEL_KEY} />);
});

app.get('/', (c) => c.redirect('/docs'));

export default app;
