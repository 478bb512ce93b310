/**
 * The platform's pages (the hosted inbox, /demo, the front page) and the URLs it generates.
 */
import { env, createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it, beforeAll } from 'vitest';
import worker, { app } from '../../worker/index';
import { call, createTenant, expectStrictPageHeaders, json } from './helpers';
import { platformDb } from './platform-db';

async function channelFor(widget: Record<string, unknown> = {}) {
  const tenant = await createTenant({ scopes: ['channels:write', 'channels:read'] });
  const response = await call('/api/integrations/channels', {
    token: tenant.token,
    body: { name: 'Site', domain: 'consultation', widget },
  });
  return { tenant, channel: await json(response) };
}

describe('the hosted inbox page', () => {
  it('renders the channel’s branding with a strict CSP and the config as an inert JSON block', async () => {
    const { channel } = await channelFor({
      brand: { name: 'Bob </script><script>alert(1)</script>' },
      copy: { title: 'Talk to Bob' },
    });
    const response = await call(`/widget/${channel.channel_key}`);
    expect(response.status).toBe(200);
    expectStrictPageHeaders(response);
    const html = await response.text();
    expect(html).toContain('<script src="/embed/panel.en.js" defer=""></script>');
    expect(html).toContain('Talk to Bob');
    // The only <script> elements are the JSON block and the panel: the brand name cannot close the block.
    expect(html.match(/<script/g)).toHaveLength(2);
    expect(html).toContain('\\u003c/script>');
    const block = html.slice(html.indexOf('id="egw-config">') + 16, html.indexOf('</script>'));
    expect(JSON.parse(block).brand.name).toBe('Bob </script><script>alert(1)</script>');
  });

  it('is a real 404 page for an unknown or disabled channel', async () => {
    const unknown = await call('/widget/ch_nothing');
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('This chat is not available');
    const { tenant, channel } = await channelFor();
    await call(`/api/integrations/channels/${channel.channel_key}`, {
      method: 'PATCH',
      token: tenant.token,
      body: { status: 'disabled' },
    });
    expect((await call(`/widget/${channel.channel_key}`)).status).toBe(404);
  });
});

describe('the /demo page', () => {
  it('exists only where the seed created the demo channel, and carries the real snippet', async () => {
    await platformDb.prepare("DELETE FROM channels WHERE channel_key = 'ch_demo'").run();
    expect((await call('/demo')).status).toBe(404);
    const { tenant } = await channelFor();
    await platformDb
      .prepare(
        'INSERT INTO channels (channel_key, workspace_id, name, domain, ' +
          'allowed_origins, first_party_origins, status, ' +
          "widget_config, created_at, updated_at) SELECT 'ch_demo', workspace_id, 'Demo', domain, '[]', '[]', " +
          "'active', widget_config, 0, 0 FROM channels WHERE workspace_id = ?",
      )
      .bind(tenant.workspaceId)
      .run();
    // The seed writes the directory's entry beside it.
    await platformDb
      .prepare("INSERT OR IGNORE INTO directory_entries VALUES ('channel', 'ch_demo', ?)")
      .bind(tenant.organizationId)
      .run();
    const response = await call('/demo');
    expect(response.status).toBe(200);
    expect(await response.text()).toContain(
      '<script async="" src="http://gateway.test/embed/widget.js" data-channel-id="ch_demo" ' +
        'data-console-origin="http://gateway.test"></script>',
    );
  });
});

describe('the front page', () => {
  it('says what the platform does for each audience, with the provider sign-up and sign-in entries', async () => {
    const response = await call('/');
    expect(response.status).toBe(200);
    expectStrictPageHeaders(response);
    const html = await response.text();
    for (const id of ['site-owners', 'visitors', 'api-callers', 'providers']) expect(html).toContain(`id="${id}"`);
    expect(html).toContain('href="http://gateway.test/auth/sign-up?role=provider"');
    expect(html).toContain('Become an expert, connect a robot, register an agent');
    expect(html).toContain('href="http://gateway.test/auth/sign-in"');
    expect(html).toContain('href="/docs"');
    // No platform channel configured: no widget, and no action on the page itself.
    expect(html).not.toContain('/embed/widget.js');
    expect(html).not.toContain('<form');
  });

  it('with FRONT_DOOR_CHANNEL, carries the platform’s own widget and its hosted inbox', async () => {
    const tenant = await createTenant({ scopes: ['channels:write'] });
    const created = await call('/api/integrations/channels', {
      token: tenant.token,
      body: { name: 'Platform', domain: 'consultation', allowed_origins: [] },
    });
    const channelKey = (await json(created)).channel_key as string;
    const response = await app.request('http://gateway.test/', {}, { ...env, FRONT_DOOR_CHANNEL: channelKey });
    const html = await response.text();
    expect(html).toContain(`data-channel-id="${channelKey}"`);
    expect(html).toContain(`href="http://gateway.test/widget/${channelKey}"`);
  });
});

