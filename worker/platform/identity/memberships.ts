/**
 * Workspace membership (owner, admin, member) and invitations. Who may do what is the access
 * policy's (access/policy.ts); this module keeps the records and their rules, such as "a
 * workspace keeps at least one owner" and "an invitation waits for its addressee".
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { schema, type Database } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { roleMay, type WorkspaceAction } from '../access';
import type { WorkspaceRole } from '../../vocabulary';
import { secondFactorExists } from './second-factor';
import { auditInsert, type AuditContext } from '../audit';
import { clock } from '../../lib/clock';
import { enterOrganization, placeAll, placeOrganization, readAcrossShards } from '../shards';
import type { Services } from '../../lib/services';

const { users, memberships, workspaces, organizations } = schema;

export interface MembershipView {
  workspaceId: string;
  workspaceName: string;
  organizationId: string;
  organizationName: string;
  role: WorkspaceRole;
  /** The organisation's owners require a second factor of every member. */
  secondFactorRequired: boolean;
  /** …and this member has none yet: the workspace is closed to them until they set one up. */
  lacksRequiredFactor: boolean;
}

/**
 * Every workspace the user belongs to, oldest first, with its organisation and the user's role.
 * Memberships are the directory's; the workspaces and organisations are on their shards, read at
 * once from each shard that holds some (one shard for most people).
 */
export async function listMemberships(db: Database, userId: string): Promise<MembershipView[]> {
  const rows = await db
    .select({
      workspaceId: memberships.workspaceId,
      role: memberships.role,
      hasFactor: sql<boolean>`${secondFactorExists(userId)}`.mapWith(Boolean),
    })
    .from(memberships)
    .where(eq(memberships.userId, userId))
    .orderBy(asc(memberships.workspaceId));
  if (!rows.length) return [];
  const placed = await placeAll(
    db,
    'workspace',
    rows.map((row) => row.workspaceId),
  );
  const tenants = await readAcrossShards(db, placed, (shardDb, part) => {
    const query = shardDb
      .select({
        workspaceId: workspaces.id,
        workspaceName: workspaces.name,
        organizationId: organizations.id,
        organizationName: organizations.name,
        secondFactorRequired: organizations.requireSecondFactor,
      })
      .from(workspaces)
      .$dynamic();
    return query.innerJoin(organizations, eq(organizations.id, workspaces.organizationId)).where(
      inArray(
        workspaces.id,
        part.map((entry) => entry.value),
      ),
    );
  });
  return rows.flatMap((row) => {
    const tenant = tenants.find((found) => found.workspaceId === row.workspaceId);
    if (!tenant) return [];
    const lacksRequiredFactor = Boolean(tenant.secondFactorRequired) && !row.hasFactor;
    return [
      { ...tenant, role: row.role, secondFactorRequired: Boolean(tenant.secondFactorRequired), lacksRequiredFactor },
    ];
  });
}

/** The workspaces a user belongs to, and the one a request acts on. */
export interface MemberWorkspaces {
  memberships: MembershipView[];
  current: MembershipView;
}

/**
 * The workspace a signed-in user acts on: the one named (which must be one of theirs: any other
 * is "not found", like another tenant's record), else their first. Undefined when they belong to
 * none. The console and the session-authenticated API both resolve workspaces through here.
 */
export async function resolveMemberWorkspace(
  db: Database,
  userId: string,
  wanted: string | undefined,
): Promise<MemberWorkspaces | undefined> {
  const all = await listMemberships(db, userId);
  if (wanted && !all.some((membership) => membership.workspaceId === wanted))
    throw new ApiError('not_found', `No workspace ${wanted}.`);
  const current = all.find((membership) => membership.workspaceId === wanted) ?? all[0];
  if (current?.lacksRequiredFactor)
    throw new ApiError(
      'second_factor_required',
      `${current.organizationName} requires two-step sign-in of its members: set it up on your account security page.`,
    );
  if (!current) return undefined;
  // The rest of the request works in this workspace's organisation: on its shard.
  await enterOrganization(db, current.organizationId);
  return { memberships: all, current };
}

