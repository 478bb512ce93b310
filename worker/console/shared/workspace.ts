/** The workspace a console page acts on, checked against the access policy. */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { AppEnv } from '../../env';
import type { WorkspaceAction } from '../../platform/access';
import type { AuditContext } from '../../platform/audit';
import { requireRole, resolveMemberWorkspace, type MemberWorkspaces } from '../../platform/identity';
import { currentUser } from './session';
import { ApiError } from '../../lib/errors';

/**
 * The workspace named by `?ws=` (one of the user's; any other is 404), else the user's first,
 * with the member's role checked for `action`. A user with no workspace is sent to create one.
 */
export async function workspaceContext(c: Context<AppEnv>, action?: WorkspaceAction): Promise<MemberWorkspaces> {
  const context = await resolveMemberWorkspace(c.var.db, currentUser(c).id, c.req.query('ws')).catch((error) => {
    // An organisation that requires a second factor of a member without one: the page that sets it up.
    if (error instanceof ApiError && error.code === 'second_factor_required' && c.req.method === 'GET')
      throw new HTTPException(303, { res: c.redirect('/account/security?notice=org_factor', 303) });
    throw error;
  });
  if (!context) throw new HTTPException(303, { res: c.redirect('/onboarding/workspace', 303) });
  if (action) requireRole(context.current, action, 'Your role in this workspace does not allow this change.');
  return context;
}

/** The signed-in user as the actor of an audit record. */
export function userAuditContext(c: Context<AppEnv>): AuditContext {
  return { actorKind: 'user', actorId: currentUser(c).id, requestId: c.var.requestId, traceId: c.var.traceId };
}
