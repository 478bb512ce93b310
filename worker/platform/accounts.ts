/**
 * Platform identity for people: sign-up and sign-in (with throttling), the provider record
 * of provider users, and workspace membership (owner, admin, member).
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import { sha256Hex } from '../lib/crypto';
import { schema, type Database } from '../lib/db';
import { ApiError } from '../lib/errors';
import { newId } from '../lib/ids';
import { burnVerification, hashPassword, passwordProblem, verifyPassword } from '../lib/passwords';
import { auditInsert, type AuditContext } from './identity';
import { clearWindow, countInWindow, readWindows } from './rate-limit';

const { users, providers, memberships, workspaces, organizations } = schema;

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

/** Subjects whose failures are counted: the account (even when it does not exist) and the client. */
async function throttleSubjects(email: string, clientIp: string) {
  return {
    account: `signin:acct:${await sha256Hex(normalizeEmail(email))}`,
    client: `signin:ip:${(await sha256Hex(clientIp)).slice(0, 32)}`,
  };
}

const invalidCredentials = () => new ApiError('invalid_credentials', 'Email or password is incorrect.');

export async function signIn(db: Database, pepper: string, input: { email: string; password: string; clientIp: string }, now = Date.now()) {
  const subjects = await throttleSubjects(input.email, input.clientIp);
  for (const window of await readWindows(db, [subjects.account, subjects.client], now, SIGN_IN_WINDOW_MS)) {
    const limit = window.subject === subjects.account ? ACCOUNT_FAILURE_LIMIT : CLIENT_FAILURE_LIMIT;
    if (window.count >= limit) {
      const minutes = Math.ceil((window.resetAt - now) / 60_000);
      throw new ApiError('too_many_attempts', `Too many failed attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, {
        headers: { 'Retry-After': String(Math.ceil((window.resetAt - now) / 1000)) },
      });
    }
  }

  const user = await db.select().from(users).where(eq(users.email, normalizeEmail(input.email))).get();
  const verdict = user ? await verifyPassword(input.password, user.passwordHash, pepper) : (await burnVerification(input.password, pepper), undefined);
  if (!user || !verdict?.valid) {
    await Promise.all([countInWindow(db, subjects.account, now, SIGN_IN_WINDOW_MS), countInWindow(db, subjects.client, now, SIGN_IN_WINDOW_MS)]);
    throw invalidCredentials();
  }

  await clearWindow(db, subjects.account);
  if (verdict.needsRehash) {
    await db.update(users).set({ passwordHash: await hashPassword(input.password, pepper), updatedAt: now }).where(eq(users.id, user.id));
  }
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

/** Adds a registered user to the workspace. Unknown addresses get the same answer as known ones. */
export async function inviteMember(db: Database, actor: MembershipView, actorUserId: string, input: { email: string; role: WorkspaceRole }, requestId: string, now = Date.now()) {
  requireOwner(actor);
  const invitee = await db.select({ id: users.id, role: users.role }).from(users).where(eq(users.email, normalizeEmail(input.email))).get();
  if (!invitee || invitee.role !== 'business') {
    throw new ApiError('not_found', 'No site-owner account with that email. Ask them to sign up first, then invite them again.', {
      errors: [{ pointer: '/email', detail: 'No such account.' }],
    });
  }
  const inserted = await db
    .insert(memberships)
    .values({ userId: invitee.id, workspaceId: actor.workspaceId, role: input.role, createdAt: now })
    .onConflictDoNothing()
    .returning({ userId: memberships.userId });
  if (inserted.length === 0) throw new ApiError('conflict', 'That person is already a member of this workspace.');
  await auditInsert(
    db,
    { actorKind: 'user', actorId: actorUserId, requestId },
    { organizationId: actor.organizationId, workspaceId: actor.workspaceId, action: 'membership.added', targetId: invitee.id, metadata: { role: input.role } },
    now,
  );
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