/** Refuses with 403 when the member's role does not allow the action (access/policy.ts). */
export function requireRole(membership: MembershipView, action: WorkspaceAction, detail: string): void {
  if (!roleMay(membership.role, action)) throw new ApiError('forbidden', detail);
}

/** A business user's first organisation and workspace; the user becomes its owner. */
export async function createOrganizationForUser(
  services: Services,
  userId: string,
  input: { organizationName: string; workspaceName: string },
  requestId: string,
  now = clock.now(),
) {
  const { db } = services;
  const organizationId = newId('org', now);
  const workspaceId = newId('ws', now);
  // The owner's membership is the directory's: written with the placement, before the shard's rows.
  await placeOrganization(services, organizationId, workspaceId, now, [
    db.insert(memberships).values({ userId, workspaceId, role: 'owner', createdAt: now }),
  ]);
  const audit: AuditContext = { actorKind: 'user', actorId: userId, requestId };
  await db.batch([
    db
      .insert(organizations)
      .values({ id: organizationId, name: input.organizationName, status: 'active', createdAt: now }),
    db
      .insert(workspaces)
      .values({ id: workspaceId, organizationId, name: input.workspaceName, status: 'active', createdAt: now }),
    auditInsert(
      db,
      audit,
      { organizationId, workspaceId, action: 'organization.created', targetId: organizationId },
      now,
    ),
  ]);
  return { organizationId, workspaceId };
}

/** The members of a workspace, oldest first. */
export async function listMembers(db: Database, workspaceId: string) {
  return db
    .select({ userId: users.id, email: users.email, role: memberships.role, since: memberships.createdAt })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.workspaceId, workspaceId))
    .orderBy(asc(memberships.createdAt));
}

/** Refuses with 403 unless the member may manage the team (owners). */
export const requireTeamManager = (membership: MembershipView) =>
  requireRole(membership, 'team.manage', 'Only an owner of this workspace can manage its members.');

/**
 * Changes a member's role, or removes them (role null). The last owner can be neither demoted
 * nor removed: the change is conditional in SQL, so two owners demoting each other at once
 * cannot both succeed.
 */
export async function changeMembership(
  db: Database,
  actor: MembershipView,
  actorUserId: string,
  targetUserId: string,
  role: WorkspaceRole | null,
  requestId: string,
  now = clock.now(),
) {
  requireTeamManager(actor);
  const workspaceId = actor.workspaceId;
  const otherOwnerRemains = sql`EXISTS (SELECT 1 FROM ${memberships} m WHERE m.workspace_id = ${workspaceId} AND
    m.role = 'owner' AND m.user_id <> ${targetUserId})`;
  const isTarget = and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, targetUserId));
  // Allowed when the target is not an owner, stays an owner, or another owner remains.
  const guard = role === 'owner' ? sql`1` : sql`(${memberships.role} <> 'owner' OR ${otherOwnerRemains})`;
  const changed =
    role === null
      ? await db.delete(memberships).where(and(isTarget, guard)).returning({ userId: memberships.userId })
      : await db
          .update(memberships)
          .set({ role })
          .where(and(isTarget, guard))
          .returning({ userId: memberships.userId });
  if (changed.length === 0) {
    const exists = await db.select({ role: memberships.role }).from(memberships).where(isTarget).get();
    if (!exists) throw new ApiError('not_found', 'No such member of this workspace.');
    throw new ApiError('last_owner', 'A workspace needs at least one owner. Make someone else an owner first.');
  }
  await auditInsert(
    db,
    { actorKind: 'user', actorId: actorUserId, requestId },
    {
      organizationId: actor.organizationId,
      workspaceId,
      action: role === null ? 'membership.removed' : 'membership.changed',
      targetId: targetUserId,
      metadata: { role },
    },
    now,
  );
}
