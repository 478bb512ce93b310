import { expect, it } from 'vitest';
import { ADMIN_TOKEN, call, expectProblem, issueKey, ORIGIN } from './helpers';
import { postForm, SESSION_COOKIE, signUpOwner, signUpPlatformAdmin, signUpUser } from './console-helpers';
import { createActiveRobot, newDomain } from './agent-helpers';
import { createActiveExpert, createChannel, signUpProvider, visitorSays } from './provider-helpers';
import { workerFetch } from './self';
import { clock } from '../../worker/lib/clock';
import { platformDb } from './platform-db';

/** How a route authenticates. */
export type RouteAuth =
  /** A bearer API key (or admin) with a scope: /api/execute. */
  | 'api_key'
  /** An administrator token only: /api/admin/*. */
  | 'admin'
  /** An API key with a scope, or a console session whose role allows it: the platform-core API. */
  | 'api_key_or_session'
  /** A console session (pages): failures are redirects and HTML pages. */
  | 'session'
  /** A provider's console session, for the provider API (problem+json). */
  | 'provider';

/** Whose session a session route is for, and who else is refused (with what status). */
export type SessionHolder = 'owner' | 'member' | 'admin' | 'expert' | 'agent' | 'inactive_provider' | 'platform_admin';

export interface ProtectedRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The route as registered (`:channelKey`, `{key_id}`…); parameters are filled per case. */
  path: string;
  auth: RouteAuth;
  /** The API-key scope the route needs. */
  scope?: string;
  /** A workspace role the route refuses (for session routes). */
  deniedRole?: 'member' | 'admin';
  /** Whose session is the valid one (default: the workspace owner). */
  sessionOf?: SessionHolder;
  /** Other sessions the route refuses, and the status each gets. */
  refuses?: { who: SessionHolder; status: number; code?: string }[];
  /** The route acts on one tenant's record or workspace, so another tenant gets 404. */
  tenantScoped?: boolean;
  /** A valid body (JSON for the API, fields for forms), so only access decides the answer. */
  body?: Record<string, unknown>;
}

/** One tenant as the cases see it: its workspace, credentials and records. */
export interface AccessTenant {
  workspaceId: string;
  organizationId: string;
  ownerCookie: string;
  memberCookie: string;
  adminCookie: string;
  fullKey: { keyId: string; token: string };
  /** A key with only `execute`. */
  narrowKey: { keyId: string; token: string };
  revokedKey: { keyId: string; token: string };
  channelKey: string;
  invitationId: string;
  ownerUserId: string;
  /** An active expert, member of the workspace; a provider who only signed up; a platform admin. */
  expertCookie: string;
  /** An active robot (in a domain of its own, so it answers no other test's executions). */
  agentCookie: string;
  inactiveProviderCookie: string;
  inactiveProviderId: string;
  platformAdminCookie: string;
  /** An open lead of a channel whose leads only the workspace's members see. */
  leadId: string;
  /** A webhook endpoint of the workspace. */
  webhookId: string;
  /** A Q&A knowledge source of the workspace. */
  sourceId: string;
  /** A visitor's conversation on the workspace's channel. */
  conversationId: string;
}

const ALL_SCOPES = [
  'execute',
  'leads:write',
  'agents:invoke',
  'memory:read',
  'memory:write',
  'channels:read',
  'channels:write',
  'knowledge:read',
  'knowledge:write',
];

async function userIdOf(email: string): Promise<string> {
  return (await platformDb.prepare('SELECT id FROM users WHERE email = ?').bind(email).first<{ id: string }>())!.id;
}

async function joinAs(owner: { workspaceId: string; cookie: string }, role: 'member' | 'admin'): Promise<string> {
  const user = await signUpUser('business');
  await postForm(
    `/integrations/team/invite?ws=${owner.workspaceId}`,
    { email: user.email, role },
    { cookie: owner.cookie },
  );
  const id = await platformDb
    .prepare("SELECT id FROM invitations WHERE email = ? AND status = 'pending'")
    .bind(user.email)
    .first<{ id: string }>();
  expect((await postForm(`/invitations/${id!.id}/accept`, {}, { cookie: user.cookie })).status).toBe(303);
  return user.cookie;
}

