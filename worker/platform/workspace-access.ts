/**
 * Who may act on a workspace through the platform-core API: an API key of that workspace (with
 * the route's scope), or a signed-in member (session cookie plus `X-Workspace-Id` or
 * `?workspace_id=`). Administrators use the admin API instead.
 */
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { resolvePlatformUrls, type AppEnv } from '../env';
import { resolveActor } from '../lib/auth';
import { ApiError } from '../lib/errors';
import { readSessionToken, validateSession } from '../lib/sessions';
import { canManageChannels, requireMembership } from './accounts';
import { consoleOrigin } from './channels/service';

/** The workspace a platform-core request acts on, and who acts, for scoping and audit. */
export interface WorkspaceAccess {
  workspaceId: string;
  organizationId: string;
  actorKind: 'api_key' | 'user';
  actorId: string;
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

async function sessionAccess(c: Context<AppEnv>, scope: string): Promise<WorkspaceAccess | undefined> {
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
  const membership = await requireMembership(c.var.db, session.user.id, workspaceId);
  if (scope.endsWith(':write') && !canManageChannels(membership.role)) {
    throw new ApiError('forbidden', 'Only owners and admins of this workspace can change its channels.');
  }
  c.set('user', session.user);
  return { workspaceId, organizationId: membership.organizationId, actorKind: 'user', actorId: session.user.id };
}

export function requireWorkspaceAccess(scope: string) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (!c.req.header('Authorization')) {
      const access = await sessionAccess(c, scope);
      if (access) {
        c.set('workspace', access);
        return next();
      }
    }
    const actor = await resolveActor(c);
    c.set('actor', actor);
    if (actor.kind !== 'api_key') {
      throw new ApiError('admin_required', 'Use an API key of the workspace for this route; administrators use /api/admin/.');
    }
    const { key } = actor;
    if (!key.scopes.includes(scope)) {
      throw new ApiError('insufficient_scope', `The key lacks the scope: ${scope}.`, { extensions: { missing_scopes: [scope] } });
    }
    if (!key.workspaceActive) throw new ApiError('workspace_inactive', 'The workspace or organisation of this key is not active.');
    c.set('workspace', { workspaceId: key.workspaceId, organizationId: key.organizationId, actorKind: 'api_key', actorId: key.id });
    await next();
  });
}

export function requireWorkspace(c: Context<AppEnv>): WorkspaceAccess {
  const workspace = c.get('workspace');
  if (!workspace) throw new Error('requireWorkspaceAccess must run before this handler');
  return workspace;
}
