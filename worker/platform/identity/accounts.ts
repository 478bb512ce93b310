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
import { type AttemptLimit, settleAttempt, takeAttempt } from '../../lib/attempts';
import { takeSlotOrRefuse, windowIncrement } from '../../lib/rate-limit';
import { accountEmailInsert } from '../email';
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
  /** The client's address: sign-ups of registered addresses are limited per client. */
  clientIp?: string;
}

/** Creates the account (and, for a provider, its provider record in state `registered`). */
export async function signUp(db: Database, pepper: string, input: SignUpInput, now = clock.now()) {
  const email = normalizeEmail(input.email);
  const problem = passwordProblem(input.password, email);
  if (problem)
    throw new ApiError('validation_failed', problem, { errors: [{ pointer: '/password', detail: problem }] });
  const existing = await db.select({ id: users.id }).from(users).where(eq(users.email, email)).get();
  if (existing) {
    await takeSlotOrRefuse(db, `signup:taken:${(await sha256Hex(input.clientIp ?? 'unknown')).slice(0, 32)}`, now, {
      windowMs: TAKEN_SIGN_UP_LIMIT.windowMs,
      max: TAKEN_SIGN_UP_LIMIT.perClient,
      detail: 'Too many sign-ups from this network in the last hour: try again later.',
    });
    await tellOwnerOfSignUpAttempt(db, existing.id, input.linkOrigin, now);
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

/**
 * Sign-ups of registered addresses a client may try an hour: learning which addresses have
 * accounts by trying them one by one costs that much (429 beyond, the address not looked at).
 */
export const TAKEN_SIGN_UP_LIMIT = { perClient: 10, windowMs: 60 * 60 * 1000 };

/**
 * Someone tried to sign up with an address that has an account: its owner is told (once an hour
 * at most), with the way back in if it was them and forgot.
 */
async function tellOwnerOfSignUpAttempt(db: Database, userId: string, linkOrigin: string, now: number) {
  try {
    await windowIncrement(db, `signup:told:${userId}`, now, 60 * 60 * 1000, 1);
  } catch (error) {
    if (isConstraintViolation(error, 'within_window_limit')) return;
    throw error;
  }
  await db.batch([
    accountEmailInsert(
      db,
      {
        kind: 'notice',
        account: sql`FROM ${users} WHERE ${users.id} = ${userId}`,
        subject: 'Someone tried to sign up with your address',
        linkOrigin,
        linkPath: '/auth/forgot',
      },
      now,
    ),
  ]);
}

/** Subjects whose attempts are counted: the account (even when it does not exist) and the client. */
async function throttleSubjects(email: string, clientIp: string) {
  return {
    account: `signin:acct:${await sha256Hex(normalizeEmail(email))}`,
    client: `signin:ip:${(await sha256Hex(clientIp)).slice(0, 32)}`,
  };
}

const invalidCredentials = () => new ApiError('invalid_credentials', 'Email or password is incorrect.');

/** The sign-in's two limits: the account's failures and the client's. */
function signInLimits(subjects: { account: string; client: string }): AttemptLimit[] {
  return [
    { subject: subjects.account, max: ACCOUNT_FAILURE_LIMIT, windowMs: SIGN_IN_WINDOW_MS },
    { subject: subjects.client, max: CLIENT_FAILURE_LIMIT, windowMs: SIGN_IN_WINDOW_MS },
  ];
}

const lockedFor = (minutes: number) =>
  `Too many failed attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;

/**
 * Signs in with email and password. Every attempt first takes a slot of the account's and the
 * client's limits (lib/attempts.ts), so a burst of parallel guesses gets no more than the limit
 * checked: the account allows 5 and the client 20 failures per window. Only failures count: a
 * right password gives its slots back and forgives the account's failures, so right sign-ins in
 * flight at once never lock each other out.
 */
export async function signIn(
  db: Database,
  pepper: string,
  input: { email: string; password: string; clientIp: string },
  now = clock.now(),
) {
  const subjects = await throttleSubjects(input.email, input.clientIp);
  const limits = signInLimits(subjects);
  const began = clock.now();
  // The caller's time, moving on as this attempt waits for others in flight.
  await takeAttempt(db, limits, () => now + (clock.now() - began), lockedFor);

  const user = await db
    .select()
    .from(users)
    .where(eq(users.email, normalizeEmail(input.email)))
    .get();
  // An unknown email costs the same work as a known one, so timing says nothing about it.
  if (!user) await burnVerification(input.password, pepper);
  const verdict = user ? await verifyPassword(input.password, user.passwordHash, pepper) : undefined;
  if (!user || !verdict?.valid) {
    await settleAttempt(db, limits, { failed: true }, now);
    throw invalidCredentials();
  }

  const rehash = verdict.needsRehash ? await hashPassword(input.password, pepper) : undefined;
  await settleAttempt(db, limits, { failed: false, forgive: [subjects.account] }, now);
  if (rehash) await db.update(users).set({ passwordHash: rehash, updatedAt: now }).where(eq(users.id, user.id));
  return {
    id: user.id,
    email: user.email,
    role: user.role,
    isPlatformAdmin: user.isPlatformAdmin,
    emailVerifiedAt: user.emailVerifiedAt,
  };
}
