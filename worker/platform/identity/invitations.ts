/**
 * Invitations to a workspace: an owner invites an address, and the invitation waits for its
 * addressee, signed in with that email, to accept or decline it. Invitations are the directory's
 * (a person answers them outside any workspace); the workspaces' names come from their shards.
 */
import { and, asc, eq, gt, inArray, sql } from 'drizzle-orm';
import { schema, type Database } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { WorkspaceRole } from '../../vocabulary';
import { normalizeEmail } from './email-address';
import { requireVerifiedEmail } from './verification';
import { auditInsert } from '../audit';
import { clock } from '../../lib/clock';
import { placeAll, readAcrossShards } from '../shards';
import { type MembershipView, requireTeamManager } from './memberships';

const { users, memberships, workspaces, organizations, invitations } = schema;

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
  // The invitation is the directory's, its audit entry the organisation's (on its shard): two writes.
  const [pending] = await db
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
    })
    .returning({ id: invitations.id });
  await auditInsert(
    db,
    { actorKind: 'user', actorId: actorUserId, requestId },
    {
      organizationId: actor.organizationId,
      workspaceId: actor.workspaceId,
      action: 'invitation.created',
      targetId: pending!.id,
      metadata: { role: input.role },
    },
    now,
  );
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

/** Workspaces' and their organisations' names, from the shards that hold them. */
async function tenantNames(db: Database, workspaceIds: string[]) {
  const placed = await placeAll(db, 'workspace', workspaceIds);
  return readAcrossShards(db, placed, (shardDb, part) =>
    shardDb
      .select({ workspaceId: workspaces.id, workspaceName: workspaces.name, organizationName: organizations.name })
      .from(workspaces)
      .innerJoin(organizations, eq(organizations.id, workspaces.organizationId))
      .where(
        inArray(
          workspaces.id,
          part.map((entry) => entry.value),
        ),
      ),
  );
}

/** Open invitations (pending and not expired), to a workspace or to an address. */
export async function listOpenInvitations(
  db: Database,
  where: { workspaceId: string } | { email: string },
  now = clock.now(),
): Promise<InvitationView[]> {
  const rows = await db
    .select({
      invitationId: invitations.id,
      workspaceId: invitations.workspaceId,
      email: invitations.email,
      role: invitations.role,
      expiresAt: invitations.expiresAt,
    })
    .from(invitations)
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
  if (!rows.length) return [];
  const names = await tenantNames(
    db,
    rows.map((row) => row.workspaceId),
  );
  return rows.flatMap((row) => {
    const tenant = names.find((name) => name.workspaceId === row.workspaceId);
    return tenant ? [{ ...row, workspaceName: tenant.workspaceName, organizationName: tenant.organizationName }] : [];
  });
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
  const organizationId = (await placeAll(db, 'workspace', [open.workspaceId]))[0]?.organizationId ?? null;
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
        organizationId,
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
  // The invitation is the directory's, the audit entry the organisation's shard's: two writes,
  // the second only when the first applied.
  const revoked = await db
    .update(invitations)
    .set({ status: 'revoked', respondedAt: now })
    .where(
      and(
        eq(invitations.id, invitationId),
        eq(invitations.workspaceId, actor.workspaceId),
        eq(invitations.status, 'pending'),
      ),
    )
    .returning({ id: invitations.id });
  if (revoked.length > 0)
    await db.batch([
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
