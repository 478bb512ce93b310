import { env, SELF } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { getPage, postForm, signUpOwner, signUpUser } from './console-helpers';

type Owner = Awaited<ReturnType<typeof signUpOwner>>;

async function createChannelAs(owner: Owner, name = 'Site') {
  const response = await postForm(`/integrations/channels?ws=${owner.workspaceId}`, { name, domain: 'consultation', allowed_origins: 'https://www.example.com' }, { cookie: owner.cookie });
  expect(response.status).toBe(303);
  return new URL(response.headers.get('Location')!, 'http://x').pathname.split('/').pop()!;
}

function sessionApi(owner: { cookie: string }, path: string, init: { method?: string; workspaceId?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = { Cookie: `egw_session=${owner.cookie}`, Origin: 'http://gateway.test' };
  if (init.workspaceId) headers['X-Workspace-Id'] = init.workspaceId;
  if (init.body) headers['Content-Type'] = 'application/json';
  return SELF.fetch(`http://gateway.test${path}`, { method: init.method ?? 'GET', headers, body: init.body ? JSON.stringify(init.body) : undefined });
}

const greetingOf = async (channelKey: string) =>
  JSON.parse((await env.DB.prepare('SELECT widget_config FROM channels WHERE channel_key = ?').bind(channelKey).first<{ widget_config: string }>())!.widget_config)
    .copy.greeting as string;

describe('tenant isolation: a member of workspace A cannot read or change B', () => {
  let a: Owner;
  let b: Owner;
  let channelA: string;
  let channelB: string;

  beforeAll(async () => {
    a = await signUpOwner();
    b = await signUpOwner();
    channelA = await createChannelAs(a, 'A site');
    channelB = await createChannelAs(b, 'B site');
  });

  it('B’s workspace and channel pages are 404 for A, by workspace id and by channel key', async () => {
    expect((await getPage(`/integrations?ws=${b.workspaceId}`, a.cookie)).status).toBe(404);
    expect((await getPage(`/integrations/channels/${channelB}?ws=${b.workspaceId}`, a.cookie)).status).toBe(404);
    expect((await getPage(`/integrations/channels/${channelB}?ws=${a.workspaceId}`, a.cookie)).status).toBe(404);
    expect((await getPage(`/integrations/team?ws=${b.workspaceId}`, a.cookie)).status).toBe(404);
    expect((await getPage(`/integrations/channels/${channelA}?ws=${a.workspaceId}`, a.cookie)).status).toBe(200);
  });

  it('A cannot change B’s channel through console forms', async () => {
    const before = await greetingOf(channelB);
    for (const ws of [a.workspaceId, b.workspaceId]) {
      const response = await postForm(`/integrations/channels/${channelB}/widget?ws=${ws}`, { 'copy.greeting': 'Owned by A' }, { cookie: a.cookie });
      expect(response.status).toBe(404);
      expect((await postForm(`/integrations/channels/${channelB}/status?ws=${ws}`, { status: 'disabled' }, { cookie: a.cookie })).status).toBe(404);
    }
    expect(await greetingOf(channelB)).toBe(before);
    const status = await env.DB.prepare('SELECT status FROM channels WHERE channel_key = ?').bind(channelB).first<{ status: string }>();
    expect(status?.status).toBe('active');
  });

  it('the channel API with A’s session: B’s workspace and channel are 404', async () => {
    expect((await sessionApi(a, '/api/integrations/channels', { workspaceId: b.workspaceId })).status).toBe(404);
    expect((await sessionApi(a, `/api/integrations/channels/${channelB}`, { workspaceId: a.workspaceId })).status).toBe(404);
    const patch = await sessionApi(a, `/api/integrations/channels/${channelB}`, { method: 'PATCH', workspaceId: a.workspaceId, body: { status: 'disabled' } });
    expect(patch.status).toBe(404);
    const mine = await sessionApi(a, '/api/integrations/channels', { workspaceId: a.workspaceId });
    expect(mine.status).toBe(200);
    const keys = (await mine.json<{ data: { channel_key: string }[] }>()).data.map((channel) => channel.channel_key);
    expect(keys).toEqual([channelA]);
  });

  it('a session with no workspace named is refused with a clear error', async () => {
    const response = await sessionApi(a, '/api/integrations/channels');
    expect(response.status).toBe(422);
  });
});

describe('membership roles', () => {
  it('an owner adds a member; members look, admins manage channels, owners manage the team', async () => {
    const owner = await signUpOwner();
    const colleague = await signUpUser('business');
    const added = await postForm(`/integrations/team/invite?ws=${owner.workspaceId}`, { email: colleague.email, role: 'member' }, { cookie: owner.cookie });
    expect(added.status).toBe(303);

    // A member sees the workspace but cannot change channels or the team.
    expect((await getPage(`/integrations?ws=${owner.workspaceId}`, colleague.cookie)).status).toBe(200);
    expect((await postForm(`/integrations/channels?ws=${owner.workspaceId}`, { name: 'Nope', domain: 'consultation' }, { cookie: colleague.cookie })).status).toBe(403);
    expect((await postForm(`/integrations/team/invite?ws=${owner.workspaceId}`, { email: owner.email, role: 'owner' }, { cookie: colleague.cookie })).status).toBe(403);

    const colleagueId = (await env.DB.prepare('SELECT id FROM users WHERE email = ?').bind(colleague.email).first<{ id: string }>())!.id;
    expect((await postForm(`/integrations/team/${colleagueId}/role?ws=${owner.workspaceId}`, { role: 'admin' }, { cookie: owner.cookie })).status).toBe(303);
    expect((await postForm(`/integrations/channels?ws=${owner.workspaceId}`, { name: 'By admin', domain: 'consultation' }, { cookie: colleague.cookie })).status).toBe(303);

    expect((await postForm(`/integrations/team/${colleagueId}/remove?ws=${owner.workspaceId}`, {}, { cookie: owner.cookie })).status).toBe(303);
    expect((await getPage(`/integrations?ws=${owner.workspaceId}`, colleague.cookie)).status).toBe(404);
  });

  it('the last owner can be neither demoted nor removed', async () => {
    const owner = await signUpOwner();
    const ownerId = (await env.DB.prepare('SELECT id FROM users WHERE email = ?').bind(owner.email).first<{ id: string }>())!.id;
    const demote = await postForm(`/integrations/team/${ownerId}/role?ws=${owner.workspaceId}`, { role: 'member' }, { cookie: owner.cookie });
    expect(demote.status).toBe(409);
    expect(await demote.text()).toContain('at least one owner');
    expect((await postForm(`/integrations/team/${ownerId}/remove?ws=${owner.workspaceId}`, {}, { cookie: owner.cookie })).status).toBe(409);

    // With a second owner, the first may step down.
    const second = await signUpUser('business');
    await postForm(`/integrations/team/invite?ws=${owner.workspaceId}`, { email: second.email, role: 'owner' }, { cookie: owner.cookie });
    expect((await postForm(`/integrations/team/${ownerId}/role?ws=${owner.workspaceId}`, { role: 'member' }, { cookie: owner.cookie })).status).toBe(303);
    const roles = await env.DB.prepare('SELECT role FROM memberships WHERE workspace_id = ? ORDER BY role').bind(owner.workspaceId).all<{ role: string }>();
    expect(roles.results.map((row) => row.role)).toEqual(['member', 'owner']);
  });

  it('adding an unknown address or an existing member is explained, not an error page', async () => {
    const owner = await signUpOwner();
    const unknown = await postForm(`/integrations/team/invite?ws=${owner.workspaceId}`, { email: 'nobody.here@example.com', role: 'member' }, { cookie: owner.cookie });
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('Ask them to sign up first');
    const self = await postForm(`/integrations/team/invite?ws=${owner.workspaceId}`, { email: owner.email, role: 'member' }, { cookie: owner.cookie });
    expect(self.status).toBe(409);
  });
});

describe('the console pages', () => {
  it('a business user without a workspace is sent to onboarding, and then owns the new workspace', async () => {
    const user = await signUpUser('business');
    const integrations = await getPage('/integrations', user.cookie);
    expect(integrations.status).toBe(303);
    expect(integrations.headers.get('Location')).toBe('/onboarding/workspace');
    const response = await postForm('/onboarding/workspace', { organization_name: 'Acme', workspace_name: 'Production' }, { cookie: user.cookie });
    const ws = new URL(response.headers.get('Location')!, 'http://x').searchParams.get('ws');
    const membership = await env.DB.prepare('SELECT m.role FROM memberships m JOIN users u ON u.id = m.user_id WHERE u.email = ? AND m.workspace_id = ?')
      .bind(user.email, ws)
      .first();
    expect(membership).toEqual({ role: 'owner' });
  });

  it('shows intake as text only, with attribution and lead status', async () => {
    const owner = await signUpOwner();
    const channelKey = await createChannelAs(owner);
    const hostile = '<img src=x onerror=alert(1)>';
    const intake = await SELF.fetch(`http://gateway.test/api/public/widget/${channelKey}/intake`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: 'https://www.example.com' },
      body: JSON.stringify({ message: { text: hostile }, attribution: { source_site: 'https://www.example.com', campaign: { utm_source: 'ads' } } }),
    });
    expect(intake.status).toBe(200);
    const page = await (await getPage(`/integrations/channels/${channelKey}?ws=${owner.workspaceId}`, owner.cookie)).text();
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page).not.toContain(hostile);
    expect(page).toContain('source: ads');
  });

  it('lists the workspace’s API keys as metadata only, and says how to get one', async () => {
    const owner = await signUpOwner();
    const issued = await SELF.fetch('http://gateway.test/api/admin/api-keys', {
      method: 'POST',
      headers: { Authorization: `Bearer ${env.ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ workspace_id: owner.workspaceId, name: 'Backend', scopes: ['execute'] }),
    });
    const key = await issued.json<{ key_id: string; token: string; token_prefix: string }>();
    const page = await (await getPage(`/integrations?ws=${owner.workspaceId}`, owner.cookie)).text();
    expect(page).toContain(key.key_id);
    expect(page).toContain(key.token_prefix);
    expect(page).not.toContain(key.token);
    expect(page).toContain('issued by the platform administrator');
  });
});

describe('switching workspaces', () => {
  it('lists every workspace the user belongs to and shows the one chosen', async () => {
    const owner = await signUpOwner();
    const second = await postForm('/onboarding/workspace', { organization_name: 'Second Org', workspace_name: 'Staging' }, { cookie: owner.cookie });
    const secondId = new URL(second.headers.get('Location')!, 'http://x').searchParams.get('ws')!;
    const page = await (await getPage(`/integrations?ws=${secondId}`, owner.cookie)).text();
    expect(page).toContain(`<option value="${owner.workspaceId}">Owner Org / Production</option>`);
    expect(page).toContain(`<option value="${secondId}" selected="">Second Org / Staging</option>`);
    expect(page).toContain('Second Org / Staging · ');
  });
});