/** A tenant with an owner, a member, an admin, keys of every kind, a channel and an open invitation. */
export async function createAccessTenant(): Promise<AccessTenant> {
  const owner = await signUpOwner();
  const organizationId = (await platformDb
    .prepare('SELECT organization_id FROM workspaces WHERE id = ?')
    .bind(owner.workspaceId)
    .first<{ organization_id: string }>())!.organization_id;
  const fullKey = await issueKey(owner.workspaceId, { scopes: ALL_SCOPES });
  const narrowKey = await issueKey(owner.workspaceId, { scopes: ['execute'] });
  const revokedKey = await issueKey(owner.workspaceId, { scopes: ALL_SCOPES });
  expect(
    (await call(`/api/admin/api-keys/${revokedKey.keyId}/revoke`, { method: 'POST', token: ADMIN_TOKEN })).status,
  ).toBe(200);
  const channel = await call('/api/integrations/channels', {
    token: fullKey.token,
    body: { name: 'Access site', domain: 'consultation' },
  });
  const channelKey = ((await channel.json()) as { channel_key: string }).channel_key;
  const [memberCookie, adminCookie] = [await joinAs(owner, 'member'), await joinAs(owner, 'admin')];
  await postForm(
    `/integrations/team/invite?ws=${owner.workspaceId}`,
    { email: `pending.${clock.now()}.${Math.random()}@example.com`, role: 'member' },
    { cookie: owner.cookie },
  );
  const invitation = await platformDb
    .prepare("SELECT id FROM invitations WHERE workspace_id = ? AND status = 'pending'")
    .bind(owner.workspaceId)
    .first<{ id: string }>();
  // The supply side: an active expert who belongs to this workspace, so it sees this workspace's pool.
  const expert = await createActiveExpert();
  await postForm(
    `/integrations/team/invite?ws=${owner.workspaceId}`,
    { email: expert.email, role: 'member' },
    { cookie: owner.cookie },
  );
  const expertInvitation = await platformDb
    .prepare("SELECT id FROM invitations WHERE email = ? AND status = 'pending'")
    .bind(expert.email)
    .first<{ id: string }>();
  expect((await postForm(`/invitations/${expertInvitation!.id}/accept`, {}, { cookie: expert.cookie })).status).toBe(
    303,
  );
  const robot = await createActiveRobot('https://robot-access.example.com/run', { domain: await newDomain('access') });
  const inactive = await signUpProvider();
  const platformAdmin = await signUpPlatformAdmin();
  const poolChannel = await createChannel(fullKey.token, { routingPool: 'workspace' });
  const lead = await visitorSays(
    poolChannel,
    { message: { text: 'A lead for the access cases.' } },
    `198.51.100.${Math.floor(Math.random() * 200) + 1}`,
  );
  // From the console's own origin (the hosted inbox): the channel lists no third-party site.
  const said = await call(`/api/public/widget/${channelKey}/intake`, {
    body: { message: { text: 'A conversation for the access cases.' } },
    headers: { Origin: ORIGIN, 'CF-Connecting-IP': '198.51.100.250' },
  });
  expect(said.status).toBe(200);
  const conversation = await platformDb
    .prepare('SELECT id FROM conversations WHERE channel_id = (SELECT id FROM channels WHERE channel_key = ?)')
    .bind(channelKey)
    .first<{ id: string }>();
  // Subscribed to an event these cases never cause, so nothing is ever sent to it.
  const webhook = await call('/api/admin/webhooks', {
    token: ADMIN_TOKEN,
    body: {
      workspace_id: owner.workspaceId,
      url: 'https://hooks-access.example.com/in',
      event_types: ['provider.status_changed'],
    },
  });
  expect(webhook.status).toBe(201);
  const webhookId = ((await webhook.json()) as { webhook_id: string }).webhook_id;
  const source = await call('/api/knowledge/sources', {
    token: fullKey.token,
    body: { kind: 'qa', question: 'Do you open on Sundays?', answer: 'No, we are closed on Sundays.' },
  });
  expect(source.status, await source.clone().text()).toBe(201);
  const sourceId = ((await source.json()) as { source_id: string }).source_id;
  return {
    workspaceId: owner.workspaceId,
    organizationId,
    ownerCookie: owner.cookie,
    memberCookie,
    adminCookie,
    fullKey,
    narrowKey,
    revokedKey,
    channelKey,
    invitationId: invitation!.id,
    ownerUserId: await userIdOf(owner.email),
    expertCookie: expert.cookie,
    agentCookie: robot.cookie,
    inactiveProviderCookie: inactive.cookie,
    inactiveProviderId: inactive.providerId,
    platformAdminCookie: platformAdmin.cookie,
    leadId: lead.lead_id,
    webhookId,
    sourceId,
    conversationId: conversation!.id,
  };
}

