/** Wiring only: build the app, mount the route groups, export the Worker. */
import { newApp } from './app';
import { registerAuthRoutes } from './console/auth';
import { registerPublicPages } from './console/public-pages';
import { registerConsoleRoutes } from './console/routes';
import { registerExecute } from './gateway/execute';
import { registerHealthz } from './gateway/healthz';
import { registerOpenApi } from './gateway/openapi';
import { requestContext } from './lib/request-context';
import { registerAdminRoutes } from './platform/admin';
import { registerPublicWidgetRoutes } from './platform/channels/public-routes';
import { registerChannelRoutes } from './platform/channels/routes';

export const app = newApp();
app.use('*', requestContext);

// The gateway and platform core (JSON, problem+json errors).
registerHealthz(app);
registerExecute(app);
registerChannelRoutes(app);
registerPublicWidgetRoutes(app);
registerAdminRoutes(app);
registerOpenApi(app);
// People's pages (HTML).
registerAuthRoutes(app);
registerConsoleRoutes(app);
registerPublicPages(app);

export default app;
