/**
 * An organisation's owners may require a second factor of every member
 * (docs/design/identity-and-access.md#second-factor): a member without one then finds the
 * organisation's workspaces closed (403 `second_factor_required`) until they set one up. The
 * owner who turns it on must have one, so nobody locks themselves out by it.
 */
import { eq, type SQL, sql } from 'drizzle-orm';
import { schema, type Database } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { auditInsert, type AuditContext } from '../audit';
import { requireRole, type MembershipView } from './memberships';
import { hasSecondFactor } from './second-factor';
import { clock } from '../../lib/clock';

const { organizations, memberships, workspaces, providers } = schema;

/**
 * SQL: the provider user is a member of the workspace and may work in it: its organisation
 * requires no second factor, or the user has one (`providers.second_factor`, kept by triggers on
 * the factors, so the check reads nothing of the accounts' secrets and runs on the shard). What
 * reaches a workspace by membership (the workbench's workspace-pool leads, their offers and
 * claims, a workspace's own agents) asks this, as the console does.
 */
export function memberMayWorkIn(userId: SQL | string, workspaceId: SQL | string): SQL {
  return sql`EXISTS (SELECT 1 FROM ${memberships} JOIN ${workspaces} ON ${workspaces.id} = ${memberships.workspaceId}
    JOIN ${organizations} ON ${organizations.id} = ${workspaces.organizationId}
    WHERE ${memberships.workspaceId} = ${workspaceId} AND ${memberships.userId} = ${userId}
      AND (${organizations.requireSecondFactor} = 0 OR EXISTS (SELECT 1 FROM ${providers} f
        WHERE f.user_id = ${userId} AND f.second_factor = 1)))`;
}

/** Turns the organisation's requirement on or off (owners only), audited. */
export async function setSecondFactorRequirement(
  db: Database,
  membership: MembershipView,
  audit: AuditContext,
  required: boolean,
  now = clock.now(),
): Promise<void> {
  requireRole(membership, 'team.manage', 'Only an owner of this workspace can change this.');
  if (required && !(await hasSecondFactor(db, audit.actorId)))
    throw new ApiError('conflict', 'Set up two-step sign-in for your own account first, so you are not locked out.');
  await db.batch([
    db
      .update(organizations)
      .set({ requireSecondFactor: required })
      .where(eq(organizations.id, membership.organizationId)),
    auditInsert(
      db,
      audit,
      {
        organizationId: membership.organizationId,
        workspaceId: membership.workspaceId,
        action: required ? 'organization.second_factor_required' : 'organization.second_factor_optional',
        targetId: membership.organizationId,
      },
      now,
    ),
  ]);
}