/** The route's path for a tenant: its parameters name that tenant's records. */
export function pathFor(route: ProtectedRoute, tenant: AccessTenant, workspace: AccessTenant = tenant): string {
  const filled = route.path
    .replace(/[:{]channelKey}?|[:{]channel_key}?/, tenant.channelKey)
    .replace(/[:{]invitationId}?/, tenant.invitationId)
    .replace(/[:{]userId}?/, tenant.ownerUserId)
    .replace(/[:{]key_id}?/, tenant.revokedKey.keyId)
    .replace(/[:{]organization_id}?/, tenant.organizationId)
    .replace(/[:{]workspace_id}?/, tenant.workspaceId)
    .replace(/[:{]admin_token_id}?/, 'adm_doesnotexist000000000000')
    .replace(/[:{]leadId}?/, tenant.leadId)
    .replace(/[:{]providerId}?|[:{]provider_id}?/, tenant.inactiveProviderId)
    .replace(/[:{]user_id}?/, tenant.ownerUserId)
    .replace(/[:{]step}?/, 'kind')
    .replace(/[:{]webhookId}?|[:{]webhook_id}?/, tenant.webhookId)
    .replace(/[:{]event_id}?/, 'evt_doesnotexist')
    .replace(/[:{]conversationId}?/, tenant.conversationId)
    .replace(/[:{]escrow_id}?/, 'esc_doesnotexist')
    .replace(/[:{]contract_id}?/, 'ctr_doesnotexist')
    .replace(/[:{]refund_request_id}?/, 'rfr_doesnotexist')
    .replace(/[:{]requestId}?/, 'pvr_doesnotexist')
    .replace(/[:{]domain}?/, 'consultation')
    .replace(/[:{]language}?/, 'de')
    .replace(/[:{]source_id}?|[:{]sourceId}?/, tenant.sourceId)
    .replace(/[:{]gapId}?/, 'kgap_doesnotexist');
  if (route.auth !== 'session' || route.path.startsWith('/provider') || route.path.startsWith('/admin')) return filled;
  return `${filled}${filled.includes('?') ? '&' : '?'}ws=${workspace.workspaceId}`;
}

export interface Credentials {
  token?: string;
  cookie?: string;
  workspaceId?: string;
  origin?: string;
}

/** Sends the route's request with these credentials: JSON for the API, a form for pages. */
export function send(route: ProtectedRoute, path: string, credentials: Credentials): Promise<Response> {
  const headers: Record<string, string> = {};
  if (credentials.token) headers.Authorization = `Bearer ${credentials.token}`;
  if (credentials.cookie) headers.Cookie = `${SESSION_COOKIE}=${credentials.cookie}`;
  if (credentials.workspaceId) headers['X-Workspace-Id'] = credentials.workspaceId;
  const unsafe = route.method !== 'GET';
  headers.Origin = credentials.origin ?? ORIGIN;
  if (credentials.origin && credentials.origin !== ORIGIN) headers['Sec-Fetch-Site'] = 'cross-site';
  let body: string | undefined;
  if (unsafe && route.auth === 'session') {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams((route.body ?? {}) as Record<string, string>).toString();
  } else if (unsafe) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(route.body ?? {});
  }
  return workerFetch(`${ORIGIN}${path}`, { method: route.method, headers, body, redirect: 'manual' });
}

function cookieOf(tenant: AccessTenant, who: SessionHolder): string {
  return {
    owner: tenant.ownerCookie,
    member: tenant.memberCookie,
    admin: tenant.adminCookie,
    expert: tenant.expertCookie,
    agent: tenant.agentCookie,
    inactive_provider: tenant.inactiveProviderCookie,
    platform_admin: tenant.platformAdminCookie,
  }[who];
}

const toSignIn = (response: Response) => {
  expect(response.status).toBe(303);
  expect(response.headers.get('Location')).toMatch(/^\/auth\/sign-in\?return_to=/);
};

