/**
 * Email verification (docs/design/identity-and-access.md#email-verification): sign-up sends a
 * single-use link, valid a day, to the address; until it is followed the account signs in but
 * cannot create an organisation, accept an invitation, submit a provider profile or claim a lead
 * (403 `email_unverified`). A changed address is unconfirmed again: a link goes to the new one and
 * a notice to the old one. Links are made and checked as reset links are (recovery.ts).
 */
import { and, eq, isNull, sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { VERIFY_TTL_MS } from '../../lib/account-links';
import { type Database, isConstraintViolation, schema } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { takeSlotOrRefuse } from '../../lib/rate-limit';
import { accountEmailInsert } from '../email';
import { normalizeEmail } from './email-address';
import { readAccountLink } from './recovery';
import { securityEventInsert } from './security-events';
import type { SessionPlace } from './sessions';

const { accountTokens, users } = schema;

/** "Send it again" per account an hour. */
export const RESEND_LIMIT = { max: 3, windowMs: 60 * 60 * 1000 };

/** Refuses (403 `email_unverified`) an account whose address is not confirmed yet. */
export function requireVerifiedEmail(user: { emailVerifiedAt: number | null }): void {
  if (user.emailVerifiedAt === null)
    throw new ApiError(
      'email_unverified',
      'Confirm your email address first: follow the link we sent you, or send it again from the banner.',
    );
}

/**
 * A verification link for the account `account` selects (a FROM … WHERE … of `users`): its token
 * and its email, written only when `when` holds. The link is for the account's address as it is.
 */
export function verificationInserts(
  db: Database,
  account: SQL,
  linkOrigin: string,
  now: number,
  when: SQL = sql`1`,
): BatchItem<'sqlite'>[] {
  const tokenId = newId('atk', now);
  return [
    db.run(sql`INSERT INTO ${accountTokens} (id, user_id, purpose, email, created_at, expires_at)
      SELECT ${tokenId}, ${users.id}, 'email_verification', ${users.email}, ${now}, ${now + VERIFY_TTL_MS}
      ${account} AND ${when}`),
    accountEmailInsert(
      db,
      { kind: 'email_verification', account, subject: 'Confirm your email address', linkOrigin, linkPath: tokenId },
      now,
      sql`${when} AND EXISTS (SELECT 1 FROM ${accountTokens} WHERE ${accountTokens.id} = ${tokenId})`,
    ),
  ];
}

/** Sends a new link to an unconfirmed account (3 an hour); nothing for a confirmed one. */
export async function sendVerificationAgain(db: Database, userId: string, linkOrigin: string, now: number) {
  await takeSlotOrRefuse(db, `verify:acct:${userId}`, now, {
    ...RESEND_LIMIT,
    detail: 'We sent the link three times this hour. Look in your spam folder, or try again later.',
  });
  await db.batch(
    verificationInserts(
      db,
      sql`FROM ${users} WHERE ${users.id} = ${userId}`,
      linkOrigin,
      now,
      sql`${users.emailVerifiedAt} IS NULL` as SQL,
    ) as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]],
  );
}

/**
 * Confirms the address a verification link was sent to, once: only while it is still the
 * account's address, and only by the request that used the link.
 */
export async function verifyEmail(
  db: Database,
  input: { secret: string; link: string; requestId: string },
  now: number,
): Promise<'done' | 'invalid'> {
  const token = await readAccountLink(db, input.secret, 'email_verification', input.link, now);
  if (!token) return 'invalid';
  const usedHere = sql`EXISTS (SELECT 1 FROM ${accountTokens} WHERE ${accountTokens.id} = ${token.tokenId}
    AND ${accountTokens.usedBy} = ${input.requestId})`;
  const [used] = await db.batch([
    db
      .update(accountTokens)
      .set({ usedAt: now, usedBy: input.requestId })
      .where(
        and(
          eq(accountTokens.id, token.tokenId),
          isNull(accountTokens.usedAt),
          sql`${accountTokens.email} = (SELECT ${users.email} FROM ${users} WHERE ${users.id} = ${token.userId})`,
        ),
      )
      .returning({ id: accountTokens.id }),
    db
      .update(users)
      .set({ emailVerifiedAt: now, updatedAt: now })
      .where(and(eq(users.id, token.userId), isNull(users.emailVerifiedAt), usedHere)),
    securityEventInsert(db, { userId: token.userId, kind: 'email_verified' }, now, usedHere),
  ]);
  return used.length === 1 ? 'done' : 'invalid';
}

/**
 * Changes the account's sign-in address (its caller has asked for the password again): the new
 * one is unconfirmed until its link is followed, every earlier link is spent, and the old address
 * is told.
 */
export async function changeEmail(
  db: Database,
  input: { userId: string; newEmail: string; linkOrigin: string; where: SessionPlace },
  now: number,
): Promise<void> {
  const user = await db.select({ email: users.email }).from(users).where(eq(users.id, input.userId)).get();
  if (!user) throw new ApiError('not_found', 'No such account.');
  const email = normalizeEmail(input.newEmail);
  if (email === user.email)
    throw new ApiError('validation_failed', 'That is your address already.', {
      errors: [{ pointer: '/email', detail: 'That is your address already.' }],
    });
  const account = sql`FROM ${users} WHERE ${users.id} = ${input.userId}`;
  // The change holds only if the address was still the old one when it ran (two changes racing).
  const changedHere = sql`(SELECT ${users.email} FROM ${users} WHERE ${users.id} = ${input.userId}) = ${email}`;
  try {
    await db.batch([
      db
        .update(users)
        .set({ email, emailVerifiedAt: null, updatedAt: now })
        .where(and(eq(users.id, input.userId), eq(users.email, user.email))),
      db
        .update(accountTokens)
        .set({ usedAt: now })
        .where(and(eq(accountTokens.userId, input.userId), isNull(accountTokens.usedAt))),
      ...verificationInserts(db, account, input.linkOrigin, now, changedHere),
      accountEmailInsert(
        db,
        {
          kind: 'notice',
          account,
          subject: 'The sign-in email of your account was changed',
          linkOrigin: input.linkOrigin,
          linkPath: '/account/security',
          toAddress: user.email,
        },
        now,
        changedHere,
      ),
      securityEventInsert(db, { userId: input.userId, kind: 'email_changed', where: input.where }, now, changedHere),
    ]);
  } catch (error) {
    if (isConstraintViolation(error, 'users.email'))
      throw new ApiError('email_taken', 'This address cannot be used.', {
        errors: [{ pointer: '/email', detail: 'Choose another address.' }],
      });
    throw error;
  }
}
