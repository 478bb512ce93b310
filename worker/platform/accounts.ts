/**
 * Platform identity for people: sign-up and sign-in (with throttling), the provider record
 * of provider users, and workspace membership (owner, admin, member).
 */
import { and, asc, eq, gt, sql } from 'drizzle-orm';
import { sha256Hex } from '../lib/crypto';
import { isConstraintViolation, schema, type Database } from '../lib/db';
import { ApiError } from '../lib/errors';
import { newId } from '../lib/ids';
import { burnVerification, hashPassword, passwordProblem, verifyPassword } from '../lib/passwords';
import { auditInsert, type AuditContext } from './identity';
import { clearWindow, readWindows, releaseWindowSlot, windowIncrement } from './rate-limit';

const { users, providers, memberships, workspaces, organizations, invitations } = schema;

export type AccountRole = 'business' | 'provider';
export type WorkspaceRole = 'owner' | 'admin' | 'member';

export const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;
export const ACCOUNT_FAILURE_LIMIT = 5;
export const CLIENT_FAILURE_LIMIT = 20;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export interface SignUpInput {
  email: string;
  password: string;
  role: AccountRole;
  /** The channel whose provider link brought this person. */
  referredByChannelKey?: string;
}

export async function signUp(db: Database, pepper: string, input: SignUpInput, now = Date.now()) {
  const email = normalizeEmail(input.email);
  const problem = passwordProblem(input.password, email);
  if (problem) throw new ApiError('validation_failed', problem, { errors: [{ pointer: '/password', detail: problem }] });
  const existing = await db.select({ id: users.id }).from(users).where(eq(users.email, email)).get();
  if (existing) {
    throw new ApiError('email_taken', 'This email cannot be used to sign up. If it is yours, sign in instead.', {
      errors: [{ pointer: '/email', detail: 'Already registered.' }],
    });
  }
  const userId = newId('usr', now);
  const passwordHash = await hashPassword(input.password, pepper);
  const audit: AuditContext = { actorKind: 'user', actorId: userId, requestId: newId('req', now) };
  try {
    await db.batch([
      db.insert(users).values({ id: userId, email, passwordHash, role: input.role, createdAt: now, updatedAt: now }),
      ...(input.role === 'provider'
        ? [
            db.insert(providers).values({
              id: newId('prv', now),
              userId,
              status: 'registered',
              referredByChannelKey: input.referredByChannelKey ?? null,
              createdAt: now,
              updatedAt: now,
            }),
          ]
        : []),
      auditInsert(db, audit, { action: 'user.signed_up', targetId: userId, metadata: { role: input.role } }, now),
    ]);
  } catch (error) {
    // Two sign-ups racing for one address: the unique index decides, the loser is told as above.
    if (String(error).includes('UNIQUE')) throw new ApiError('email_taken', 'This email cannot be used to sign up. If it is yours, sign in instead.');
    throw error;
  }
  return { id: userId, email, role: input.role };
}

/** Subjects whose attempts are counted: the account (even when it does not exist) and the client. */
async function throttleSubjects(email: string, clientIp: string) {
  return {
    account: `signin:acct:${await sha256Hex(normalizeEmail(email))}`,
    client: `signin:ip:${(await sha256Hex(clientIp)).slice(0, 32)}`,
  };
}

const invalidCredentials = () => new ApiError('invalid_credentials', 'Email or password is incorrect.');

/**
 * Takes one attempt slot for the account and one for the client, both or neither, before any
 * password is checked. The window table's CHECK refuses the slot past the limit, so a burst of
 * parallel attempts gets exactly the limit's worth of guesses; the rest are told to wait.
 */
