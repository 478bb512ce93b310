import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { app } from '../../worker/index';
import {
  DOCS_PAGES,
  EXAMPLE_AGENT_CARD,
  EXAMPLE_EVENT,
  EXAMPLE_METER_EVENT,
  EXAMPLE_USAGE_APPLICATIONS,
} from '../../worker/console/docs/pages';
import { meterEventSchema } from '../../worker/platform/billing';
import { usageApplicationSchema } from '../../worker/platform/core/schemas';
import { egressPolicy } from '../../worker/lib/egress';
import { validateAgentCard } from '../../worker/platform/agents/card';
import { eventSchema } from '../../worker/platform/events/schemas';
import { call, json } from './helpers';

const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

describe('the public OpenAPI description', () => {
  it('is OpenAPI 3.1 with the bearerAuth scheme, served as JSON and YAML', async () => {
    const document = await json(await call('/openapi.json'));
    expect(document.openapi).toBe('3.1.0');
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.servers).toEqual([{ url: 'http://gateway.test' }]);
    const yaml = await call('/openapi.yaml');
    expect(yaml.headers.get('Content-Type')).toContain('application/yaml');
    const text = await yaml.text();
    expect(text).toContain('openapi: 3.1.0');
    expect(text).toContain('x-route-id: brain.execute');
    // The same document, whichever format is read.
    expect(parse(text)).toEqual(document);
  });

  it('carries the route contract of POST /api/execute', async () => {
    const document = await json(await call('/openapi.json'));
    const operation = document.paths['/api/execute'].post;
    expect(operation).toMatchObject({
      'x-route-id': 'brain.execute',
      'x-auth': 'admin_or_api_key',
      'x-security-scheme': 'bearerAuth',
      'x-surface': 'gateway',
      'x-stability': 'phase1_gateway',
      'x-public-phase': 'phase 1',
      security: [{ bearerAuth: [] }],
    });
    const requestSchema = document.components.schemas.ExecuteRequest;
    expect(requestSchema.required.sort()).toEqual(['domain', 'execution_mode', 'required_scopes']);
    expect(requestSchema.additionalProperties).toBe(false);
    expect(requestSchema.properties.execution_mode).toMatchObject({ type: 'string', enum: ['sync'] });
    expect(Object.keys(operation.responses)).toEqual(
      expect.arrayContaining(['200', '401', '403', '413', '415', '422', '429']),
    );
  });

  it('lists /healthz as public', async () => {
    const document = await json(await call('/openapi.json'));
    expect(document.paths['/healthz'].get.security).toEqual([]);
  });

  it('contains every public path the app serves under /api/, and no admin path', async () => {
    const document = await json(await call('/openapi.json'));
    const documented = new Set(Object.keys(document.paths));
    const served = app.routes
      .filter(
        (route) => route.method !== 'ALL' && route.path.startsWith('/api/') && !route.path.startsWith('/api/admin/'),
      )
      .map((route) => toOpenApiPath(route.path));
    expect(served.length).toBeGreaterThan(0);
    for (const path of served) expect(documented, `${path} is served but not documented`).toContain(path);
    for (const path of documented) expect(path.startsWith('/api/admin')).toBe(false);
  });
});

describe('documented request examples', () => {
  it('every JSON request example in the description succeeds as documented', async () => {
    const { createTenant } = await import('./helpers');
    const tenant = await createTenant({
      scopes: ['execute', 'channels:read', 'channels:write', 'knowledge:read', 'knowledge:write'],
    });
    const channel = await json(
      await call('/api/integrations/channels', {
        token: tenant.token,
        body: { name: 'Examples', domain: 'consultation' },
      }),
    );
    // Console-session routes: a fresh provider for the profile, an active expert with a claimed lead for the workbench.
    const { createActiveExpert, sessionCall, signUpProvider, visitorSays } = await import('./provider-helpers');
    const expert = await createActiveExpert();
    const newcomer = await signUpProvider();
    const visitorChannel = await json(
      await call('/api/integrations/channels', {
        token: tenant.token,
        body: { name: 'Leads', domain: 'consultation', allowed_origins: ['https://shop.example.com'] },
      }),
    );
    const lead = await visitorSays(visitorChannel.channel_key, {
      message: { text: 'A lead for the documented examples.' },
    });
    expect(
      (await sessionCall(expert.cookie, `/api/provider/workbench/leads/${lead.lead_id}/claim`, { method: 'POST' }))
        .status,
    ).toBe(200);
    const document = await json(await call('/openapi.json'));
    let tried = 0;
    for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
      for (const [method, operation] of Object.entries(methods)) {
        const example = operation.requestBody?.content?.['application/json']?.example;
        if (example === undefined) continue;
        tried += 1;
        const schemes = (operation.security ?? []).flatMap((requirement: Record<string, unknown>) =>
          Object.keys(requirement),
        );
        const filled = path
          .replace(/\{(channelKey|channel_key)\}/g, channel.channel_key)
          .replace('{leadId}', lead.lead_id);
        const response = schemes.includes('bearerAuth')
          ? await call(filled, { method: method.toUpperCase(), token: tenant.token, body: example })
          : schemes.includes('consoleSession')
            ? await sessionCall(path.includes('/workbench/') ? expert.cookie : newcomer.cookie, filled, {
                method: method.toUpperCase(),
                body: example,
              })
            : await call(filled, {
                method: method.toUpperCase(),
                headers: { Origin: 'http://gateway.test' },
                body: example,
              });
        expect(response.status, `${method.toUpperCase()} ${path}: ${await response.clone().text()}`).toBeLessThan(300);
      }
    }
    expect(tried).toBeGreaterThanOrEqual(5);
  });

  it('/docs/reference shows each example with its own method, body and headers', async () => {
    const html = await (await call('/docs/reference')).text();
    expect(html).toContain('curl -s -X PATCH http://gateway.test/api/integrations/channels/ch_demo');
    expect(html).toContain('{&quot;name&quot;:&quot;Main website&quot;');
    expect(html).toContain('-H &quot;Origin: http://gateway.test&quot;');
    expect(html).toContain(
      'curl -s http://gateway.test/api/integrations/channels \\\n' +
        '  -H &quot;Authorization: Bearer $EGW_API_KEY&quot;</code>',
    );
  });
});

