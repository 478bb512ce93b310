/**
 * Workspace membership (owner, admin, member) and invitations. Who may do what is the access
 * policy's (access/policy.ts); this module keeps the records and their rules, such as "a
 * workspace keeps at least one owner" and "an invitation waits for its addressee".
 */
import { and, asc, eq, gt, sql } from 'drizzle-orm';
import { schema, type Database } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { roleMay, type WorkspaceAction } from '../access';
import type { WorkspaceRole } from '../../vocabulary';
import { normalizeEmail } from './email-address';
import { requireVerifiedEmail } from './verification';
import { secondFactorExists } from './second-factor';
import { auditInsert, type AuditContext } from '../audit';
import { joinTenant } from './tenants';
import { clock } from '../../lib/clock';
import { placeOrganization } from '../shards';
import type { Services } from '../../lib/services';

const { users, memberships, workspaces, organizations, invitations } = schema;

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

/** Every workspace the user belongs to, oldest first, with its organisation and the user's role. */
export async function listMemberships(db: Database, userId: string): Promise<MembershipView[]> {
  const query = db
    .select({
      workspaceId: workspaces.id,
      workspaceName: workspaces.name,
      organizationId: organizations.id,
      organizationName: organizations.name,
      role: memberships.role,
      secondFactorRequired: organizations.requireSecondFactor,
      lacksRequiredFactor: sql<boolean>`${organizations.requireSecondFactor} = 1
        AND NOT ${secondFactorExists(userId)}`.mapWith(Boolean),
    })
    .from(memberships)
    .$dynamic();
  return joinTenant(query, memberships.workspaceId).where(eq(memberships.userId, userId)).orderBy(asc(workspaces.id));
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
  return current ? { memberships: all, current } : undefined;
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
  await placeOrganization(services, organizationId, now);
  const audit: AuditContext = { actorKind: 'user', actorId: userId, requestId };
  await db.batch([
    db
      .insert(organizations)
      .values({ id: organizationId, name: input.organizationName, status: 'active', createdAt: now }),
    db
      .insert(workspaces)
      .values({ id: workspaceId, organizationId, name: input.workspaceName, status: 'active', createdAt: now }),
    db.insert(memberships).values({ userId, workspaceId, role: 'owner', createdAt: now }),
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

const requireTeamManager = (membership: MembershipView) =>
  requireRole(membership, 'team.manage', 'Only an owner of this workspace can manage its members.');

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Invites an address to the workspace. The invitation waits until its addressee, signed in with
 * that email, accepts it (an address without an account waits for that sign-up). Known and
 * unknown addresses get the same answer, so the form reveals nothing about who has an account.
 * Inviting an address again refreshes its open invitation (role and expiry).
 */
export async function inviteMember(
  db: Database,
  actor: MembershipView,
  actorUserId: string,
  input: { email: string; role: WorkspaceRole },
  requestId: string,
  now = clock.now(),
) {
  requireTeamManager(actor);
  const email = normalizeEmail(input.email);
  const member = await db
    .select({ userId: users.id })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.workspaceId, actor.workspaceId), eq(users.email, email)))
    .get();
  // The owner sees the member list anyway, so saying this reveals nothing new.
  if (member) throw new ApiError('conflict', 'That person is already a member of this workspace.');
  const pendingId = sql`(SELECT ${invitations.id} FROM ${invitations} WHERE ${invitations.workspaceId} =
    ${actor.workspaceId} AND ${invitations.email} = ${email} AND ${invitations.status} = 'pending')`;
  await db.batch([
    db
      .insert(invitations)
      .values({
        id: newId('inv', now),
        workspaceId: actor.workspaceId,
        email,
        role: input.role,
        status: 'pending',
        invitedBy: actorUserId,
        createdAt: now,
        expiresAt: now + INVITATION_TTL_MS,
      })
      .onConflictDoUpdate({
        target: [invitations.workspaceId, invitations.email],
        targetWhere: sql`status = 'pending'`,
        set: { role: input.role, invitedBy: actorUserId, createdAt: now, expiresAt: now + INVITATION_TTL_MS },
      }),
    auditInsert(
      db,
      { actorKind: 'user', actorId: actorUserId, requestId },
      {
        organizationId: actor.organizationId,
        workspaceId: actor.workspaceId,
        action: 'invitation.created',
        targetId: pendingId,
        metadata: { role: input.role },
      },
      now,
    ),
  ]);
}

export interface InvitationView {
  invitationId: string;
  workspaceId: string;
  workspaceName: string;
  organizationName: string;
  email: string;
  role: WorkspaceRole;
  expiresAt: number;
}

