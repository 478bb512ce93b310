/**
 * The site policy check, against real local sites (the Worker reaches loopback because the test
 * worker sets ALLOW_LOOPBACK_EGRESS): a page whose Content-Security-Policy lists only the gateway's
 * http(s) origin is told the exact socket source to add; one with the documented policy (as a
 * header, or as a meta tag) is fine; the owner's channel page says the same.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
// @ts-expect-error: a plain ES module shared with the Node scripts.
import { DEMO_TEST_PASSWORD } from '../../scripts/local-worker.mjs';
import { type Site, serveSite } from './browser';

const worker = inject('workerUrl');
const adminToken = inject('adminToken');
const socketTwin = worker.replace(/^http/, 'ws');

const page = (meta = '') =>
  `<!doctype html><html lang="en"><head>${meta}<title>Shop</title></head><body><h1>Shop</h1></body></html>`;
const documented = `default-src 'self'; script-src 'self' ${worker}; connect-src 'self' ${worker} ${socketTwin}`;
const httpsOnly = `default-src 'self'; script-src 'self' ${worker}; connect-src 'self' ${worker}`;

let sites: Site[] = [];
let token: string;
let channelKey: string;

async function admin(path: string, body: unknown) {
  const response = await fetch(`${worker}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  return response.json() as Promise<Record<string, any>>;
}

beforeAll(async () => {
  sites = [
    await serveSite({ '/': { body: page(), headers: { 'Content-Security-Policy': httpsOnly } } }),
    await serveSite({ '/': { body: page(), headers: { 'Content-Security-Policy': documented } } }),
    await serveSite({ '/': { body: page(`<meta http-equiv="Content-Security-Policy" content="${documented}">`) } }),
    await serveSite({ '/': { body: page() } }),
  ];
  const org = await admin('/api/admin/organizations', { name: `CSP ${Date.now().toString(36)}` });
  token = (
    await admin('/api/admin/api-keys', {
      workspace_id: org.workspace_id,
      name: 'csp',
      scopes: ['channels:read', 'channels:write'],
    })
  ).token;
  const created = await fetch(`${worker}/api/integrations/channels`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      name: 'Policies',
      domain: 'consultation',
      allowed_origins: sites.map((site) => site.origin),
    }),
  });
  channelKey = ((await created.json()) as { channel_key: string }).channel_key;
});

afterAll(async () => {
  for (const site of sites) await site.close();
});

describe('the site policy check', () => {
  it('names the missing socket source, and says nothing is missing under the documented policy', async () => {
    const response = await fetch(`${worker}/api/integrations/channels/${channelKey}/csp-check`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(200);
    const { data } = (await response.json()) as { data: Array<Record<string, any>> };
    const byOrigin = Object.fromEntries(data.map((finding) => [finding.origin, finding]));
    const [onlyHttp, header, meta, none] = sites.map((site) => byOrigin[site.origin]!);
    expect(onlyHttp).toMatchObject({
      status: 'missing',
      missing: [{ directive: 'connect-src', source: socketTwin }],
    });
    expect(onlyHttp!.detail).toBe(`Add ${socketTwin} to connect-src.`);
    expect(header).toMatchObject({ status: 'ok', missing: [] });
    expect(meta).toMatchObject({ status: 'ok', missing: [] });
    expect(none).toMatchObject({ status: 'no_policy' });
  });

  it('the demo owner’s channel page shows the finding when asked', async () => {
    const signIn = await fetch(`${worker}/auth/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: worker },
      body: new URLSearchParams({ email: 'owner@demo.test', password: DEMO_TEST_PASSWORD }).toString(),
    });
    const cookie = signIn.headers.get('Set-Cookie')!.split(';')[0]!;
    // A channel of the demo workspace, embedded on the https-only site: the owner is told the source to add.
    const created = await fetch(`${worker}/api/integrations/channels`, {
      method: 'POST',
      headers: { Cookie: cookie, Origin: worker, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Policy shop', domain: 'consultation', allowed_origins: [sites[0]!.origin] }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const key = ((await created.json()) as { channel_key: string }).channel_key;
    const path = `${worker}/integrations/channels/${key}?ws=ws_demo`;
    const before = await (await fetch(path, { headers: { Cookie: cookie } })).text();
    expect(before).toContain('Check my sites’ policies');
    const html = await (await fetch(`${path}&check=csp`, { headers: { Cookie: cookie } })).text();
    expect(html).toContain('Sources missing');
    expect(html).toContain(`Add <code>${socketTwin}</code> to <code>connect-src</code>`);
  });
});
