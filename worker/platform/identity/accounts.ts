/**
 * Accounts of people: sign-up and sign-in (with throttling). A provider sign-up also creates
 * the provider record, in the same batch.
 */
import { eq, sql } from 'drizzle-orm';
import { sha256Hex } from '../../lib/crypto';
import { isConstraintViolation, schema, type Database } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { burnVerification, hashPassword, passwordProblem, verifyPassword } from '../../lib/passwords';
import { clearWindow, readWindows, releaseWindowSlot, windowIncrement } from '../../lib/rate-limit';
import { auditInsert, type AuditContext } from '../audit';
import { clock } from '../../lib/clock';
import { verificationInserts } from './verification';
import { normalizeEmail } from './email-address';

const { users, providers } = schema;

export type AccountRole = 'business' | 'provider';

export const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;
export const ACCOUNT_FAILURE_LIMIT = 5;
export const CLIENT_FAILURE_LIMIT = 20;

export interface SignUpInput {
  email: string;
  password: string;
  role: AccountRole;
  /** The channel whose provider link brought this person. */
  referredByChannelKey?: string;
  /** The console origin of the verification link sent to the address. */
  linkOrigin: string;
}

/** Creates the account (and, for a provider, its provider record in state `registered`). */
export async function signUp(db: Database, pepper: string, input: SignUpInput, now = clock.now()) {
  const email = normalizeEmail(input.email);
  const problem = passwordProblem(input.password, email);
  if (problem)
    throw new ApiError('validation_failed', problem, { errors: [{ pointer: '/password', detail: problem }] });
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
      ...verificationInserts(db, sql`FROM ${users} WHERE ${users.id} = ${userId}`, input.linkOrigin, now),
    ]);
  } catch (error) {
    // Two sign-ups racing for one address: the unique index decides, the loser is told as above.
    if (String(error).includes('UNIQUE'))
      throw new ApiError('email_taken', 'This email cannot be used to sign up. If it is yours, sign in instead.');
    throw error;
  }
  return { id: userId, email, role: input.role, isPlatformAdmin: false, emailVerifiedAt: null };
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
async function takeSignInSlots(
  db: Database,
  subjects: { account: string; client: string },
  now: number,
): Promise<void> {
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
    throw new ApiError(
      'too_many_attempts',
      `Too many failed attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
      {
        headers: { 'Retry-After': String(Math.ceil((resetAt - now) / 1000)) },
      },
    );
  }
}

/**
 * Signs in with email and password. Every attempt first takes a slot (above); a failure keeps
 * it, so the account allows 5 and the client 20 failures per window. A success forgives the
 * account's failures and gives the client its slot back.
 */
export async function signIn(
  db: Database,
  pepper: string,
  input: { email: string; password: string; clientIp: string },
  now = clock.now(),
) {
  const subjects = await throttleSubjects(input.email, input.clientIp);
  await takeSignInSlots(db, subjects, now);

  const user = await db
    .select()
    .from(users)
    .where(eq(users.email, normalizeEmail(input.email)))
    .get();
  // An unknown email costs the same work as a known one, so timing says nothing about it.
  if (!user) await burnVerification(input.password, pepper);
  const verdict = user ? await verifyPassword(input.password, user.passwordHash, pepper) : undefined;
  if (!user || !verdict?.valid) throw invalidCredentials();

  const rehash = verdict.needsRehash ? await hashPassword(input.password, pepper) : undefined;
  await db.batch([
    clearWindow(db, subjects.account),
    releaseWindowSlot(db, subjects.client),
    ...(rehash ? [db.update(users).set({ passwordHash: rehash, updatedAt: now }).where(eq(users.id, user.id))] : []),
  ]);
  return {
    id: user.id,
    email: user.email,
    role: user.role,
    isPlatformAdmin: user.isPlatformAdmin,
    emailVerifiedAt: user.emailVerifiedAt,
  };
}
