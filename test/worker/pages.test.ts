import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { app } from '../../worker/index';
import { call, createTenant, expectStrictPageHeaders, json } from './helpers';

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
    await env.DB.prepare("DELETE FROM channels WHERE channel_key = 'ch_demo'").run();
    expect((await call('/demo')).status).toBe(404);
    const { tenant } = await channelFor();
    await env.DB.prepare(
      'INSERT INTO channels (channel_key, workspace_id, name, domain, allowed_origins, first_party_origins, status, ' +
        "widget_config, created_at, updated_at) SELECT 'ch_demo', workspace_id, 'Demo', domain, '[]', '[]', " +
        "'active', widget_config, 0, 0 FROM channels WHERE workspace_id = ?",
    )
      .bind(tenant.workspaceId)
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