describe('the documentation site', () => {
  const pagePaths = DOCS_PAGES.map((page) => (page.slug ? `/docs/${page.slug}` : '/docs'));
  const ids = (html: string) => new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((match) => match[1]));
  const hrefs = (html: string) =>
    [...html.matchAll(/\shref="([^"]+)"/g)].map((match) => (match[1] ?? '').replace(/&amp;/g, '&'));

  it('renders every page, each heading with its anchor, with no form and the strict CSP', async () => {
    for (const path of pagePaths) {
      const response = await call(path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('Content-Security-Policy')).toContain("script-src 'self'");
      const html = await response.text();
      expect(html, `${path} has a form`).not.toMatch(/<form[\s>]/);
      expect(html).not.toContain('<input type="password"');
      for (const heading of html.matchAll(/<h([2-4]) id="([^"]+)">/g))
        expect(html, `${path} #${heading[2]}`).toContain(`href="#${heading[2]}"`);
    }
    const protocol = await (await call('/docs/protocol')).text();
    expect(protocol).toContain('id="error-quota_exceeded"');
    expect(protocol).toContain('phase1_gateway');
    expect(await (await call('/docs/no-such-page')).text()).toContain('Page not found');
    expect((await call('/docs/no-such-page')).status).toBe(404);
  });

  it('has no broken internal link or anchor', async () => {
    const pages = new Map<string, string>();
    for (const path of pagePaths) pages.set(path, await (await call(path)).text());
    const checked = new Set<string>();
    for (const [from, html] of pages) {
      for (const href of hrefs(html)) {
        const url = new URL(href, `http://gateway.test${from}`);
        if (url.origin !== 'http://gateway.test' || checked.has(url.href)) continue;
        checked.add(url.href);
        const target = url.pathname === from ? html : (pages.get(url.pathname) ?? null);
        if (url.hash) {
          const targetHtml = target ?? (await (await call(url.pathname)).text());
          expect(ids(targetHtml).has(decodeURIComponent(url.hash.slice(1))), `${from} → ${href}`).toBe(true);
        } else if (!target) {
          const response = await call(`${url.pathname}${url.search}`);
          expect(response.status, `${from} → ${href}`).toBeLessThan(400);
        }
      }
    }
    expect(checked.size).toBeGreaterThan(40);
  });

  it('has a Markdown copy of every page, listed in /llms.txt', async () => {
    const llms = await call('/llms.txt');
    expect(llms.headers.get('Content-Type')).toContain('text/plain');
    const index = await llms.text();
    expect(index.startsWith('# Edge Execution Gateway\n\n> ')).toBe(true);
    for (const [position, path] of pagePaths.entries()) {
      expect(index).toContain(`(http://gateway.test${path}.md)`);
      const response = await call(`${path}.md`);
      expect(response.status).toBe(200);
      expect(response.headers.get('Content-Type')).toContain('text/markdown');
      const markdown = await response.text();
      expect(markdown.startsWith(`# ${DOCS_PAGES[position]?.title}\n`)).toBe(true);
      expect(markdown, `${path}.md keeps an HTML-only id`).not.toMatch(/\{#[a-z0-9_-]+\}/);
      expect(markdown).not.toMatch(/^::/m);
    }
    expect(await (await call('/docs/protocol.md')).text()).toContain('| `quota_exceeded` | 429 |');
  });

  it('shows examples the platform accepts: the event per its schema, the agent card as onboarding would', async () => {
    expect(eventSchema.safeParse(EXAMPLE_EVENT).success).toBe(true);
    // The ledger's examples: the usage lines as the envelope's schema reads them, a meter event as the API's.
    for (const line of EXAMPLE_USAGE_APPLICATIONS)
      expect(usageApplicationSchema.strict().safeParse(line).success).toBe(true);
    expect(meterEventSchema.strict().safeParse(EXAMPLE_METER_EVENT).success).toBe(true);
    expect(await (await call('/docs/protocol.md')).text()).toContain('| `entitlement_exceeded` | 402 |');
    const check = validateAgentCard(EXAMPLE_AGENT_CARD, egressPolicy({}));
    expect(check).toMatchObject({ ok: true });
  });
});