/** Registers the standard failure cases of one route as tests; `tenants` are built in a beforeAll. */
export function accessFailureCases(route: ProtectedRoute, tenants: () => { a: AccessTenant; b: AccessTenant }): void {
  const label = `${route.method} ${route.path}`;
  const page = route.auth === 'session';
  const keyCapable = route.auth === 'api_key' || route.auth === 'api_key_or_session';

  const holder = route.sessionOf ?? (route.auth === 'provider' ? 'expert' : 'owner');

  it(`${label}: no credentials`, async () => {
    const response = await send(route, pathFor(route, tenants().a), {});
    if (page) toSignIn(response);
    else await expectProblem(response, 401, route.auth === 'provider' ? 'session_required' : 'missing_credentials');
  });

  it(`${label}: a bad token or cookie`, async () => {
    const { a } = tenants();
    if (page) {
      toSignIn(await send(route, pathFor(route, a), { cookie: 'not-a-session-token-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' }));
      return;
    }
    if (route.auth === 'provider') {
      await expectProblem(
        await send(route, pathFor(route, a), { cookie: 'not-a-session-token-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' }),
        401,
        'session_required',
      );
      await expectProblem(await send(route, pathFor(route, a), { token: a.fullKey.token }), 401, 'session_required');
      return;
    }
    await expectProblem(
      await send(route, pathFor(route, a), { token: 'egk_4Fz8sYv3QnT6wK2pL9mB7cR1dX5hJnotreal' }),
      401,
      'invalid_token',
    );
    await expectProblem(
      await send(route, pathFor(route, a), { token: 'egadm_4Fz8sYv3QnT6wK2pL9mB7cR1dX5hJnotreal' }),
      401,
      'invalid_token',
    );
  });

  if (keyCapable || route.auth === 'admin') {
    it(`${label}: a revoked key`, async () => {
      await expectProblem(
        await send(route, pathFor(route, tenants().a), { token: tenants().a.revokedKey.token }),
        401,
        'key_revoked',
      );
    });
  }

  if (route.auth === 'admin') {
    it(`${label}: an API key, however broad, is not an administrator`, async () => {
      await expectProblem(
        await send(route, pathFor(route, tenants().a), { token: tenants().a.fullKey.token }),
        403,
        'admin_required',
      );
    });
  }

  if (keyCapable && route.scope) {
    it(`${label}: a key without ${route.scope}`, async () => {
      const { a } = tenants();
      const lacking =
        route.scope === 'execute' ? await issueKey(a.workspaceId, { scopes: ['leads:write'] }) : a.narrowKey;
      const problem = await expectProblem(
        await send(route, pathFor(route, a), { token: lacking.token }),
        403,
        'insufficient_scope',
      );
      expect(problem.missing_scopes).toContain(route.scope);
    });
  }

  if (route.deniedRole) {
    it(`${label}: a ${route.deniedRole}'s session is refused`, async () => {
      const { a } = tenants();
      const cookie = route.deniedRole === 'member' ? a.memberCookie : a.adminCookie;
      const response = await send(route, pathFor(route, a), { cookie, workspaceId: a.workspaceId });
      if (page) expect(response.status).toBe(403);
      else await expectProblem(response, 403, 'forbidden');
    });
  }

  for (const refusal of route.refuses ?? []) {
    it(`${label}: a ${refusal.who.replace('_', ' ')}'s session gets ${refusal.status}`, async () => {
      const { a } = tenants();
      const response = await send(route, pathFor(route, a), {
        cookie: cookieOf(a, refusal.who),
        workspaceId: a.workspaceId,
      });
      if (refusal.code) await expectProblem(response, refusal.status, refusal.code);
      else expect(response.status, await response.clone().text()).toBe(refusal.status);
    });
  }

  if (route.tenantScoped) {
    it(`${label}: another tenant's record is 404`, async () => {
      const { a, b } = tenants();
      // B's record under A's workspace (when the path names a record), and A's credentials naming B's workspace.
      const namesRecord = /[:{]/.test(route.path);
      const attempts: Response[] = [];
      if (page) {
        if (namesRecord) attempts.push(await send(route, pathFor(route, b, a), { cookie: cookieOf(a, holder) }));
        if (!route.path.startsWith('/provider'))
          attempts.push(await send(route, pathFor(route, b, b), { cookie: cookieOf(a, holder) }));
      } else if (route.auth === 'provider') {
        attempts.push(await send(route, pathFor(route, b), { cookie: a.expertCookie }));
      } else if (route.auth === 'admin') {
        return; // Administrators see every tenant by design.
      } else {
        if (namesRecord) attempts.push(await send(route, pathFor(route, b), { token: a.fullKey.token }));
        if (route.auth === 'api_key_or_session') {
          if (namesRecord)
            attempts.push(await send(route, pathFor(route, b), { cookie: a.ownerCookie, workspaceId: a.workspaceId }));
          attempts.push(await send(route, pathFor(route, a), { cookie: a.ownerCookie, workspaceId: b.workspaceId }));
        }
      }
      expect(attempts.length).toBeGreaterThan(0);
      for (const response of attempts) {
        expect(response.status, await response.clone().text()).toBe(404);
      }
    });
  }

  if ((page || route.auth === 'api_key_or_session' || route.auth === 'provider') && route.method !== 'GET') {
    it(`${label}: a cross-site cookie request is refused`, async () => {
      const { a } = tenants();
      const response = await send(route, pathFor(route, a), {
        cookie: cookieOf(a, holder),
        workspaceId: a.workspaceId,
        origin: 'https://evil.example',
      });
      expect(response.status).toBe(403);
      if (!page) expect(((await response.json()) as { code: string }).code).toBe('csrf_rejected');
    });
  }
}
