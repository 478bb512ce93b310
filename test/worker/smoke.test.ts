import { describe, expect, it } from 'vitest';
import { call, createTenant, execute, executeBody, json } from './helpers';

describe('smoke', () => {
  it('executes', async () => {
    const tenant = await createTenant();
    const response = await execute(tenant.token, executeBody());
    const text = await response.text();
    console.log(response.status, text);
    expect(response.status).toBe(200);
    const health = await call('/healthz?deep=1');
    console.log(await health.text());
  });
});