async function takeSignInSlots(db: Database, subjects: { account: string; client: string }, now: number): Promise<void> {
  try {
    await db.batch([
      windowIncrement(db, subjects.account, now, SIGN_IN_WINDOW_MS, ACCOUNT_FAILURE_LIMIT),
      windowIncrement(db, subjects.client, now, SIGN_IN_WINDOW_MS, CLIENT_FAILURE_LIMIT),
    ]);
  } catch (error) {
    if (!isConstraintViolation(error, 'within_window_limit')) throw error;
    const windows = await readWindows(db, [subjects.account, subjects.client], now, SIGN_IN_WINDOW_MS);
    const full = windows.filter((window) => window.maxCount !== null && window.count >= window.maxCount);
    const resetAt = Math.max(now + 1000, ...full.map((window) => window.resetAt));
    const minutes = Math.ceil((resetAt - now) / 60_000);
    throw new ApiError('too_many_attempts', `Too many failed attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, {
      headers: { 'Retry-After': String(Math.ceil((resetAt - now) / 1000)) },
    });
  }
}

/**
 * Signs in with email and password. Every attempt first takes a slot (above); a failure keeps
 * it, so the account allows 5 and the client 20 failures per window. A success forgives the
 * account's failures and gives the client its slot back.
 */
export async function signIn(db: Database, pepper: string, input: { email: string; password: string; clientIp: string }, now = Date.now()) {
  const subjects = await throttleSubjects(input.email, input.clientIp);
  await takeSignInSlots(db, subjects, now);

  const user = await db.select().from(users).where(eq(users.email, normalizeEmail(input.email))).get();
  const verdict = user ? await verifyPassword(input.password, user.passwordHash, pepper) : (await burnVerification(input.password, pepper), undefined);
  if (!user || !verdict?.valid) throw invalidCredentials();

  const rehash = verdict.needsRehash ? await hashPassword(input.password, pepper) : undefined;
  await db.batch([
    clearWindow(db, subjects.account),
    releaseWindowSlot(db, subjects.client),
    ...(rehash ? [db.update(users).set({ passwordHash: rehash, updatedAt: now }).where(eq(users.id, user.id))] : []),
  ]);
  return { id: user.id, email: user.email, role: user.role };
}

export async function providerOf(db: Database, userId: string) {
  return db.select().from(providers).where(eq(providers.userId, userId)).get();
}

export interface MembershipView {
  workspaceId: string;
  workspaceName: string;
  organizationId: string;
  organizationName: string;
  role: WorkspaceRole;
}

export async function listMemberships(db: Database, userId: string): Promise<MembershipView[]> {
  return db
    .select({
      workspaceId: workspaces.id,
      workspaceName: workspaces.name,
      organizationId: organizations.id,
      organizationName: organizations.name,
      role: memberships.role,
    })
    .from(memberships)
    .innerJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
    .innerJoin(organizations, eq(organizations.id, workspaces.organizationId))
    .where(eq(memberships.userId, userId))
    .orderBy(asc(workspaces.id));
}

/** The user's membership of one workspace; not a member is "not found", like any other tenant's record. */
export async function requireMembership(db: Database, userId: string, workspaceId: string): Promise<MembershipView> {
  const found = (await listMemberships(db, userId)).find((membership) => membership.workspaceId === workspaceId);
  if (!found) throw new ApiError('not_found', `No workspace ${workspaceId}.`);
  return found;
}

export function canManageChannels(role: WorkspaceRole): boolean {
  return role === 'owner' || role === 'admin';
}

/** A business user's first organisation and workspace; the user becomes its owner. */
export async function createOrganizationForUser(
  db: Database,
  userId: string,
  input: { organizationName: string; workspaceName: string },
  requestId: string,
  now = Date.now(),
) {
  const organizationId = newId('org', now);
  const workspaceId = newId('ws', now);
  const audit: AuditContext = { actorKind: 'user', actorId: userId, requestId };
  await db.batch([
    db.insert(organizations).values({ id: organizationId, name: input.organizationName, status: 'active', createdAt: now }),
    db.insert(workspaces).values({ id: workspaceId, organizationId, name: input.workspaceName, status: 'active', createdAt: now }),
    db.insert(memberships).values({ userId, workspaceId, role: 'owner', createdAt: now }),
    auditInsert(db, audit, { organizationId, workspaceId, action: 'organization.created', targetId: organizationId }, now),
  ]);
  return { organizationId, workspaceId };
}

export async function listMembers(db: Database, workspaceId: string) {
  return db
    .select({ userId: users.id, email: users.email, role: memberships.role, since: memberships.createdAt })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.workspaceId, workspaceId))
    .orderBy(asc(memberships.createdAt));
}

function requireOwner(membership: MembershipView): void {
  if (membership.role !== 'owner') throw new ApiError('forbidden', 'Only an owner of this workspace can manage its members.');
}

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Invites an address to the workspace. The invitation waits until its addressee, signed in with
 * that email, accepts it (an address without an account waits for that sign-up). Known and
 * unknown addresses get the same answer, so the form reveals nothing about who has an account.
 * Inviting an address again refreshes its open invitation (role and expiry).
 */
export async function inviteMember(db: Database, actor: MembershipView, actorUserId: string, input: { email: string; role: WorkspaceRole }, requestId: string, now = Date.now()) {
  requireOwner(actor);
  const email = normalizeEmail(input.email);
  const member = await db
    .select({ userId: users.id })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.workspaceId, actor.workspaceId), eq(users.email, email)))
    .get();
  // The owner sees the member list anyway, so saying this reveals nothing new.
  if (member) throw new ApiError('conflict', 'That person is already a member of this workspace.');
  const pendingId = sql`(SELECT ${invitations.id} FROM ${invitations} WHERE ${invitations.workspaceId} = ${actor.workspaceId} AND ${invitations.email} = ${email} AND ${invitations.status} = 'pending')`;
  await db.batch([
    db
      .insert(invitations)
      .values({ id: newId('inv', now), workspaceId: actor.workspaceId, email, role: input.role, status: 'pending', invitedBy: actorUserId, createdAt: now, expiresAt: now + INVITATION_TTL_MS })
      .onConflictDoUpdate({
        target: [invitations.workspaceId, invitations.email],
        targetWhere: sql`status = 'pending'`,
        set: { role: input.role, invitedBy: actorUserId, createdAt: now, expiresAt: now + INVITATION_TTL_MS },
      }),
    auditInsert(
      db,
      { actorKind: 'user', actorId: actorUserId, requestId },
      { organizationId: actor.organizationId, workspaceId: actor.workspaceId, action: 'invitation.created', targetId: pendingId, metadata: { role: input.role } },
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
export async function listOpenInvitations(db: Database, where: { workspaceId: string } | { email: string }, now = Date.now()): Promise<InvitationView[]> {
  return db
    .select(invitationFields)
    .from(invitations)
    .innerJoin(workspaces, eq(workspaces.id, invitations.workspaceId))
    .innerJoin(organizations, eq(organizations.id, workspaces.organizationId))
    .where(
      and(
        'workspaceId' in where ? eq(invitations.workspaceId, where.workspaceId) : eq(invitations.email, normalizeEmail(where.email)),
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
  user: { id: string; email: string },
  invitationId: string,
  answer: 'accepted' | 'declined',
  requestId: string,
  now = Date.now(),
): Promise<{ workspaceId: string }> {
  const [open] = (await listOpenInvitations(db, { email: user.email }, now)).filter((invitation) => invitation.invitationId === invitationId);
  if (!open) throw new ApiError('not_found', 'This invitation does not exist, has expired, or was already answered.');
  const workspace = await db.select({ organizationId: workspaces.organizationId }).from(workspaces).where(eq(workspaces.id, open.workspaceId)).get();
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
          WHERE ${invitations.id} = ${invitationId} AND ${invitations.status} = 'accepted' AND ${invitations.respondedAt} = ${now}`,
      )
      .onConflictDoNothing(),
    auditInsert(
      db,
      { actorKind: 'user', actorId: user.id, requestId },
      { organizationId: workspace?.organizationId ?? null, workspaceId: open.workspaceId, action: `invitation.${answer}`, targetId: invitationId, metadata: { role: open.role } },
      now,
    ),
  ]);
  if (answered.length === 0) throw new ApiError('not_found', 'This invitation was already answered or revoked.');
  return { workspaceId: open.workspaceId };
}

