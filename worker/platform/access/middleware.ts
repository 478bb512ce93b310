/**
 * Access middleware for the API routes, over the one policy (policy.ts):
 * - `requireBearer`: an administrator, or an API key (the gateway; the admin API takes admins only);
 * - `requireWorkspaceAccess(action)`: an API key of the workspace with the action's scope, or a
 *   signed-in member whose role allows it (session cookie plus `X-Workspace-Id`).
 * Cookie-authenticated changes must also come from our own pages (an Origin/Sec-Fetch-Site check).
 */
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { consoleOrigin, resolvePlatformUrls, type AppEnv } from '../../env';
import { ApiError } from '../../lib/errors';
import { resolveActor, workspaceInactive, type Actor } from '../identity/credentials';
import { requireRole, resolveMemberWorkspace } from '../identity/memberships';
import { readSessionToken, validateSession, type SessionUser } from '../identity/sessions';
import { providerByUserQuery, type ProviderRow } from '../providers/service';
import { providerRefusal, scopeFor, type ProviderAction, type WorkspaceAction } from './policy';

/** The workspace a platform-core request acts on, and who acts, for scoping and audit. */
export interface WorkspaceAccess {
  workspaceId: string;
  organizationId: string;
  actorKind: 'api_key' | 'user';
  actorId: string;
}

declare module 'hono' {
  interface ContextVariableMap {
    /** Set by bearer authentication on protected routes. */
    actor: Actor;
    /** Set on platform-core routes: the workspace acted on. */
    workspace: WorkspaceAccess;
    /** Set on provider routes: the signed-in provider. */
    provider: ProviderRow;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The request comes from our own pages: Sec-Fetch-Site says same-origin, or Origin is the console.
 * Every cookie-authenticated unsafe request must pass this (forms also pass Hono's csrf check).
 */
export function isSameOriginRequest(c: Context<AppEnv>): boolean {
  if (c.req.header('Sec-Fetch-Site') === 'same-origin') return true;
  const origin = c.req.header('Origin');
  return origin !== undefined && origin === consoleOrigin(resolvePlatformUrls(c.var.settings, c.req.url));
}

/**
 * Authenticates the bearer and stores the actor; `admin` refuses API keys with 403.
 * `cachedKeys` (for /api/execute only, whose batch guards the key's state) may take the key's
 * context from this isolate's cache instead of D1.
 */
export function requireBearer(allowed: 'admin_or_api_key' | 'admin', options: { cachedKeys?: boolean } = {}) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const actor = await resolveActor(c.var.db, c.req.header('Authorization'), c.var.settings, Date.now(), options);
    c.set('actor', actor);
    if (allowed === 'admin' && actor.kind !== 'admin')
      throw new ApiError('admin_required', 'This route takes an administrator token.');
    await next();
  });
}

/** The actor that requireBearer stored. */
export function requireActor(c: Context<AppEnv>): Actor {
  const actor = c.get('actor');
  if (!actor) throw new Error('requireBearer must run before this handler');
  return actor;
}

/** The administrator that requireBearer('admin') admitted. */
export function requireAdmin(c: Context<AppEnv>): { kind: 'admin'; adminId: string } {
  const actor = requireActor(c);
  if (actor.kind !== 'admin') throw new ApiError('admin_required', 'This route takes an administrator token.');
  return actor;
}

async function sessionAccess(c: Context<AppEnv>, action: WorkspaceAction): Promise<WorkspaceAccess | undefined> {
  const token = readSessionToken(c);
  const session = token ? await validateSession(c.var.db, token) : undefined;
  if (!session) return undefined;
  if (!SAFE_METHODS.has(c.req.method) && !isSameOriginRequest(c)) {
    throw new ApiError('csrf_rejected', 'Cookie-authenticated changes must come from the console itself.');
  }
  const workspaceId = c.req.header('X-Workspace-Id') ?? c.req.query('workspace_id');
  if (!workspaceId) {
    throw new ApiError('validation_failed', 'Name the workspace in the X-Workspace-Id header.', {
      errors: [{ pointer: '', detail: 'X-Workspace-Id is required with a session.' }],
    });
  }
  const { current } = (await resolveMemberWorkspace(c.var.db, session.user.id, workspaceId))!;
  requireRole(current, action, 'Your role in this workspace does not allow this.');
  c.set('user', session.user);
  return { workspaceId, organizationId: current.organizationId, actorKind: 'user', actorId: session.user.id };
}

