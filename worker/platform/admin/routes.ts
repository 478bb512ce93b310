/**
 * The internal provisioning API under /api/admin/ (docs/design/identity-and-access.md). Not in the public
 * description.
 */
import { newApp } from '../../lib/app';
import { registerAuditLogRoutes } from './audit-log';
import { registerBillingRoutes } from './billing';
import { registerCatalogAndPeopleRoutes } from './catalog-and-people';
import { registerCredentialRoutes } from './credentials';
import { registerEmailRoutes } from './email';
import { registerOrganizationRoutes } from './organizations';
import { registerStorageRoutes } from './storage';
import { registerWebhookRoutes } from './webhooks';

/** Every admin route. */
export function adminRoutes() {
  const app = newApp('problem');
  registerOrganizationRoutes(app);
  registerCredentialRoutes(app);
  registerCatalogAndPeopleRoutes(app);
  registerWebhookRoutes(app);
  registerEmailRoutes(app);
  registerBillingRoutes(app);
  registerAuditLogRoutes(app);
  registerStorageRoutes(app);
  return app;
}
