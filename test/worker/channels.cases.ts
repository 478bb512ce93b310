import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ADMIN_TOKEN, call, createTenant, expectProblem, json, type Tenant } from './helpers';
import { platformDb } from './platform-db';

const SITE = 'https://shop.example.com';

async function createChannel(tenant: Tenant, body: Record<string, unknown> = {}) {
  const response = await call('/api/integrations/channels', {
    token: tenant.token,
    body: { name: 'Website', domain: 'consultation', allowed_origins: [SITE], ...body },
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return json(response);
}

describe('channel API', () => {
  let tenant: Tenant;
  let other: Tenant;
  beforeAll(async () => {
    tenant = await createTenant({ scopes: ['execute', 'channels:read', 'channels:write'] });
    other = await createTenant({ scopes: ['execute', 'channels:read', 'channels:write'] });
  });

  it('creates a channel with a snippet and hosted inbox URL, and never exposes the internal key', async () => {
    const channel = await createChannel(tenant, { first_party_origins: ['https://www.acme.test'] });
    expect(channel.channel_key).toMatch(/^ch_[0-9a-z]{26}$/);
    expect(channel.snippet).toBe(
      `<script async src="http://gateway.test/embed/widget.js" data-channel-id="${channel.channel_key}" ` +
        `data-console-origin="http://gateway.test"></script>`,
    );
    expect(channel.hosted_inbox_url).toBe(`http://gateway.test/widget/${channel.channel_key}`);
    expect(channel).toMatchObject({
      status: 'active',
      domain: 'consultation',
      allowed_origins: [SITE],
      first_party_origins: ['https://www.acme.test'],
    });
    expect(channel.widget.colors).toEqual({ primary: '#2450c9', on_primary: '#ffffff' });
    const row = await platformDb
      .prepare('SELECT id FROM channels WHERE channel_key = ?')
      .bind(channel.channel_key)
      .first<{ id: number }>();
    expect(channel.id).toBeUndefined();
    expect(JSON.stringify(channel)).not.toMatch(/"(id|internal_id|management_key)"/);
    expect(row?.id).toBeTypeOf('number');
  });

  it('lists only the workspace’s own channels', async () => {
    const mine = await createChannel(tenant);
    const theirs = await createChannel(other);
    const listed = await json(await call('/api/integrations/channels', { token: tenant.token }));
    const keys = listed.data.map((channel: { channel_key: string }) => channel.channel_key);
    expect(keys).toContain(mine.channel_key);
    expect(keys).not.toContain(theirs.channel_key);
  });

  it('another tenant’s channel is 404, to read, to update and to list intake', async () => {
    const theirs = await createChannel(other);
    await expectProblem(
      await call(`/api/integrations/channels/${theirs.channel_key}`, { token: tenant.token }),
      404,
      'not_found',
    );
    await expectProblem(
      await call(`/api/integrations/channels/${theirs.channel_key}`, {
        method: 'PATCH',
        token: tenant.token,
        body: { status: 'disabled' },
      }),
      404,
      'not_found',
    );
    await expectProblem(
      await call(`/api/integrations/channels/${theirs.channel_key}/intake`, { token: tenant.token }),
      404,
      'not_found',
    );
    const still = await json(await call(`/api/integrations/channels/${theirs.channel_key}`, { token: other.token }));
    expect(still.status).toBe('active');
  });

  it('PATCH merges the widget configuration section by section and can disable', async () => {
    const channel = await createChannel(tenant);
    const response = await call(`/api/integrations/channels/${channel.channel_key}`, {
      method: 'PATCH',
      token: tenant.token,
      body: { widget: { colors: { primary: '#0A7F5A' }, copy: { greeting: 'Hello there' } }, status: 'disabled' },
    });
    const updated = await json(response);
    expect(updated.widget.colors).toEqual({ primary: '#0a7f5a', on_primary: '#ffffff' });
    expect(updated.widget.copy.greeting).toBe('Hello there');
    expect(updated.widget.copy.title).toBe(channel.widget.copy.title);
    expect(updated.status).toBe('disabled');
    const audit = await platformDb
      .prepare("SELECT COUNT(*) AS n FROM audit_log WHERE target_id = ? AND action = 'channel.disabled'")
      .bind(channel.channel_key)
      .first<{ n: number }>();
    expect(audit?.n).toBe(1);
  });

  it('needs channels:write to write and channels:read to read', async () => {
    const readOnly = await createTenant({ scopes: ['channels:read'] });
    const noScope = await createTenant({ scopes: ['execute'] });
    const problem = await expectProblem(
      await call('/api/integrations/channels', { token: readOnly.token, body: { name: 'x', domain: 'consultation' } }),
      403,
      'insufficient_scope',
    );
    expect(problem.missing_scopes).toEqual(['channels:write']);
    expect((await call('/api/integrations/channels', { token: readOnly.token })).status).toBe(200);
    await expectProblem(await call('/api/integrations/channels', { token: noScope.token }), 403, 'insufficient_scope');
    await expectProblem(await call('/api/integrations/channels'), 401, 'missing_credentials');
    await expectProblem(await call('/api/integrations/channels', { token: ADMIN_TOKEN }), 403, 'admin_required');
  });

  const invalid: [string, Record<string, unknown>, string][] = [
    ['a missing name', { name: undefined }, '/name'],
    ['an unknown domain', { domain: 'astrology' }, '/domain'],
    ['an origin with a path', { allowed_origins: ['https://shop.example.com/page'] }, '/allowed_origins/0'],
    ['an origin with a trailing slash', { allowed_origins: ['https://shop.example.com/'] }, '/allowed_origins/0'],
    ['a wildcard origin', { allowed_origins: ['*'] }, '/allowed_origins/0'],
    ['a non-http origin', { first_party_origins: ['ftp://files.example.com'] }, '/first_party_origins/0'],
    ['a bad colour', { widget: { colors: { primary: 'red' } } }, '/widget/colors/primary'],
    ['a script in a colour', { widget: { colors: { primary: '#fff;}</style><script>' } } }, '/widget/colors/primary'],
    ['an http logo', { widget: { brand: { logo_url: 'http://cdn.example.com/logo.png' } } }, '/widget/brand/logo_url'],
    ['an unknown position', { widget: { position: { side: 'top-left' } } }, '/widget/position/side'],
    ['an unknown widget field', { widget: { theme: 'dark' } }, '/widget/theme'],
    ['a too long greeting', { widget: { copy: { greeting: 'x'.repeat(281) } } }, '/widget/copy/greeting'],
  ];
  for (const [name, override, pointer] of invalid) {
    it(`refuses ${name} with 422 naming ${pointer}`, async () => {
      const body = { name: 'Website', domain: 'consultation', ...override };
      const code = pointer === '/domain' ? 'unknown_domain' : 'validation_failed';
      const problem = await expectProblem(
        await call('/api/integrations/channels', { token: tenant.token, body }),
        422,
        code,
      );
      expect(problem.errors.map((entry: { pointer: string }) => entry.pointer)).toContain(pointer);
    });
  }
});

describe('channel defaults', () => {
  it('default copy uses the brand name given at creation', async () => {
    const tenant = await createTenant({ scopes: ['channels:write'] });
    const channel = await createChannel(tenant, { widget: { brand: { name: 'Acme Plumbing' } } });
    expect(channel.widget.copy.title).toBe('Chat with Acme Plumbing');
    expect(channel.widget.brand.name).toBe('Acme Plumbing');
  });
});

describe('the 1.5 KB budget of the public widget configuration', () => {
  it('refuses a configuration whose public form would pass 1.5 KB, and accepts the longest typical one', async () => {
    const tenant = await createTenant({ scopes: ['channels:write', 'channels:read'] });
    const channel = await createChannel(tenant);
    // Two bytes a letter, as in Arabic or Hebrew.
    const long = { greeting: 'ü'.repeat(280), privacy_note: 'ü'.repeat(280), success_message: 's'.repeat(200) };
    const problem = await expectProblem(
      await call(`/api/integrations/channels/${channel.channel_key}`, {
        method: 'PATCH',
        token: tenant.token,
        body: { widget: { copy: long } },
      }),
      422,
      'validation_failed',
    );
    expect(problem.errors[0].pointer).toBe('/widget');
    expect(problem.detail).toContain('1536');
    const typical = {
      greeting: 'Hi! Tell us what you need and an expert will help you today.',
      privacy_note: 'We use your details only to answer this request.',
    };
    expect(
      (
        await call(`/api/integrations/channels/${channel.channel_key}`, {
          method: 'PATCH',
          token: tenant.token,
          body: { widget: { copy: typical } },
        })
      ).status,
    ).toBe(200);
    const config = await call(`/api/public/widget/${channel.channel_key}/config`, { headers: { Origin: SITE } });
    expect(new TextEncoder().encode(await config.text()).byteLength).toBeLessThanOrEqual(1536);
    // The default copy in Arabic, two bytes a letter, fits too.
    const arabic = await call(`/api/public/widget/${channel.channel_key}/config?lang=ar`, {
      headers: { Origin: SITE },
    });
    expect(new TextEncoder().encode(await arabic.text()).byteLength).toBeLessThanOrEqual(1536);
  });
});

describe('the site-policy check', () => {
  afterEach(() => vi.restoreAllMocks());

  it('is limited per workspace too: 25 new channels cannot fan out past 20 checks a minute', async () => {
    const tenant = await createTenant({ scopes: ['channels:read', 'channels:write'], rate_limit_per_minute: 1000 });
    const fetched: string[] = [];
    const realFetch = globalThis.fetch;
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (!url.startsWith(SITE)) return realFetch(input, init);
      fetched.push(url);
      return new Response('<html></html>', { headers: { 'Content-Security-Policy': "default-src 'self'" } });
    });
    const statuses: number[] = [];
    for (let index = 0; index < 25; index++) {
      const channel = await createChannel(tenant, { name: `Site ${index}` });
      const response = await call(`/api/integrations/channels/${channel.channel_key}/csp-check`, {
        token: tenant.token,
      });
      statuses.push(response.status);
      if (response.status === 429) expect(response.headers.get('Retry-After')).toBeTruthy();
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(20);
    expect(statuses.filter((status) => status === 429)).toHaveLength(5);
    expect(fetched.length).toBeLessThanOrEqual(20 * 2);
    // Another workspace has its own allowance.
    const other = await createTenant({ scopes: ['channels:read', 'channels:write'] });
    const theirs = await createChannel(other);
    expect(
      (await call(`/api/integrations/channels/${theirs.channel_key}/csp-check`, { token: other.token })).status,
    ).toBe(200);
  });
});
