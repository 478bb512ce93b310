/**
 * Two organisations on different shards (docs/design/scale.md#the-layout) never see each other's
 * data, through any door: the API, the console, the widget, MCP, A2A and webhooks. (The access
 * cases check every route the same way, with their two tenants on different shards too.)
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { installRemotes } from './agent-helpers';
import { getPage, signUpOwner } from './console-helpers';
import { call, issueKey, json, type Tenant } from './helpers';
import { moveOrganization, shardOf } from './move-helpers';
import { createChannel, SITE, visitorSays } from './provider-helpers';
import { cron, endpoint, receiver, waitFor } from './webhook-helpers';
import { platformDb } from './platform-db';

const SCOPES = ['execute', 'leads:write', 'channels:read', 'channels:write', 'knowledge:read', 'knowledge:write'];

interface Side extends Tenant {
  cookie: string;
  channelKey: string;
  visitorToken: string;
  taskId: string;
  secretWord: string;
}

/** An organisation with an owner, a key, a channel with a visitor's thread, knowledge and an A2A task. */
async function side(secretWord: string): Promise<Side> {
  const owner = await signUpOwner();
  const organizationId = (await platformDb
    .prepare('SELECT organization_id FROM workspaces WHERE id = ?')
    .bind(owner.workspaceId)
    .first<string>('organization_id'))!;
  const key = await issueKey(owner.workspaceId, { scopes: SCOPES });
  const channelKey = await createChannel(key.token);
  const source = await call('/api/knowledge/sources', {
    token: key.token,
    body: {
      kind: 'document',
      title: `${secretWord} handbook`,
      content_type: 'text/markdown',
      content: `# ${secretWord} handbook\n\n## Opening\n\nThe ${secretWord} office opens at nine every weekday.\n`,
    },
  });
  expect(source.status).toBe(201);
  const visitor = await visitorSays(channelKey, { message: { text: `A question about ${secretWord}.` } });
  const task = await json(
    await call('/a2a', {
      token: key.token,
      headers: { 'A2A-Version': '1.0' },
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: {
          message: {
            messageId: crypto.randomUUID(),
            role: 'ROLE_USER',
            parts: [{ text: `${secretWord} task` }, { data: { domain: 'consultation' } }],
          },
        },
      },
    }),
  );
  return {
    organizationId,
    workspaceId: owner.workspaceId,
    ...key,
    cookie: owner.cookie,
    channelKey,
    visitorToken: visitor.session_id,
    taskId: task.result.task.id,
    secretWord,
  };
}

describe('two organisations on different shards', () => {
  let a: Side;
  let b: Side;
  beforeAll(async () => {
    a = await side('Aldebaran');
    b = await side('Betelgeuse');
    if ((await shardOf(a.organizationId)) === (await shardOf(b.organizationId)))
      await moveOrganization(b.organizationId);
    expect(await shardOf(a.organizationId)).not.toBe(await shardOf(b.organizationId));
  }, 60_000);
  beforeEach(() => installRemotes());
  afterEach(() => vi.restoreAllMocks());

  it('the API and the console answer 404 for the other one’s records, and list only their own', async () => {
    expect((await call(`/api/integrations/channels/${b.channelKey}`, { token: a.token })).status).toBe(404);
    const listed = JSON.stringify(await json(await call('/api/integrations/channels', { token: a.token })));
    expect(listed).toContain(a.channelKey);
    expect(listed).not.toContain(b.channelKey);
    // A key reads its own workspace's knowledge, whatever workspace the query names.
    const sources = await call(`/api/knowledge/sources?workspace_id=${b.workspaceId}`, { token: a.token });
    expect(JSON.stringify(await json(sources))).not.toContain(b.secretWord);
    expect((await getPage(`/integrations/insights?ws=${b.workspaceId}`, a.cookie)).status).toBe(404);
    const inbox = await (await getPage(`/integrations/inbox?ws=${a.workspaceId}`, a.cookie)).text();
    expect(inbox).not.toContain(b.secretWord);
  });

  it('the widget opens only its own channel’s threads, and answers only from its own knowledge', async () => {
    const crossed = await call(`/api/public/widget/${a.channelKey}/messages`, {
      headers: { Origin: SITE, Authorization: `Bearer ${b.visitorToken}` },
    });
    expect([401, 404]).toContain(crossed.status);
    const own = await call(`/api/public/widget/${b.channelKey}/messages`, {
      headers: { Origin: SITE, Authorization: `Bearer ${b.visitorToken}` },
    });
    expect(JSON.stringify(await json(own))).toContain(b.secretWord);
    const asked = await call('/api/knowledge/ask', {
      token: a.token,
      body: { question: `When does the ${b.secretWord} office open?` },
    });
    expect(JSON.stringify(await json(asked))).not.toContain(`${b.secretWord} office opens`);
  });

  it('MCP’s knowledge tool and A2A’s tasks see only the caller’s own organisation', async () => {
    const tool = await call('/mcp', {
      token: a.token,
      headers: { Accept: 'application/json, text/event-stream' },
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'ask_knowledge', arguments: { question: `When does the ${b.secretWord} office open?` } },
      },
    });
    expect(JSON.stringify(await json(tool))).not.toContain(`${b.secretWord} office opens`);
    const ownTool = await call('/mcp', {
      token: b.token,
      headers: { Accept: 'application/json, text/event-stream' },
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'ask_knowledge', arguments: { question: `When does the ${b.secretWord} office open?` } },
      },
    });
    expect(JSON.stringify(await json(ownTool))).toContain(`${b.secretWord} office opens`);
    const task = await json(
      await call('/a2a', {
        token: a.token,
        headers: { 'A2A-Version': '1.0' },
        body: { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: b.taskId } },
      }),
    );
    expect(task.error?.code).toBe(-32001);
    const listed = await json(
      await call('/a2a', {
        token: a.token,
        headers: { 'A2A-Version': '1.0' },
        body: { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} },
      }),
    );
    expect(JSON.stringify(listed)).toContain(a.taskId);
    expect(JSON.stringify(listed)).not.toContain(b.taskId);
  });

  it('a webhook endpoint is sent only its own organisation’s events', async () => {
    const [hookA, hookB] = [receiver(), receiver()];
    await endpoint(a.workspaceId, hookA.url, ['lead.created']);
    await endpoint(b.workspaceId, hookB.url, ['lead.created']);
    await visitorSays(a.channelKey, { message: { text: 'A lead for Aldebaran.' } }, '198.51.100.31');
    await visitorSays(b.channelKey, { message: { text: 'A lead for Betelgeuse.' } }, '198.51.100.32');
    await cron('* * * * *', 1);
    await waitFor(() => hookA.sent().length > 0 && hookB.sent().length > 0);
    const bodies = (hook: ReturnType<typeof receiver>) => hook.sent().map((sent) => String(sent.body));
    expect(bodies(hookA).join()).toContain('Aldebaran');
    for (const body of bodies(hookA)) expect(body).not.toContain('Betelgeuse');
    for (const body of bodies(hookB)) expect(body).not.toContain('Aldebaran');
  });
});