const invitationFields = {
  invitationId: invitations.id,
  workspaceId: invitations.workspaceId,
  workspaceName: workspaces.name,
  organizationName: organizations.name,
  email: invitations.email,
  role: invitations.role,
  expiresAt: invitations.expiresAt,
};

/** Open invitations (pending and not expired), to a workspace or to an address. */
export async function listOpenInvitations(
  db: Database,
  where: { workspaceId: string } | { email: string },
  now = clock.now(),
): Promise<InvitationView[]> {
  return joinTenant(db.select(invitationFields).from(invitations).$dynamic(), invitations.workspaceId)
    .where(
      and(
        'workspaceId' in where
          ? eq(invitations.workspaceId, where.workspaceId)
          : eq(invitations.email, normalizeEmail(where.email)),
        eq(invitations.status, 'pending'),
        gt(invitations.expiresAt, now),
      ),
    )
    .orderBy(asc(invitations.createdAt))
    .limit(100);
}

/**
 * The invitee accepts or declines. Only the addressee, signed in with the invited email, may
 * answer, and only while the invitation is open; anything else is not found. Acceptance adds
 * the membership in the same batch, and only if the invitation is still the one accepted here.
 */
export async function answerInvitation(
  db: Database,
  user: { id: string; email: string; emailVerifiedAt: number | null },
  invitationId: string,
  answer: 'accepted' | 'declined',
  requestId: string,
  now = clock.now(),
): Promise<{ workspaceId: string }> {
  if (answer === 'accepted') requireVerifiedEmail(user);
  const [open] = (await listOpenInvitations(db, { email: user.email }, now)).filter(
    (invitation) => invitation.invitationId === invitationId,
  );
  if (!open) throw new ApiError('not_found', 'This invitation does not exist, has expired, or was already answered.');
  const workspace = await db
    .select({ organizationId: workspaces.organizationId })
    .from(workspaces)
    .where(eq(workspaces.id, open.workspaceId))
    .get();
  const [answered] = await db.batch([
    db
      .update(invitations)
      .set({ status: answer, respondedAt: now })
      .where(and(eq(invitations.id, invitationId), eq(invitations.status, 'pending')))
      .returning({ id: invitations.id }),
    db
      .insert(memberships)
      .select(
        sql`SELECT ${user.id}, ${invitations.workspaceId}, ${invitations.role}, ${now} FROM ${invitations}
          WHERE ${invitations.id} = ${invitationId} AND ${invitations.status} = 'accepted' AND
            ${invitations.respondedAt} = ${now}`,
      )
      .onConflictDoNothing(),
    auditInsert(
      db,
      { actorKind: 'user', actorId: user.id, requestId },
      {
        organizationId: workspace?.organizationId ?? null,
        workspaceId: open.workspaceId,
        action: `invitation.${answer}`,
        targetId: invitationId,
        metadata: { role: open.role },
      },
      now,
    ),
  ]);
  if (answered.length === 0) throw new ApiError('not_found', 'This invitation was already answered or revoked.');
  return { workspaceId: open.workspaceId };
}

/** An owner withdraws an open invitation of their workspace. */
export async function revokeInvitation(
  db: Database,
  actor: MembershipView,
  actorUserId: string,
  invitationId: string,
  requestId: string,
  now = clock.now(),
) {
  requireTeamManager(actor);
  const open = await db
    .select({ id: invitations.id })
    .from(invitations)
    .where(
      and(
        eq(invitations.id, invitationId),
        eq(invitations.workspaceId, actor.workspaceId),
        eq(invitations.status, 'pending'),
      ),
    )
    .get();
  if (!open) throw new ApiError('not_found', 'No open invitation with that id in this workspace.');
  const [revoked] = await db.batch([
    db
      .update(invitations)
      .set({ status: 'revoked', respondedAt: now })
      .where(
        and(
          eq(invitations.id, invitationId),
          eq(invitations.workspaceId, actor.workspaceId),
          eq(invitations.status, 'pending'),
        ),
      )
      .returning({ id: invitations.id }),
    auditInsert(
      db,
      { actorKind: 'user', actorId: actorUserId, requestId },
      {
        organizationId: actor.organizationId,
        workspaceId: actor.workspaceId,
        action: 'invitation.revoked',
        targetId: invitationId,
      },
      now,
    ),
  ]);
  if (revoked.length === 0) throw new ApiError('not_found', 'No open invitation with that id in this workspace.');
}

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
