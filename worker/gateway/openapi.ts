/** GET /openapi.json and /openapi.yaml: the public description, generated from the routes' zod schemas. */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { newApp } from '../lib/app';
import { resolvePlatformUrls, type AppEnv } from '../env';
import { SERVICE_VERSION } from './healthz';
import { toYaml } from '../lib/yaml';

type OpenApiDocument = ReturnType<OpenAPIHono<AppEnv>['getOpenAPI31Document']>;

const documentCache = new WeakMap<object, OpenApiDocument>();

/**
 * The public description, generated from the zod schemas the routes validate with. Routes
 * marked `hide` (the admin API) stay out of it.
 */
export function buildOpenApiDocument(app: OpenAPIHono<AppEnv>, baseUrl: string): OpenApiDocument {
  let document = documentCache.get(app);
  if (!document) {
    app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
      type: 'http',
      scheme: 'bearer',
      description: 'An API key (`egk_…`) issued through provisioning, or an administrator token.',
    });
    app.openAPIRegistry.registerComponent('securitySchemes', 'visitorSession', {
      type: 'http',
      scheme: 'bearer',
      description: 'A widget visitor’s session: the `session_id` (`egv_…`) that the first intake answered.',
    });
    app.openAPIRegistry.registerComponent('securitySchemes', 'consoleSession', {
      type: 'apiKey',
      in: 'cookie',
      name: 'egw_session',
      description:
        'A signed-in console session (the cookie is `__Host-egw_session` on https). Name the workspace in ' +
        '`X-Workspace-Id` when the account has several (422 lists them); changes must come from the console origin.',
    });
    document = app.getOpenAPI31Document({
      openapi: '3.1.0',
      info: {
        title: 'Edge Execution Gateway',
        version: SERVICE_VERSION,
        description:
          'A synchronous execution gateway. Send one JSON request to POST /api/execute with a bearer key and get a ' +
          'completed execution envelope back. Errors are RFC 9457 problem+json with a stable `code`.',
      },
      tags: [{ name: 'Gateway', description: 'The public execution gateway.' }],
    });
    documentCache.set(app, document);
  }
  return { ...document, servers: [{ url: baseUrl }] };
}

/** The description's routes; `root` is the app whose routes it describes. */
export function openApiRoutes(root: OpenAPIHono<AppEnv>) {
  const app = newApp('problem');
  const documentFor = (url: string, settings: AppEnv['Variables']['settings']) =>
    buildOpenApiDocument(root, resolvePlatformUrls(settings, url).baseUrl);

  app.get('/openapi.json', (c) => {
    c.header('Cache-Control', 'public, max-age=300');
    return c.json(documentFor(c.req.url, c.var.settings));
  });
  app.get('/openapi.yaml', (c) => {
    c.header('Cache-Control', 'public, max-age=300');
    return c.body(toYaml(documentFor(c.req.url, c.var.settings)), 200, {
      'Content-Type': 'application/yaml; charset=utf-8',
    });
  });
  return app;
}
