/**
 * Odd input, alike on every JSON route (issue 17, item 15): a byte-order mark is malformed JSON;
 * a lone UTF-16 surrogate in any string is refused with a pointer to it; every array and string a
 * client may send has a bound, so 10,000 duplicates are refused like any over-long list. No case
 * gives a 5xx. The routes come from the public description and the admin registry, so a new route
 * is covered without being listed here.
 */
import { z } from '@hono/zod-openapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ROUTES } from '../../worker/platform/admin/define';
import { ADMIN_TOKEN, call, createTenant, expectProblem, json, ORIGIN, type Tenant } from './helpers';
import { createActiveExpert, createChannel, sessionCall, SITE, type TestProvider } from './provider-helpers';

type JsonSchema = Record<string, any>;

let document: { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, JsonSchema> } };
let tenant: Tenant;
let expert: TestProvider;
let channelKey: string;
beforeAll(async () => {
  document = await json(await call('/openapi.json'));
  tenant = await createTenant({
    scopes: ['execute', 'leads:write', 'channels:read', 'channels:write', 'knowledge:read', 'knowledge:write'],
  });
  expert = await createActiveExpert();
  channelKey = await createChannel(tenant.token);
});

/** Every JSON request body a client may send: the public routes and the admin routes. */
function requestBodies(): Array<{ route: string; method: string; path: string; schema: JsonSchema; security: string }> {
  const bodies = [];
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const schema = operation.requestBody?.content?.['application/json']?.schema;
      if (!schema) continue;
      const security = operation.security?.[0] ? Object.keys(operation.security[0])[0]! : 'public';
      bodies.push({ route: `${method.toUpperCase()} ${path}`, method, path, schema, security });
    }
  }
  for (const route of ADMIN_ROUTES) {
    if (!route.body) continue;
    bodies.push({
      route: `${route.method.toUpperCase()} ${route.path}`,
      method: route.method,
      path: route.path,
      schema: z.toJSONSchema(route.body, { io: 'input', unrepresentable: 'any' }),
      security: 'admin',
    });
  }
  return bodies;
}

/** Every array and string in a schema without a bound, by path. */
function unbounded(schema: JsonSchema, at = '', seen = new Set<JsonSchema>()): string[] {
  if (schema.$ref) {
    const target = document.components.schemas[schema.$ref.replace('#/components/schemas/', '')]!;
    return seen.has(target) ? [] : unbounded(target, at, new Set([...seen, target]));
  }
  const found: string[] = [];
  const types = [schema.type].flat();
  if (types.includes('array') && schema.maxItems === undefined) found.push(`${at} (array)`);
  if (
    types.includes('string') &&
    schema.maxLength === undefined &&
    !schema.enum &&
    schema.const === undefined &&
    !schema.format
  )
    found.push(`${at} (string)`);
  for (const [key, child] of Object.entries(schema.properties ?? {}))
    found.push(...unbounded(child as JsonSchema, `${at}/${key}`, seen));
  if (schema.items) found.push(...unbounded(schema.items, `${at}/*`, seen));
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object')
    found.push(...unbounded(schema.additionalProperties, `${at}/{key}`, seen));
  for (const option of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])])
    found.push(...unbounded(option, at, seen));
  return found;
}

/** Sends raw bytes to a route as its callers authenticate. */
function send(route: { method: string; path: string; security: string }, bytes: Uint8Array): Promise<Response> {
  const path = route.path
    .replace(/\{channelKey\}|\{channel_key\}/, channelKey)
    .replace(/\{leadId\}/, 'lead_00000000000000000000000000')
    .replace(/\{([a-z_]+)\}/g, (_, name: string) => `${name.split('_')[0]}_00000000000000000000000000`);
  const method = route.method.toUpperCase();
  if (route.security === 'consoleSession' && path.startsWith('/api/provider/')) {
    return call(path, { method, body: bytes, headers: { Cookie: `egw_session=${expert.cookie}`, Origin: ORIGIN } });
  }
  if (route.security === 'public')
    return call(path, {
      method,
      body: bytes,
      headers: { Origin: SITE, 'CF-Connecting-IP': `198.51.100.${Math.floor(Math.random() * 200)}` },
    });
  // An owner's route that an administrator may call for a named workspace (usage, privacy).
  if (route.security === 'consoleSession')
    return call(`${path}?workspace_id=${tenant.workspaceId}`, { method, body: bytes, token: ADMIN_TOKEN });
  return call(path, { method, body: bytes, token: route.security === 'admin' ? ADMIN_TOKEN : tenant.token });
}

const encode = (text: string) => new TextEncoder().encode(text);

