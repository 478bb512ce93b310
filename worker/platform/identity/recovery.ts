/**
 * Password reset (docs/design/identity-and-access.md#password-reset): `/auth/forgot` asks for a
 * single-use link, valid an hour, sent to the address; following it sets a new password, ends
 * every session of the account and tells its owner by email. Asking answers the same whether or
 * not the address has an account, in the same work (one batch whose writes select the account),
 * and is limited per address and per client. The link is `atk_….<HMAC of the id>`: the secret is
 * made when the email is composed (lib/account-links.ts) and never stored.
 */
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { type Database, schema } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { accountLinkSecret, RESET_TTL_MS } from '../../lib/account-links';
import type { AccountTokenPurpose } from '../../vocabulary';
import { secretsEqual, sha256Hex } from '../../lib/crypto';
import { newId } from '../../lib/ids';
import { hashPassword, passwordProblem } from '../../lib/passwords';
import { takeSlotOrRefuse } from '../../lib/rate-limit';
import { accountEmailInsert } from '../email';
import { normalizeEmail } from './email-address';
import { securityEventInsert } from './security-events';

const { accountTokens, users, userSessions, userFactors, recoveryCodes, userPasskeys } = schema;

/** Reset requests per address and per client an hour (refused with 429 beyond, whoever asks). */
export const RESET_LIMITS = { perAddress: 3, perClient: 10, windowMs: 60 * 60 * 1000 };

/**
 * Asks for a reset link: within the limits, one batch writes a token and its email when the
 * address has an account, and nothing otherwise; the caller answers the same either way.
 */
export async function requestPasswordReset(
  db: Database,
  input: { email: string; clientIp: string; linkOrigin: string },
  now: number,
): Promise<void> {
  const email = normalizeEmail(input.email);
  const detail = 'Too many reset requests. Try again in an hour.';
  const limit = (max: number) => ({ windowMs: RESET_LIMITS.windowMs, max, detail });
  await takeSlotOrRefuse(
    db,
    `reset:ip:${(await sha256Hex(input.clientIp)).slice(0, 32)}`,
    now,
    limit(RESET_LIMITS.perClient),
  );
  await takeSlotOrRefuse(db, `reset:acct:${await sha256Hex(email)}`, now, limit(RESET_LIMITS.perAddress));
  const tokenId = newId('atk', now);
  const account = sql`FROM ${users} WHERE ${users.email} = ${email}`;
  await db.batch([
    db.run(sql`INSERT INTO ${accountTokens} (id, user_id, purpose, email, created_at, expires_at)
      SELECT ${tokenId}, ${users.id}, 'password_reset', ${users.email}, ${now}, ${now + RESET_TTL_MS} ${account}`),
    // The email names the token (its link path); its composer makes the link's secret.
    accountEmailInsert(
      db,
      {
        kind: 'password_reset',
        account,
        subject: 'Reset your password',
        linkOrigin: input.linkOrigin,
        linkPath: tokenId,
      },
      now,
    ),
  ]);
}

/** The account a link of this purpose opens, when it is genuine, unused and not expired; else undefined. */
export async function readAccountLink(
  db: Database,
  secret: string,
  purpose: AccountTokenPurpose,
  link: string,
  now: number,
): Promise<{ tokenId: string; userId: string; email: string } | undefined> {
  const [tokenId, given] = link.split('.');
  if (!tokenId || !given || !/^atk_[0-9a-z]{10,40}$/.test(tokenId)) return undefined;
  if (!(await secretsEqual(given, await accountLinkSecret(secret, purpose, tokenId)))) return undefined;
  const row = await db
    .select({ userId: accountTokens.userId, email: accountTokens.email })
    .from(accountTokens)
    .where(
      and(
        eq(accountTokens.id, tokenId),
        eq(accountTokens.purpose, purpose),
        isNull(accountTokens.usedAt),
        gt(accountTokens.expiresAt, now),
      ),
    )
    .get();
  return row ? { tokenId, ...row } : undefined;
}

/** The account a reset link opens, when it is genuine, unused and not expired; else undefined. */
export function readResetLink(db: Database, secret: string, link: string, now: number) {
  return readAccountLink(db, secret, 'password_reset', link, now);
}

/**
 * Sets a new password from a reset link, in one batch: the link is used (once: a second use, even
 * at the same moment, changes nothing), the password changes, every session of the account ends,
 * every other reset link of it is spent, and its owner is told by email.
 */
export async function resetPassword(
  db: Database,
  input: {
    secret: string;
    pepper: string;
    link: string;
    password: string;
    requestId: string;
    linkOrigin: string;
    /** What the owner chose to remove with it: the authenticator app (and its codes), passkeys by id. */
    remove?: { app: boolean; passkeyIds: string[] };
  },
  now: number,
): Promise<'done' | 'invalid'> {
  const account = await readResetLink(db, input.secret, input.link, now);
  if (!account) return 'invalid';
  const problem = passwordProblem(input.password, account.email);
  if (problem)
    throw new ApiError('validation_failed', problem, { errors: [{ pointer: '/password', detail: problem }] });
  const passwordHash = await hashPassword(input.password, input.pepper);
  const usedHere = sql`EXISTS (SELECT 1 FROM ${accountTokens} WHERE ${accountTokens.id} = ${account.tokenId}
    AND ${accountTokens.usedBy} = ${input.requestId})`;
  const [used] = await db.batch([
    db
      .update(accountTokens)
      .set({ usedAt: now, usedBy: input.requestId })
      .where(and(eq(accountTokens.id, account.tokenId), isNull(accountTokens.usedAt), gt(accountTokens.expiresAt, now)))
      .returning({ id: accountTokens.id }),
    db
      .update(users)
      .set({ passwordHash, updatedAt: now })
      .where(and(eq(users.id, account.userId), usedHere)),
    db.delete(userSessions).where(and(eq(userSessions.userId, account.userId), usedHere)),
    // Ways in that someone else may have added while they held a session: removed when the owner says.
    db
      .delete(userFactors)
      .where(and(eq(userFactors.userId, account.userId), sql`${input.remove?.app ? 1 : 0} = 1`, usedHere)),
    db
      .delete(recoveryCodes)
      .where(and(eq(recoveryCodes.userId, account.userId), sql`${input.remove?.app ? 1 : 0} = 1`, usedHere)),
    db
      .delete(userPasskeys)
      .where(
        and(
          eq(userPasskeys.userId, account.userId),
          sql`${userPasskeys.id} IN (SELECT value FROM json_each(${JSON.stringify(input.remove?.passkeyIds ?? [])}))`,
          usedHere,
        ),
      ),
    securityEventInsert(db, { userId: account.userId, kind: 'password_reset' }, now, usedHere),
    db
      .update(accountTokens)
      .set({ usedAt: now })
      .where(and(eq(accountTokens.userId, account.userId), isNull(accountTokens.usedAt), usedHere)),
    accountEmailInsert(
      db,
      {
        kind: 'notice',
        account: sql`FROM ${users} WHERE ${users.id} = ${account.userId}`,
        subject: 'Your password was changed',
        linkOrigin: input.linkOrigin,
        linkPath: '/auth/sign-in',
      },
      now,
      usedHere,
    ),
  ]);
  return used.length === 1 ? 'done' : 'invalid';
}
