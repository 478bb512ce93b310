import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../env';
import { registerAuditLogRoutes } from './audit-log';
import { registerCredentialRoutes } from './credentials';
import { registerOrganizationRoutes } from './organizations';

/** The internal provisioning API (PRODUCT.md section 9). Not in the public description. */
export function registerAdminRoutes(app: OpenAPIHono<AppEnv>): void {
  registerOrganizationRoutes(app);
  registerCredentialRoutes(app);
  registerAuditLogRoutes(app);
}
