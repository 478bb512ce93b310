/**
 * Access to the console's pages and forms (access-routes.ts): each meets the standard access
 * failures (access-cases.ts), sessions, roles, CSRF and tenants included.
 */
import { beforeAll, describe } from 'vitest';
import { accessFailureCases, createAccessTenant, type AccessTenant } from './access-cases';
import { isApiRoute, PROTECTED_ROUTES } from './access-routes';

describe('access: the standard failures, console route by route', () => {
  let tenants: { a: AccessTenant; b: AccessTenant };
  beforeAll(async () => {
    tenants = { a: await createAccessTenant(), b: await createAccessTenant() };
  }, 60_000);

  for (const route of PROTECTED_ROUTES.filter((route) => !isApiRoute(route))) accessFailureCases(route, () => tenants);
});
