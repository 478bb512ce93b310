/**
 * Generated URLs (snippets, hosted inbox links, intake_url, docs and OpenAPI servers, problem
 * types) follow BASE_URL and CONSOLE_URL when they are set. When they are not, they follow the
 * request's host, and no shared cache may hand one host's answer to another.
 */
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import worker from '../../worker/index';
import { call, createTenant, json } from './helpers';

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
    expect(config.provider_entry.url).toBe(`https://console.example.com/auth/sign-up?role=provider&ref=${channelKey}`);
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