/** An owner withdraws an open invitation of their workspace. */
export async function revokeInvitation(db: Database, actor: MembershipView, actorUserId: string, invitationId: string, requestId: string, now = Date.now()) {
  requireOwner(actor);
  const open = await db
    .select({ id: invitations.id })
    .from(invitations)
    .where(and(eq(invitations.id, invitationId), eq(invitations.workspaceId, actor.workspaceId), eq(invitations.status, 'pending')))
    .get();
  if (!open) throw new ApiError('not_found', 'No open invitation with that id in this workspace.');
  const [revoked] = await db.batch([
    db
      .update(invitations)
      .set({ status: 'revoked', respondedAt: now })
      .where(and(eq(invitations.id, invitationId), eq(invitations.workspaceId, actor.workspaceId), eq(invitations.status, 'pending')))
      .returning({ id: invitations.id }),
    auditInsert(
      db,
      { actorKind: 'user', actorId: actorUserId, requestId },
      { organizationId: actor.organizationId, workspaceId: actor.workspaceId, action: 'invitation.revoked', targetId: invitationId },
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
  now = Date.now(),
) {
  requireOwner(actor);
  const workspaceId = actor.workspaceId;
  const otherOwnerRemains = sql`EXISTS (SELECT 1 FROM ${memberships} m WHERE m.workspace_id = ${workspaceId} AND m.role = 'owner' AND m.user_id <> ${targetUserId})`;
  const isTarget = and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, targetUserId));
  // Allowed when the target is not an owner, stays an owner, or another owner remains.
  const guard = role === 'owner' ? sql`1` : sql`(${memberships.role} <> 'owner' OR ${otherOwnerRemains})`;
  const changed =
    role === null
      ? await db.delete(memberships).where(and(isTarget, guard)).returning({ userId: memberships.userId })
      : await db.update(memberships).set({ role }).where(and(isTarget, guard)).returning({ userId: memberships.userId });
  if (changed.length === 0) {
    const exists = await db.select({ role: memberships.role }).from(memberships).where(isTarget).get();
    if (!exists) throw new ApiError('not_found', 'No such member of this workspace.');
    throw new ApiError('last_owner', 'A workspace needs at least one owner. Make someone else an owner first.');
  }
  await auditInsert(
    db,
    { actorKind: 'user', actorId: actorUserId, requestId },
    { organizationId: actor.organizationId, workspaceId, action: role === null ? 'membership.removed' : 'membership.changed', targetId: targetUserId, metadata: { role } },
    now,
  );
}
