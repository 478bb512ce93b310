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
import { registerChannelRoutes } from './platform/channels/routes';
import { registerPublicWidgetRoutes } from './platform/channels/public-routes';

const PAGE_CSP = "default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export const app = newApp();
app.use('*', requestContext);

registerHealthz(app);
registerExecute(app);
registerChannelRoutes(app);
registerPublicWidgetRoutes(app);
registerAdminRoutes(app);
registerOpenApi(app);

app.get('/assets/site.css', (c) =>
  c.body(siteCss, 200, { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'public, max-age=3600' }),
);

app.get('/docs', (c) => {
  const document = buildOpenApiDocument(app, resolvePlatformUrls(c.var.settings, c.req.url).baseUrl) as unknown as DocsDocument;
  c.header('Content-Security-Policy', PAGE_CSP);
  c.header('X-Content-Type-Options', 'nosniff');
  return c.html(<DocsPage document={document} />);
});

app.get('/', (c) => c.redirect('/docs'));

export default app;
