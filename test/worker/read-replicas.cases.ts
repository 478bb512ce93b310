/**
 * Reads from D1's replicas (docs/design/scale.md#reads-and-replicas): every GET route is either a
 * replica's read (checked: it reads from the replica's session) or the primary's, for a reason; a
 * new GET route fails here until it is one or the other. A write through a replica's session is
 * refused, and a visitor's read after their own write starts at its bookmark.
 */
import { env } from 'cloudflare:test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { app } from '../../worker/index';
import { d1Sessions, isWriteStatement, ReplicaWriteError } from '../../worker/lib/d1-sessions';
import { getPage, postForm, setCookies, signUpOwner, signUpUser } from './console-helpers';
import { createActiveExpert, createChannel, SITE, sessionCall } from './provider-helpers';
import { call, createTenant, json, ORIGIN } from './helpers';
import { workerFetch } from './self';

/** GET routes whose data is read from a replica's session (after any decision on the primary). */
const REPLICA_READS = [
  '/api/insights',
  '/integrations/insights',
  '/integrations/insights/agents.csv',
  '/integrations/insights/days.csv',
  '/integrations/insights/funnel.csv',
  '/integrations/insights/outcomes.csv',
  '/integrations/insights/topics.csv',
  '/api/knowledge/sources',
  '/api/knowledge/gaps',
  '/integrations/knowledge',
  '/api/provider/workbench/leads',
  '/provider/workbench',
  '/api/public/widget/:channel_key/config',
  '/api/public/channels/:channelKey/widget-config',
  '/api/public/widget/:channel_key/messages',
  '/api/public/channels/:channelKey/messages',
  '/integrations',
  '/integrations/usage',
  '/integrations/usage/daily.csv',
  '/integrations/usage/statements.csv',
  '/integrations/webhooks',
  '/integrations/webhooks/:webhookId',
  '/integrations/team',
  '/integrations/privacy',
  '/integrations/email',
];

/** GET routes that stay on the primary, each for a reason (prefixes end in `*`). */
const PRIMARY_READS: Record<string, string> = {
  '/': 'no database',
  '/docs*': 'no database',
  '/llms.txt': 'no database',
  '/openapi.*': 'no database',
  '/assets/site.css': 'no database',
  '/healthz': 'no database',
  '/demo': 'no database',
  '/console': 'a redirect by the session: identity',
  '/.well-known/agent-card.json': 'the catalog, from the isolate cache',
  '/a2a*': 'the catalog and A2A tasks: a task read decides what the caller may see',
  '/mcp': 'no read (405 for GET)',
  '/auth*': 'identity: sessions, links and factors decide who is signed in',
  '/account/security': 'identity: factors, passkeys and sessions',
  '/invitations': 'identity: which invitations the address may accept',
  '/onboarding/workspace': 'identity: memberships decide where the user lands',
  '/email/unsubscribe/:token': 'a signed token decides',
  '/live/:conversationId': 'a ticket decides the socket',
  '/widget/:channelKey': 'the hosted inbox page: the channel decides what it shows',
  '/admin*': 'platform administration: decisions and money, on exact reads',
  '/api/admin/*': 'platform administration: decisions and money, on exact reads',
  '/api/privacy/*': 'a signed download link decides; requests are read rarely',
  '/integrations/privacy/exports/:requestId/download': 'a signed download decides',
  '/api/knowledge/sources/:source_id': 'a source just added is read back by its caller at once',
  '/api/integrations/channels*': 'API reads of channels, read back right after changes (not moved yet)',
  '/integrations/channels/*': 'a channel page whose forms change it (not moved yet)',
  '/api/usage*': 'money read by API callers (not moved yet)',
  '/api/provider/workbench/leads/:leadId': "a lead's contact details: only its claimer's, decided on the primary",
  '/provider/workbench/leads/:leadId': "a lead's contact details: only its claimer's, decided on the primary",
  '/api/provider/*': "one expert's own rows, read back after their changes (not moved yet)",
  '/provider/onboarding': 'the review state decides what the expert may do',
  '/provider/operations': "an agent's health and state (not moved yet)",
};

const matches = (pattern: string, path: string) =>
  pattern.endsWith('*') ? path.startsWith(pattern.slice(0, -1)) : pattern === path;