/** Admits an API key with the action's scope, or a member whose role allows the action. */
export function requireWorkspaceAccess(action: WorkspaceAction) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (!c.req.header('Authorization')) {
      const access = await sessionAccess(c, action);
      if (access) {
        c.set('workspace', access);
        return next();
      }
    }
    const actor = await resolveActor(c.var.db, c.req.header('Authorization'), c.var.settings);
    c.set('actor', actor);
    if (actor.kind !== 'api_key') {
      throw new ApiError(
        'admin_required',
        'Use an API key of the workspace for this route; administrators use /api/admin/.',
      );
    }
    const { key } = actor;
    const scope = scopeFor(action);
    if (!scope || !key.scopes.includes(scope)) {
      const missing = scope ? [scope] : [];
      throw new ApiError(
        'insufficient_scope',
        scope ? `The key lacks the scope: ${scope}.` : 'API keys cannot do this; use the console.',
        {
          extensions: { missing_scopes: missing },
        },
      );
    }
    if (!key.workspaceActive) throw workspaceInactive();
    c.set('workspace', {
      workspaceId: key.workspaceId,
      organizationId: key.organizationId,
      actorKind: 'api_key',
      actorId: key.id,
    });
    await next();
  });
}

/** The workspace that requireWorkspaceAccess admitted. */
export function requireWorkspace(c: Context<AppEnv>): WorkspaceAccess {
  const workspace = c.get('workspace');
  if (!workspace) throw new Error('requireWorkspaceAccess must run before this handler');
  return workspace;
}

/**
 * A signed-in console session for an API route: the user, after the same-origin check that every
 * cookie-authenticated change must pass. Without a valid session: 401 `session_required`.
 */
async function requireSessionProvider(
  c: Context<AppEnv>,
): Promise<{ user: SessionUser; provider: ProviderRow | undefined }> {
  const token = readSessionToken(c);
  // The session and its provider record, in one round trip.
  const session = token
    ? await validateSession(c.var.db, token, Date.now(), (userId) => providerByUserQuery(c.var.db, userId))
    : undefined;
  if (!session)
    throw new ApiError('session_required', 'Sign in to the console first; this route takes a console session.');
  if (!SAFE_METHODS.has(c.req.method) && !isSameOriginRequest(c)) {
    throw new ApiError('csrf_rejected', 'Cookie-authenticated changes must come from the console itself.');
  }
  c.set('user', session.user);
  return { user: session.user, provider: session.companion[0] };
}

/** What a refused provider is told, for the API and the console alike. */
export function providerRefusalError(
  provider: ProviderRow,
  action: ProviderAction,
  refusal: 'state' | 'kind',
): ApiError {
  const extensions = { status: provider.status };
  if (refusal === 'kind') {
    return action === 'agent.operate'
      ? new ApiError('forbidden', 'This is for agents and robots: experts claim leads in the workbench instead.', {
          extensions,
        })
      : new ApiError(
          'provider_inactive',
          'The workbench is for experts; agents and robots answer executions instead.',
          { extensions },
        );
  }
  return new ApiError(
    'provider_inactive',
    `Your provider account is ${provider.status.replace('_', ' ')}; it cannot do this in that state.`,
    { extensions },
  );
}

/**
 * Admits a signed-in provider whose state and kind allow the action (access/policy.ts). A
 * business user gets 403 `provider_required`; a provider not allowed, 403 `provider_inactive`
 * (or `forbidden` for the agents' operations).
 */
export function requireProvider(action: ProviderAction) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const { user, provider } = await requireSessionProvider(c);
    if (user.role !== 'provider' || !provider)
      throw new ApiError('provider_required', 'This route is for provider accounts (experts, agents and robots).');
    const refusal = providerRefusal(provider, action);
    if (refusal) throw providerRefusalError(provider, action, refusal);
    c.set('provider', provider);
    await next();
  });
}

/** The provider that requireProvider admitted. */
export function requireProviderRow(c: Context<AppEnv>): ProviderRow {
  const provider = c.get('provider');
  if (!provider) throw new Error('requireProvider must run before this handler');
  return provider;
}
