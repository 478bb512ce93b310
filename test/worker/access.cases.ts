/**
 * Access, route by route (access-routes.ts): the table covers every registered route, and each
 * protected route, the API's and the console's, meets the standard access failures
 * (access-cases.ts): credentials, scopes, roles, CSRF and tenants. One pair of tenants serves
 * both (they are dear to make).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { app } from '../../worker/index';
import { accessFailureCases, createAccessTenant, type AccessTenant } from './access-cases';
import { isApiRoute, PROTECTED_ROUTES, PUBLIC_ROUTES } from './access-routes';

describe('access: every route is described', () => {
  it('each registered route is in the protected table or the public list', () => {
    const described = new Set([...PROTECTED_ROUTES.map((route) => `${route.method} ${route.path}`), ...PUBLIC_ROUTES]);
    const registered = [
      ...new Set(app.routes.filter((route) => route.method !== 'ALL').map((route) => `${route.method} ${route.path}`)),
    ];
    expect(registered.filter((route) => !described.has(route))).toEqual([]);
    expect([...described].filter((route) => !registered.includes(route))).toEqual([]);
  });
});

describe('access: the standard failures, route by route', () => {
  let tenants: { a: AccessTenant; b: AccessTenant };
  beforeAll(async () => {
    tenants = { a: await createAccessTenant(), b: await createAccessTenant() };
  }, 60_000);

  describe('the API', () => {
    for (const route of PROTECTED_ROUTES.filter(isApiRoute)) accessFailureCases(route, () => tenants);
  });
  describe('the console', () => {
    for (const route of PROTECTED_ROUTES.filter((route) => !isApiRoute(route)))
      accessFailureCases(route, () => tenants);
  });
});