describe('generated URLs', () => {
  // Generated URLs (snippets, hosted inbox links, intake_url, docs and OpenAPI servers, problem
  // types) follow BASE_URL and CONSOLE_URL when they are set. When they are not, they follow the
  // request's host, and no shared cache may hand one host's answer to another.
  let channelKey: string;
  let token: string;

  beforeAll(async () => {
    const tenant = await createTenant({ scopes: ['channels:read', 'channels:write'] });
    token = tenant.token;
    const created = await json(
      await call('/api/integrations/channels', {
        token,
        body: { name: 'Site', domain: 'consultation', allowed_origins: ['https://shop.example.com'] },
      }),
    );
    channelKey = created.channel_key;
  });

  /** The Worker with other settings, as a deployment with separate hostnames would run it. */
  async function fetchWith(vars: Record<string, string>, url: string, init: RequestInit = {}) {
    const context = createExecutionContext();
    const response = await worker.fetch(
      new Request(url, init) as Parameters<typeof worker.fetch>[0],
      { ...env, ...vars },
      context,
    );
    await waitOnExecutionContext(context);
    return response;
  }

  const configPath = () => `/api/public/widget/${channelKey}/config`;
  const origin = { Origin: 'https://shop.example.com' };

  describe('with BASE_URL and CONSOLE_URL unset (local)', () => {
    it('URLs follow the host, and the public config is private to the browser and varies on Host', async () => {
      for (const host of ['http://gateway.test', 'http://attacker.test']) {
        const response = await fetchWith({ CONSOLE_URL: '' }, `${host}${configPath()}`, { headers: origin });
        const config = await json(response);
        expect(config.intake_url.startsWith(`${host}/`)).toBe(true);
        expect(config.hosted_inbox_url.startsWith(`${host}/`)).toBe(true);
        expect(response.headers.get('Cache-Control')).toMatch(/^private, max-age=60/);
        expect(response.headers.get('Vary')).toMatch(/Host/);
        expect(response.headers.get('Vary')).toMatch(/Origin/);
      }
      const openapi = await fetchWith({ CONSOLE_URL: '' }, 'http://attacker.test/openapi.json');
      expect(openapi.headers.get('Cache-Control')).toMatch(/^private/);
      expect(openapi.headers.get('Vary')).toMatch(/Host/);
    });

    it('errors are never stored by a cache', async () => {
      const response = await fetchWith({}, 'http://gateway.test/api/nothing-here');
      expect(response.status).toBe(404);
      expect(response.headers.get('Cache-Control')).toBe('no-store');
    });
  });

  describe('with BASE_URL and CONSOLE_URL set', () => {
    const vars = { BASE_URL: 'https://api.example.com', CONSOLE_URL: 'https://console.example.com' };

    it('every generated URL uses them, whatever the Host header says, and public caching is kept', async () => {
      const response = await fetchWith(vars, `http://attacker.test${configPath()}`, { headers: origin });
      const config = await json(response);
      expect(config.intake_url).toBe(`https://console.example.com/api/public/widget/${channelKey}/intake`);
      expect(config.hosted_inbox_url).toBe(`https://console.example.com/widget/${channelKey}`);
      expect(config.provider_entry.url).toBe(
        `https://console.example.com/auth/sign-up?role=provider&ref=${channelKey}`,
      );
      expect(response.headers.get('Cache-Control')).toMatch(/^public, max-age=60/);

      const channel = await json(
        await fetchWith(vars, `http://attacker.test/api/integrations/channels/${channelKey}`, {
          headers: { Authorization: `Bearer ${token}` },
        }),
      );
      expect(channel.snippet).toContain('src="https://console.example.com/embed/widget.js"');
      expect(channel.snippet).toContain('data-console-origin="https://console.example.com"');
      expect(channel.hosted_inbox_url).toBe(`https://console.example.com/widget/${channelKey}`);

      const openapi = await json(await fetchWith(vars, 'http://attacker.test/openapi.json'));
      expect(openapi.servers).toEqual([{ url: 'https://api.example.com' }]);

      const problem = await json(
        await fetchWith(vars, 'http://attacker.test/api/execute', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: '{}',
        }),
      );
      expect(problem.type).toBe('https://api.example.com/docs/protocol#error-missing_credentials');

      const docs = await (await fetchWith(vars, 'http://attacker.test/docs')).text();
      expect(docs).toContain('https://api.example.com/api/execute');
      expect(docs).not.toContain('attacker.test');
    });
  });
});
