import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { getPage, postForm, signUpOwner, signUpUser, verificationPathFor } from './console-helpers';
import { workerFetch } from './self';
import { clock, moveClockForTests } from '../../worker/lib/clock';
import { platformDb } from './platform-db';

type Owner = Awaited<ReturnType<typeof signUpOwner>>;

async function createChannelAs(owner: Owner, name = 'Site') {
  const response = await postForm(
    `/integrations/channels?ws=${owner.workspaceId}`,
    { name, domain: 'consultation', allowed_origins: 'https://www.example.com' },
    { cookie: owner.cookie },
  );
  expect(response.status).toBe(303);
  return new URL(response.headers.get('Location')!, 'http://x').pathname.split('/').pop()!;
}

function sessionApi(
  owner: { cookie: string },
  path: string,
  init: { method?: string; workspaceId?: string; body?: unknown } = {},
) {
  const headers: Record<string, string> = { Cookie: `egw_session=${owner.cookie}`, Origin: 'http://gateway.test' };
  if (init.workspaceId) headers['X-Workspace-Id'] = init.workspaceId;
  if (init.body) headers['Content-Type'] = 'application/json';
  return workerFetch(`http://gateway.test${path}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
}

const greetingOf = async (channelKey: string) =>
  JSON.parse(
    (await platformDb
      .prepare('SELECT widget_config FROM channels WHERE channel_key = ?')
      .bind(channelKey)
      .first<{ widget_config: string }>())!.widget_config,
  ).copy.greeting as string;

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
      const response = await postForm(
        `/integrations/channels/${channelB}/widget?ws=${ws}`,
        { 'copy.greeting': 'Owned by A' },
        { cookie: a.cookie },
      );
      expect(response.status).toBe(404);
      expect(
        (
          await postForm(
            `/integrations/channels/${channelB}/status?ws=${ws}`,
            { status: 'disabled' },
            { cookie: a.cookie },
          )
        ).status,
      ).toBe(404);
    }
    expect(await greetingOf(channelB)).toBe(before);
    const status = await platformDb
      .prepare('SELECT status FROM channels WHERE channel_key = ?')
      .bind(channelB)
      .first<{ status: string }>();
    expect(status?.status).toBe('active');
  });

  it('the channel API with A’s session: B’s workspace and channel are 404', async () => {
    expect((await sessionApi(a, '/api/integrations/channels', { workspaceId: b.workspaceId })).status).toBe(404);
    expect((await sessionApi(a, `/api/integrations/channels/${channelB}`, { workspaceId: a.workspaceId })).status).toBe(
      404,
    );
    const patch = await sessionApi(a, `/api/integrations/channels/${channelB}`, {
      method: 'PATCH',
      workspaceId: a.workspaceId,
      body: { status: 'disabled' },
    });
    expect(patch.status).toBe(404);
    const mine = await sessionApi(a, '/api/integrations/channels', { workspaceId: a.workspaceId });
    expect(mine.status).toBe(200);
    const keys = (await mine.json<{ data: { channel_key: string }[] }>()).data.map((channel) => channel.channel_key);
    expect(keys).toEqual([channelA]);
  });

  it('a session of one workspace needs no X-Workspace-Id (the API, as the console does)', async () => {
    const response = await sessionApi(a, '/api/integrations/channels');
    expect(response.status).toBe(200);
    const keys = ((await response.json()) as { data: Array<{ channel_key: string }> }).data.map((c) => c.channel_key);
    expect(keys).toContain(channelA);
    expect(keys).not.toContain(channelB);
  });
});

/** The ids of the open invitations the signed-in user sees on /invitations. */
async function invitationIds(cookie: string): Promise<string[]> {
  const html = await (await getPage('/invitations', cookie)).text();
  return [...html.matchAll(/action="\/invitations\/(inv_[0-9a-z]+)\/accept"/g)].map((match) => match[1]!);
}

async function inviteAndAccept(owner: Owner, invitee: { email: string; cookie: string }, role: string) {
  const invited = await postForm(
    `/integrations/team/invite?ws=${owner.workspaceId}`,
    { email: invitee.email, role },
    { cookie: owner.cookie },
  );
  expect(invited.status).toBe(303);
  const [id] = await invitationIds(invitee.cookie);
  expect(id).toBeDefined();
  const accepted = await postForm(`/invitations/${id}/accept`, {}, { cookie: invitee.cookie });
  expect(accepted.status).toBe(303);
  return id!;
}

describe('membership roles', () => {
  it('an owner invites a member; members look, admins manage channels, owners manage the team', async () => {
    const owner = await signUpOwner();
    const colleague = await signUpUser('business');
    await inviteAndAccept(owner, colleague, 'member');

    // A member sees the workspace but cannot change channels or the team.
    expect((await getPage(`/integrations?ws=${owner.workspaceId}`, colleague.cookie)).status).toBe(200);
    expect(
      (
        await postForm(
          `/integrations/channels?ws=${owner.workspaceId}`,
          { name: 'Nope', domain: 'consultation' },
          { cookie: colleague.cookie },
        )
      ).status,
    ).toBe(403);
    expect(
      (
        await postForm(
          `/integrations/team/invite?ws=${owner.workspaceId}`,
          { email: owner.email, role: 'owner' },
          { cookie: colleague.cookie },
        )
      ).status,
    ).toBe(403);

    const colleagueId = (await platformDb
      .prepare('SELECT id FROM users WHERE email = ?')
      .bind(colleague.email)
      .first<{ id: string }>())!.id;
    expect(
      (
        await postForm(
          `/integrations/team/${colleagueId}/role?ws=${owner.workspaceId}`,
          { role: 'admin' },
          { cookie: owner.cookie },
        )
      ).status,
    ).toBe(303);
    expect(
      (
        await postForm(
          `/integrations/channels?ws=${owner.workspaceId}`,
          { name: 'By admin', domain: 'consultation' },
          { cookie: colleague.cookie },
        )
      ).status,
    ).toBe(303);

    expect(
      (await postForm(`/integrations/team/${colleagueId}/remove?ws=${owner.workspaceId}`, {}, { cookie: owner.cookie }))
        .status,
    ).toBe(303);
    expect((await getPage(`/integrations?ws=${owner.workspaceId}`, colleague.cookie)).status).toBe(404);
  });

  it('the last owner can be neither demoted nor removed', async () => {
    const owner = await signUpOwner();
    const ownerId = (await platformDb
      .prepare('SELECT id FROM users WHERE email = ?')
      .bind(owner.email)
      .first<{ id: string }>())!.id;
    // The page offers the only owner neither a new role nor removal.
    const alone = await (await getPage(`/integrations/team?ws=${owner.workspaceId}`, owner.cookie)).text();
    expect(alone).toContain('The only owner');
    expect(alone).not.toContain(`/integrations/team/${ownerId}/remove`);
    const demote = await postForm(
      `/integrations/team/${ownerId}/role?ws=${owner.workspaceId}`,
      { role: 'member' },
      { cookie: owner.cookie },
    );
    expect(demote.status).toBe(409);
    expect(await demote.text()).toContain('at least one owner');
    expect(
      (await postForm(`/integrations/team/${ownerId}/remove?ws=${owner.workspaceId}`, {}, { cookie: owner.cookie }))
        .status,
    ).toBe(409);

    // With a second owner, the first may step down.
    const second = await signUpUser('business');
    await inviteAndAccept(owner, second, 'owner');
    expect(
      (
        await postForm(
          `/integrations/team/${ownerId}/role?ws=${owner.workspaceId}`,
          { role: 'member' },
          { cookie: owner.cookie },
        )
      ).status,
    ).toBe(303);
    const shared = await (await getPage(`/integrations/team?ws=${owner.workspaceId}`, second.cookie)).text();
    expect(shared).toContain(`/integrations/team/${ownerId}/remove`);
    const roles = await platformDb
      .prepare('SELECT role FROM memberships WHERE workspace_id = ? ORDER BY role')
      .bind(owner.workspaceId)
      .all<{ role: string }>();
    expect(roles.results.map((row) => row.role)).toEqual(['member', 'owner']);
  });

  it('inviting an existing member is explained, not an error page', async () => {
    const owner = await signUpOwner();
    const self = await postForm(
      `/integrations/team/invite?ws=${owner.workspaceId}`,
      { email: owner.email, role: 'member' },
      { cookie: owner.cookie },
    );
    expect(self.status).toBe(409);
    expect(await self.text()).toContain('already a member');
  });
});

describe('invitations need the invitee’s consent', () => {
  it('an invited user is not a member until they accept; the invitation shows on the team page meanwhile', async () => {
    const owner = await signUpOwner();
    const invitee = await signUpUser('business');
    const invited = await postForm(
      `/integrations/team/invite?ws=${owner.workspaceId}`,
      { email: invitee.email, role: 'admin' },
      { cookie: owner.cookie },
    );
    expect(invited.status).toBe(303);
    expect(invited.headers.get('Location')).toContain('notice=invited');
    expect((await getPage(`/integrations?ws=${owner.workspaceId}`, invitee.cookie)).status).toBe(404);
    const team = await (await getPage(`/integrations/team?ws=${owner.workspaceId}`, owner.cookie)).text();
    expect(team).toContain('Open invitations');
    expect(team).toContain(invitee.email);
    // The invitee sees it where they land.
    expect(await (await getPage('/onboarding/workspace', invitee.cookie)).text()).toContain(
      'an invitation to join a workspace',
    );
    const [id] = await invitationIds(invitee.cookie);
    const accepted = await postForm(`/invitations/${id}/accept`, {}, { cookie: invitee.cookie });
    expect(accepted.headers.get('Location')).toBe(`/integrations?ws=${owner.workspaceId}&notice=accepted`);
    const membership = await platformDb
      .prepare(
        'SELECT m.role FROM memberships m JOIN users u ON u.id = m.user_id WHERE u.email = ? AND m.workspace_id = ?',
      )
      .bind(invitee.email, owner.workspaceId)
      .first();
    expect(membership).toEqual({ role: 'admin' });
    // Answered once: a second answer finds nothing.
    expect((await postForm(`/invitations/${id}/accept`, {}, { cookie: invitee.cookie })).status).toBe(404);
  });

  it(
    'the inviter gets the same answer for a known and an unknown address; an unknown one waits for that ' + 'sign-up',
    async () => {
      const owner = await signUpOwner();
      const known = await signUpUser('business');
      const unknownEmail = `later.${clock.now()}@example.com`;
      const answers = [];
      for (const email of [known.email, unknownEmail]) {
        const response = await postForm(
          `/integrations/team/invite?ws=${owner.workspaceId}`,
          { email, role: 'member' },
          { cookie: owner.cookie },
        );
        answers.push({ status: response.status, location: response.headers.get('Location') });
      }
      expect(answers[0]).toEqual(answers[1]);
      // The address signs up later, and finds the invitation.
      const signUp = await postForm('/auth/sign-up', {
        email: unknownEmail,
        password: 'correct horse battery staple',
        role: 'business',
      });
      const cookie = /egw_session=([^;]+)/.exec(signUp.headers.get('Set-Cookie') ?? '')![1]!;
      const [id] = await invitationIds(cookie);
      expect(id).toMatch(/^inv_/);
      // Not before the address is confirmed: the invitation was for whoever holds it.
      const early = await postForm(`/invitations/${id}/accept`, {}, { cookie });
      expect(early.status).toBe(403);
      expect(await early.text()).toContain('Confirm your email address first');
      expect((await postForm(await verificationPathFor(unknownEmail), {})).status).toBe(303);
      expect((await postForm(`/invitations/${id}/accept`, {}, { cookie })).status).toBe(303);
      expect((await getPage(`/integrations?ws=${owner.workspaceId}`, cookie)).status).toBe(200);
    },
  );

  it('only the addressee may answer; declined, revoked and expired invitations cannot be accepted', async () => {
    const owner = await signUpOwner();
    const invitee = await signUpUser('business');
    const stranger = await signUpUser('business');
    await postForm(
      `/integrations/team/invite?ws=${owner.workspaceId}`,
      { email: invitee.email, role: 'member' },
      { cookie: owner.cookie },
    );
    const [id] = await invitationIds(invitee.cookie);
    expect(await invitationIds(stranger.cookie)).toEqual([]);
    expect((await postForm(`/invitations/${id}/accept`, {}, { cookie: stranger.cookie })).status).toBe(404);

    // Declined: gone.
    expect((await postForm(`/invitations/${id}/decline`, {}, { cookie: invitee.cookie })).status).toBe(303);
    expect((await postForm(`/invitations/${id}/accept`, {}, { cookie: invitee.cookie })).status).toBe(404);

    // Revoked by the owner: gone.
    await postForm(
      `/integrations/team/invite?ws=${owner.workspaceId}`,
      { email: invitee.email, role: 'member' },
      { cookie: owner.cookie },
    );
    const [second] = await invitationIds(invitee.cookie);
    expect(
      (
        await postForm(
          `/integrations/team/invitations/${second}/revoke?ws=${owner.workspaceId}`,
          {},
          { cookie: owner.cookie },
        )
      ).status,
    ).toBe(303);
    expect((await postForm(`/invitations/${second}/accept`, {}, { cookie: invitee.cookie })).status).toBe(404);

    // Expired after 7 days: gone.
    await postForm(
      `/integrations/team/invite?ws=${owner.workspaceId}`,
      { email: invitee.email, role: 'member' },
      { cookie: owner.cookie },
    );
    const [third] = await invitationIds(invitee.cookie);
    const expiresAt = (await platformDb
      .prepare('SELECT expires_at, created_at FROM invitations WHERE id = ?')
      .bind(third)
      .first<{ expires_at: number; created_at: number }>())!;
    expect(expiresAt.expires_at - expiresAt.created_at).toBe(7 * 24 * 60 * 60 * 1000);
    moveClockForTests(expiresAt.expires_at - expiresAt.created_at + 1);
    expect(await invitationIds(invitee.cookie)).toEqual([]);
    expect((await postForm(`/invitations/${third}/accept`, {}, { cookie: invitee.cookie })).status).toBe(404);
    expect((await getPage(`/integrations?ws=${owner.workspaceId}`, invitee.cookie)).status).toBe(404);
  });

  it('only an owner invites or withdraws, and another workspace’s invitation cannot be withdrawn', async () => {
    const owner = await signUpOwner();
    const other = await signUpOwner();
    const invitee = await signUpUser('business');
    await postForm(
      `/integrations/team/invite?ws=${owner.workspaceId}`,
      { email: invitee.email, role: 'member' },
      { cookie: owner.cookie },
    );
    const [id] = await invitationIds(invitee.cookie);
    expect(
      (
        await postForm(
          `/integrations/team/invitations/${id}/revoke?ws=${other.workspaceId}`,
          {},
          { cookie: other.cookie },
        )
      ).status,
    ).toBe(404);
    expect(
      (
        await postForm(
          `/integrations/team/invitations/${id}/revoke?ws=${owner.workspaceId}`,
          {},
          { cookie: other.cookie },
        )
      ).status,
    ).toBe(404);
    expect(await invitationIds(invitee.cookie)).toEqual([id]);
  });
});

describe('the console pages', () => {
  it('a business user without a workspace is sent to onboarding, and then owns the new workspace', async () => {
    const user = await signUpUser('business');
    const integrations = await getPage('/integrations', user.cookie);
    expect(integrations.status).toBe(303);
    expect(integrations.headers.get('Location')).toBe('/onboarding/workspace');
    const response = await postForm(
      '/onboarding/workspace',
      { organization_name: 'Acme', workspace_name: 'Production' },
      { cookie: user.cookie },
    );
    const ws = new URL(response.headers.get('Location')!, 'http://x').searchParams.get('ws');
    const membership = await platformDb
      .prepare(
        'SELECT m.role FROM memberships m JOIN users u ON u.id = m.user_id WHERE u.email = ? AND m.workspace_id = ?',
      )
      .bind(user.email, ws)
      .first();
    expect(membership).toEqual({ role: 'owner' });
  });

  it('shows intake as text only, with attribution and lead status', async () => {
    const owner = await signUpOwner();
    const channelKey = await createChannelAs(owner);
    const hostile = '<img src=x onerror=alert(1)>';
    const intake = await workerFetch(`http://gateway.test/api/public/widget/${channelKey}/intake`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: 'https://www.example.com' },
      body: JSON.stringify({
        message: { text: hostile },
        attribution: { source_site: 'https://www.example.com', campaign: { utm_source: 'ads' } },
      }),
    });
    expect(intake.status).toBe(200);
    const page = await (
      await getPage(`/integrations/channels/${channelKey}/intake?ws=${owner.workspaceId}`, owner.cookie)
    ).text();
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page).not.toContain(hostile);
    expect(page).toContain('source: ads');
  });

  it('lists the workspace’s API keys as metadata only, and says how to get one', async () => {
    const owner = await signUpOwner();
    const issued = await workerFetch('http://gateway.test/api/admin/api-keys', {
      method: 'POST',
      headers: { Authorization: `Bearer ${env.ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ workspace_id: owner.workspaceId, name: 'Backend', scopes: ['execute'] }),
    });
    const key = await issued.json<{ key_id: string; token: string; token_prefix: string }>();
    const page = await (await getPage(`/integrations?ws=${owner.workspaceId}`, owner.cookie)).text();
    expect(page).toContain(key.key_id);
    expect(page).toContain(key.token_prefix);
    expect(page).not.toContain(key.token);
    expect(page).toContain('provisioned by the platform team: an owner asks for one below');
    // Next to the keys: the MCP URL, a client configuration to paste, and the A2A card.
    expect(page).toContain('<code id="mcp-url">http://gateway.test/mcp</code>');
    const config = /<code id="mcp-config">([^<]+)<\/code>/.exec(page)?.[1]?.replace(/&quot;/g, '"');
    expect(JSON.parse(config!).mcpServers['edge-gateway']).toMatchObject({
      type: 'http',
      url: 'http://gateway.test/mcp',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the placeholder the client expands.
      headers: { Authorization: 'Bearer ${EGW_API_KEY}' },
    });
    expect(page).toContain('http://gateway.test/.well-known/agent-card.json');
  });
});

describe('switching workspaces', () => {
  it('lists every workspace the user belongs to and shows the one chosen', async () => {
    const owner = await signUpOwner();
    const second = await postForm(
      '/onboarding/workspace',
      { organization_name: 'Second Org', workspace_name: 'Staging' },
      { cookie: owner.cookie },
    );
    const secondId = new URL(second.headers.get('Location')!, 'http://x').searchParams.get('ws')!;
    const page = await (await getPage(`/integrations?ws=${secondId}`, owner.cookie)).text();
    expect(page).toContain(`<option value="${owner.workspaceId}">Owner Org / Production</option>`);
    expect(page).toContain(`<option value="${secondId}" selected="">Second Org / Staging</option>`);
    expect(page).toContain('Second Org / Staging · ');
  });
});

describe('the workspace of a session on the API', () => {
  it('a member of one workspace need not name it; a member of several gets the list to choose from', async () => {
    const owner = await signUpOwner();
    const listed = await sessionApi(owner, '/api/integrations/channels');
    expect(listed.status, await listed.clone().text()).toBe(200);

    const other = await signUpOwner();
    await inviteAndAccept(other, owner, 'member');
    const ambiguous = await sessionApi(owner, '/api/integrations/channels');
    expect(ambiguous.status).toBe(422);
    const problem = (await ambiguous.json()) as { code: string; workspace_ids: string[]; detail: string };
    expect(problem.code).toBe('validation_failed');
    expect(problem.workspace_ids.sort()).toEqual([owner.workspaceId, other.workspaceId].sort());
    expect(problem.detail).toContain('2 workspaces');
    const named = await sessionApi(owner, '/api/integrations/channels', { workspaceId: other.workspaceId });
    expect(named.status).toBe(200);
  });
});