describe('reads from replicas', () => {
  afterEach(() => vi.restoreAllMocks());

  it('every GET route is a replica’s read or the primary’s for a reason: a new one fails here', () => {
    const routes = [...new Set(app.routes.filter((route) => route.method === 'GET').map((route) => route.path))];
    const unclassified = routes.filter(
      (path) => !REPLICA_READS.includes(path) && !Object.keys(PRIMARY_READS).some((pattern) => matches(pattern, path)),
    );
    expect(unclassified).toEqual([]);
    for (const path of REPLICA_READS) expect(routes, path).toContain(path);
  });

  it('a write through a replica’s session is refused, whatever its form', async () => {
    for (const text of [
      'INSERT INTO audit_log (id) VALUES (?)',
      '  update leads set status = ?',
      'DELETE FROM messages',
      'WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x',
      'REPLACE INTO t VALUES (1)',
    ])
      expect(isWriteStatement(text), text).toBe(true);
    for (const text of [
      'SELECT updated_at, replace(title, " ", "") FROM leads',
      'WITH space AS (SELECT 1) SELECT * FROM space',
    ])
      expect(isWriteStatement(text), text).toBe(false);
    const { replica } = d1Sessions(env.DIRECTORY, null);
    expect(() => replica.prepare("INSERT INTO domains (domain) VALUES ('x')")).toThrow(ReplicaWriteError);
    expect(await replica.prepare('SELECT 1 AS one').first()).toEqual({ one: 1 });
  });

  it('insights, the knowledge’s lists and the workbench read from a replica; execute from the primary', async () => {
    const tenant = await createTenant({ scopes: ['execute', 'channels:read', 'knowledge:read'] });
    const replicaTrips = async (response: Response) => {
      expect(response.status, await response.clone().text()).toBe(200);
      return Number(response.headers.get('X-D1-Replica-Queries'));
    };
    for (const path of ['/api/insights', '/api/knowledge/sources', '/api/knowledge/gaps'])
      expect(await replicaTrips(await call(path, { token: tenant.token })), path).toBeGreaterThan(0);
    const executed = await call('/api/execute', {
      token: tenant.token,
      body: { domain: 'consultation', execution_mode: 'sync', required_scopes: ['execute'], text: 'Hello there' },
    });
    expect(await replicaTrips(executed)).toBe(0);
    const expert = await createActiveExpert({ domains: ['consultation'] });
    const listed = await sessionCall(expert.cookie, '/api/provider/workbench/leads');
    expect(await replicaTrips(listed)).toBeGreaterThan(0);
    const owner = await signUpOwner();
    for (const path of ['/integrations/insights', '/integrations/knowledge', '/integrations/usage'])
      expect(await replicaTrips(await getPage(`${path}?ws=${owner.workspaceId}`, owner.cookie)), path).toBeGreaterThan(
        0,
      );
  });

  it('a visitor’s read after their own write starts at the bookmark that write answered', async () => {
    const tenant = await createTenant({ scopes: ['execute', 'channels:write'] });
    const channelKey = await createChannel(tenant.token, { domain: 'consultation' });
    const intake = await call(`/api/public/widget/${channelKey}/intake`, {
      body: { message: { text: 'Is the Lisbon office open on Saturdays?' } },
      headers: { Origin: SITE, 'CF-Connecting-IP': '203.0.113.61' },
    });
    expect(intake.status).toBe(200);
    const bookmark = intake.headers.get('X-EGW-Bookmark');
    // One bookmark per database the write used, under its name (`dir`, or a shard's index).
    expect(bookmark).toMatch(/^(dir|\d+)~[\w-]+(\.(dir|\d+)~[\w-]+)*$/);
    // The widget may read the bookmark (CORS exposes it) and sends it back with its next read.
    expect(intake.headers.get('Access-Control-Expose-Headers')).toContain('X-EGW-Bookmark');
    const { session_id: session } = await json(intake);
    const sessions = spyOnSessions();
    const thread = await call(`/api/public/widget/${channelKey}/messages`, {
      headers: { Origin: SITE, Authorization: `Bearer ${session}`, 'X-EGW-Bookmark': bookmark! },
    });
    expect(thread.status).toBe(200);
    expectSessionsAt(sessions, bookmark!);
    expect(Number(thread.headers.get('X-D1-Replica-Queries'))).toBeGreaterThan(0);
    const messages = (await json(thread)).messages.map((message: { text: string }) => message.text);
    expect(messages).toContain('Is the Lisbon office open on Saturdays?');
    // A bookmark that is not one of D1's is ignored: the read starts anywhere, and still finds it.
    for (const spy of Object.values(sessions)) spy.mockClear();
    const odd = await call(`/api/public/widget/${channelKey}/messages`, {
      headers: { Origin: SITE, Authorization: `Bearer ${session}`, 'X-EGW-Bookmark': 'not a bookmark; drop table' },
    });
    expect(odd.status).toBe(200);
    expect(Object.values(sessions).some((spy) => spy.mock.calls.some(([at]) => at === 'first-unconstrained'))).toBe(
      true,
    );
  });

  it('an owner’s form that changed something hands its bookmark to the page it lands on', async () => {
    const user = await signUpUser('business');
    const made = await postForm(
      '/onboarding/workspace',
      { organization_name: 'Bookmark Org', workspace_name: 'Production' },
      { cookie: user.cookie },
    );
    expect(made.status).toBe(303);
    const cookie = setCookies(made).find((line) => line.startsWith('egw_d1='));
    expect(cookie).toMatch(/^egw_d1=[\w~.-]+; Max-Age=300; Path=\/; HttpOnly; SameSite=Lax$/);
    const bookmark = cookie!.split(';')[0]!.slice('egw_d1='.length);
    const sessions = spyOnSessions();
    const page = await workerFetch(new URL(made.headers.get('Location')!, ORIGIN), {
      headers: { Cookie: `egw_session=${user.cookie}; egw_d1=${bookmark}` },
      redirect: 'manual',
    });
    expect(page.status).toBe(200);
    expectSessionsAt(sessions, bookmark);
    expect(await page.text()).toContain('Bookmark Org');
  });
});

/** A spy on each database's sessions, by its name in a bookmark (`dir`, or a shard's index). */
function spyOnSessions() {
  return {
    dir: vi.spyOn(env.DIRECTORY, 'withSession'),
    0: vi.spyOn(env.DB_0, 'withSession'),
    1: vi.spyOn(env.DB_1, 'withSession'),
  };
}

/** Each database a composed bookmark (`dir~<bookmark>.0~<bookmark>`) names started its session at its own part. */
function expectSessionsAt(sessions: ReturnType<typeof spyOnSessions>, composed: string): void {
  const parts = composed.split('.').map((part) => part.split('~') as [keyof typeof sessions, string]);
  expect(parts.length).toBeGreaterThan(0);
  for (const [name, bookmark] of parts) expect(sessions[name], String(name)).toHaveBeenCalledWith(bookmark);
}