describe('every JSON route treats odd input alike', () => {
  it('every array and string a client sends has a bound', () => {
    const bodies = requestBodies();
    expect(bodies.length).toBeGreaterThanOrEqual(15);
    const missing = bodies.flatMap((body) => unbounded(body.schema).map((where) => `${body.route} ${where}`));
    expect(missing).toEqual([]);
  });

  it('a path whose segment spells the route’s own parameter (`:user_id`) is answered, never a 5xx', async () => {
    for (const route of ADMIN_ROUTES.filter((entry) => entry.body && /\{\w+\}/.test(entry.path))) {
      const path = route.path.replace(/\{(\w+)\}/g, ':$1');
      const response = await call(path, { method: route.method.toUpperCase(), token: ADMIN_TOKEN, body: {} });
      expect(response.status, `${route.method} ${path}`).toBeLessThan(500);
    }
  });

  it('a byte-order mark is malformed JSON on every route (400), never a 5xx', async () => {
    for (const route of requestBodies()) {
      const response = await send(route, new Uint8Array([0xef, 0xbb, 0xbf, ...encode('{}')]));
      expect(response.status, `${route.route}: ${await response.clone().text()}`).toBe(400);
      expect((await json(response)).code, route.route).toBe('malformed_json');
    }
  });

  it('a lone surrogate in any string is refused with a pointer to it (422), never a 5xx', async () => {
    for (const route of requestBodies()) {
      const response = await send(route, encode('{"name":"\\ud800 broken","nested":{"list":["ok","\\udc00"]}}'));
      const text = await response.text();
      expect(response.status, `${route.route}: ${text}`).toBe(422);
      expect(JSON.parse(text).errors, route.route).toEqual([
        { pointer: '/name', detail: expect.stringContaining('lone UTF-16 surrogate') },
      ]);
    }
  });

  it('JSON nested 6,000 levels deep (12 KB) is refused on every route (422), never a 5xx', async () => {
    const deep = encode(`{"structured_input":${'['.repeat(6000)}${']'.repeat(6000)}}`);
    for (const route of requestBodies()) {
      const response = await send(route, deep);
      const text = await response.text();
      expect(response.status, `${route.route}: ${text}`).toBe(422);
      expect(JSON.parse(text).errors[0].detail, route.route).toContain('at most 32 levels');
    }
    // 32 levels are still a body: the schema answers it, not the depth bound.
    const nested = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
    const allowed = await call('/api/execute', {
      token: tenant.token,
      body: encode(
        `{"domain":"consultation","execution_mode":"sync","required_scopes":[],"structured_input":${nested(31)}}`,
      ),
    });
    expect(allowed.status, await allowed.clone().text()).toBe(200);
    // The JSON-RPC doors answer in JSON-RPC, before anything runs.
    for (const path of ['/a2a', '/mcp']) {
      const response = await call(path, {
        token: tenant.token,
        body: encode(
          `{"jsonrpc":"2.0","id":1,"method":"message/send","params":${'['.repeat(6000)}${']'.repeat(6000)}}`,
        ),
        headers: { Accept: 'application/json, text/event-stream' },
      });
      expect(response.status, path).toBeLessThan(500);
      expect((await json(response)).error, path).toMatchObject({
        code: -32700,
        message: expect.stringContaining('nests too deeply'),
      });
    }
  });

  it('a well-formed surrogate pair (an emoji) is text, and is kept', async () => {
    const profile = await json(
      await sessionCall(expert.cookie, '/api/provider/profile', { body: { headline: 'Payroll 🧾 and VAT' } }),
    );
    expect(profile.headline).toBe('Payroll 🧾 and VAT');
  });

  it('10,000 duplicate event types are refused; a few duplicates are kept once', async () => {
    const many = await call('/api/admin/webhooks', {
      token: ADMIN_TOKEN,
      body: {
        workspace_id: tenant.workspaceId,
        url: 'https://hooks.example.com/in',
        event_types: Array(10_000).fill('lead.created'),
      },
    });
    const problem = await expectProblem(many, 422, 'validation_failed');
    expect(problem.errors[0].pointer).toBe('/event_types');
    const few = await json(
      await call('/api/admin/webhooks', {
        token: ADMIN_TOKEN,
        body: {
          workspace_id: tenant.workspaceId,
          url: 'https://hooks.example.com/in',
          event_types: ['lead.created', 'lead.created', 'lead.claimed'],
        },
      }),
    );
    expect(few.event_types).toEqual(['lead.created', 'lead.claimed']);
    const scopes = await call('/api/admin/api-keys', {
      token: ADMIN_TOKEN,
      body: { workspace_id: tenant.workspaceId, name: 'k', scopes: Array(100).fill('execute') },
    });
    await expectProblem(scopes, 422, 'validation_failed');
  });
});
