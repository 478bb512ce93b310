/**
 * Access, route by route (access-routes.ts): the table covers every registered route, and each
 * protected route, the API's and the console's, meets the standard access failures
 * (access-cases.ts): credentials, scopes, roles, CSRF and tenants. One pair of tenants serves
 * both (they are dear to make); they are on different shards (one is moved if placement put them
 * together), so "another tenant's record is 404" holds across databases, through every door.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { app } from '../../worker/index';
import { accessFailureCases, createAccessTenant, type AccessTenant } from './access-cases';
import { isApiRoute, PROTECTED_ROUTES, PUBLIC_ROUTES } from './access-routes';
import { moveOrganization, shardOf } from './move-helpers';

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
    if ((await shardOf(tenants.a.organizationId)) === (await shardOf(tenants.b.organizationId)))
      await moveOrganization(tenants.b.organizationId);
    expect(await shardOf(tenants.a.organizationId)).not.toBe(await shardOf(tenants.b.organizationId));
  }, 60_000);

  describe('the API', () => {
    for (const route of PROTECTED_ROUTES.filter(isApiRoute)) accessFailureCases(route, () => tenants);
  });
  describe('the console', () => {
    for (const route of PROTECTED_ROUTES.filter((route) => !isApiRoute(route)))
      accessFailureCases(route, () => tenants);
  });
});
