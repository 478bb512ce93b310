/**
 * The identity guards of the API routes, over the one access policy (access/policy.ts):
 * - `requireBearer`: an administrator, or an API key (the gateway; the admin API takes admins only);
 * - `requireWorkspaceAccess(action)`: an API key of the workspace with the action's scope, or a
 *   signed-in member whose role allows it (session cookie plus `X-Workspace-Id`).
 * Providers pass the one provider gate (providers/gate.ts), over the same policy table.
 * Cookie-authenticated changes must also come from our own pages (an Origin/Sec-Fetch-Site check).
 */
import { enterBy } from '../shards';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { consoleOrigin, resolvePlatformUrls, type AppEnv } from '../../env';
import { ApiError, type ErrorCode } from '../../lib/errors';
import { resolveActor, reverifyCachedKey, workspaceInactive, type Actor } from './credentials';
import { requireRole, resolveMemberWorkspace } from './memberships';
import { readSessionToken, validateSession } from './sessions';
import { scopeFor, type WorkspaceAction } from '../access';
import { clock } from '../../lib/clock';
import { eq } from 'drizzle-orm';
import { schema } from '../../lib/db';

/** The workspace a platform-core request acts on, and who acts, for scoping and audit. */
export interface WorkspaceAccess {
  workspaceId: string;
  organizationId: string;
  /** `admin`: a platform administrator reading a workspace it named (the usage routes). */
  actorKind: 'api_key' | 'user' | 'admin';
  actorId: string;
}

declare module 'hono' {
  interface ContextVariableMap {
    /** Set by bearer authentication on protected routes. */
    actor: Actor;
    /** Set on platform-core routes: the workspace acted on. */
    workspace: WorkspaceAccess;
  }
}

/** Methods that change nothing, so need no same-origin check. */
export const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

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
 * context from this isolate's cache instead of D1; a request refused on a cached key is then
 * re-verified, so the key's current state gets its own answer in the route's order of checks
 * (refusals in `refusedBeforeTenantCheck` come before the tenant's suspension).
 */
export function requireBearer(
  allowed: 'admin_or_api_key' | 'admin',
  options: { cachedKeys?: { refusedBeforeTenantCheck: ReadonlySet<ErrorCode> } } = {},
) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const actor = await resolveActor(c.var.db, c.req.header('Authorization'), c.var.settings, clock.now(), {
      cachedKeys: options.cachedKeys !== undefined,
    });
    c.set('actor', actor);
    if (allowed === 'admin' && actor.kind !== 'admin')
      throw new ApiError('admin_required', 'This route takes an administrator token.');
    await next();
    if (!options.cachedKeys) return;
    const refused = await reverifyCachedKey(c.var.db, actor, c.error, options.cachedKeys.refusedBeforeTenantCheck);
    if (refused) throw refused;
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
  // The workspace named by X-Workspace-Id (or ?workspace_id=); a member of one workspace need not name it.
  const named = c.req.header('X-Workspace-Id') ?? c.req.query('workspace_id');
  const resolved = await resolveMemberWorkspace(c.var.db, session.user.id, named);
  if (!resolved) throw new ApiError('forbidden', 'This account is not a member of any workspace.');
  if (!named && resolved.memberships.length > 1) {
    const ids = resolved.memberships.map((membership) => membership.workspaceId);
    throw new ApiError(
      'validation_failed',
      `This account is a member of ${ids.length} workspaces: name one in the X-Workspace-Id header.`,
      {
        errors: [{ pointer: '', detail: `X-Workspace-Id is required; one of: ${ids.join(', ')}.` }],
        extensions: { workspace_ids: ids },
      },
    );
  }
  const { current } = resolved;
  requireRole(current, action, 'Your role in this workspace does not allow this.');
  c.set('user', session.user);
  return {
    workspaceId: current.workspaceId,
    organizationId: current.organizationId,
    actorKind: 'user',
    actorId: session.user.id,
  };
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

/**
 * An owner's session (the action's roles), or an administrator's token naming the workspace in
 * `workspace_id` (the usage and privacy routes: the platform acts for a workspace on request).
 */
export function requireOwnerOrNamingAdmin(action: WorkspaceAction) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (!c.req.header('Authorization')) return requireWorkspaceAccess(action)(c, next);
    await requireBearer('admin')(c, async () => {});
    const workspaceId = c.req.query('workspace_id');
    if (!workspaceId)
      throw new ApiError('validation_failed', 'An administrator names the workspace in workspace_id.', {
        errors: [{ pointer: '/workspace_id', detail: 'Required with an administrator token.' }],
      });
    if (!(await enterBy(c.var.db, 'workspace', workspaceId)))
      throw new ApiError('not_found', `No workspace ${workspaceId}.`);
    const workspace = await c.var.db
      .select({ workspaceId: schema.workspaces.id, organizationId: schema.workspaces.organizationId })
      .from(schema.workspaces)
      .where(eq(schema.workspaces.id, workspaceId))
      .get();
    if (!workspace) throw new ApiError('not_found', `No workspace ${workspaceId}.`);
    c.set('workspace', { ...workspace, actorKind: 'admin', actorId: 'admin' });
    await next();
  });
}

/** The workspace that requireWorkspaceAccess admitted. */
export function requireWorkspace(c: Context<AppEnv>): WorkspaceAccess {
  const workspace = c.get('workspace');
  if (!workspace) throw new Error('requireWorkspaceAccess must run before this handler');
  return workspace;
}
