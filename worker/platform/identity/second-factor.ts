/**
 * A second factor (docs/design/identity-and-access.md#second-factor): an authenticator app's
 * TOTP (RFC 6238: 6 digits, 30 s, the HOTP of @oslojs/otp at the platform's clock) with 10
 * single-use recovery codes kept as hashes. A code is taken once (the factor keeps the last time
 * step taken, and moves it forward in the same statement that accepts a code), one step of drift
 * either way is allowed, and 5 wrong codes in 15 minutes lock the factor for the rest of the
 * window. Between the password and the code, the browser holds a signed 5-minute pending sign-in.
 */
import { decodeBase32IgnorePadding, encodeBase32NoPadding } from '@oslojs/encoding';
import { createTOTPKeyURI, generateHOTP } from '@oslojs/otp';
import { and, eq, isNull, type SQL, sql } from 'drizzle-orm';
import { base58, hmacSha256, secretsEqual, sha256Hex, toHex } from '../../lib/crypto';
import { type Database, isConstraintViolation, schema } from '../../lib/db';
import { readWindows, windowIncrement } from '../../lib/rate-limit';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { settleAttempt, takeAttempt } from '../../lib/attempts';
import { clock } from '../../lib/clock';
import { decryptSecret, encryptSecret } from '../../lib/secrets';

const { userFactors, recoveryCodes, users, userPasskeys } = schema;

/** RFC 6238's defaults, which every authenticator app reads. */
export const TOTP_PERIOD_S = 30;
export const TOTP_DIGITS = 6;
/** Wrong codes a factor takes before it locks, and for how long. */
export const FACTOR_LOCK = { failures: 5, windowMs: 15 * 60 * 1000 };
/** How long a pending sign-in (the password done, the code not yet) lasts. */
export const PENDING_SIGN_IN_MS = 5 * 60 * 1000;
export const RECOVERY_CODES = 10;

const counterAt = (now: number) => Math.floor(now / 1000 / TOTP_PERIOD_S);
const lockSubject = (userId: string) => `factor:${userId}`;

/** SQL: the account has a second factor, a confirmed authenticator app or a passkey. */
export function secondFactorExists(userId: SQL | string): SQL {
  return sql`(EXISTS (SELECT 1 FROM ${userFactors} WHERE ${userFactors.userId} = ${userId}
    AND ${userFactors.confirmedAt} IS NOT NULL) OR EXISTS (SELECT 1 FROM ${userPasskeys}
    WHERE ${userPasskeys.userId} = ${userId}))`;
}

/** Whether the account has a second factor (sign-in then asks for it after the password). */
export async function hasSecondFactor(db: Database, userId: string): Promise<boolean> {
  const [row] = await db.all<{ yes: number }>(sql`SELECT ${secondFactorExists(userId)} AS yes`);
  return row?.yes === 1;
}

/** Which second factors the account has: what its second sign-in step offers. */
export async function secondFactorKinds(db: Database, userId: string): Promise<{ totp: boolean; passkey: boolean }> {
  const [row] = await db.all<{ totp: number; passkey: number }>(sql`SELECT
    EXISTS (SELECT 1 FROM ${userFactors} WHERE ${userFactors.userId} = ${userId}
      AND ${userFactors.confirmedAt} IS NOT NULL) AS totp,
    EXISTS (SELECT 1 FROM ${userPasskeys} WHERE ${userPasskeys.userId} = ${userId}) AS passkey`);
  return { totp: row?.totp === 1, passkey: row?.passkey === 1 };
}

/** The account's factor as its security page shows it. */
export async function secondFactorStatus(db: Database, userId: string) {
  const factor = await db.select().from(userFactors).where(eq(userFactors.userId, userId)).get();
  const [left] = await db.all<{ n: number }>(
    sql`SELECT count(*) AS n FROM ${recoveryCodes} WHERE user_id = ${userId} AND used_at IS NULL`,
  );
  return {
    confirmedAt: factor?.confirmedAt ?? null,
    pending: Boolean(factor && !factor.confirmedAt),
    codesLeft: left?.n ?? 0,
  };
}

/** A key to add to an authenticator app: base32, and its `otpauth://` URI. */
export interface TotpEnrolment {
  key: string;
  uri: string;
}

const enrolmentOf = (key: Uint8Array, email: string): TotpEnrolment => ({
  key: encodeBase32NoPadding(key),
  uri: createTOTPKeyURI('Edge Gateway', email, key, TOTP_PERIOD_S, TOTP_DIGITS),
});

/** The app being set up (a key not yet confirmed by a code), if there is one: shown again until a code is right. */
export async function pendingEnrolment(
  db: Database,
  secretsKey: string,
  user: { id: string; email: string },
): Promise<TotpEnrolment | undefined> {
  const factor = await db.select().from(userFactors).where(eq(userFactors.userId, user.id)).get();
  if (!factor || factor.confirmedAt) return undefined;
  return enrolmentOf(await keyOf(factor.secret, secretsKey), user.email);
}

/** Stops setting up an app: the unconfirmed key goes (a confirmed app is removed only with the password). */
export async function cancelTotpEnrolment(db: Database, userId: string): Promise<void> {
  await db.delete(userFactors).where(and(eq(userFactors.userId, userId), isNull(userFactors.confirmedAt)));
}

/**
 * Starts enrolling an authenticator app: a new key, encrypted at rest, or the one already being
 * set up (the person may have scanned it: a second start never changes it); answers the key in
 * base32 and its `otpauth://` URI, for the person to add to the app.
 */
export async function startTotpEnrolment(
  db: Database,
  secretsKey: string,
  user: { id: string; email: string },
  now: number,
): Promise<TotpEnrolment> {
  const [kinds, pending] = await Promise.all([secondFactorKinds(db, user.id), pendingEnrolment(db, secretsKey, user)]);
  if (kinds.totp)
    throw new ApiError('conflict', 'An authenticator app is already set up: remove it first to set up another.');
  if (pending) return pending;
  const key = crypto.getRandomValues(new Uint8Array(20));
  const secret = await encryptSecret(encodeBase32NoPadding(key), secretsKey);
  await db.batch([
    db.delete(userFactors).where(eq(userFactors.userId, user.id)),
    db.insert(userFactors).values({ id: newId('fac', now), userId: user.id, kind: 'totp', secret, createdAt: now }),
  ]);
  return enrolmentOf(key, user.email);
}

/** A factor's key, decrypted. */
async function keyOf(stored: string, secretsKey: string): Promise<Uint8Array> {
  return decodeBase32IgnorePadding(await decryptSecret(stored, secretsKey));
}

/**
 * Takes a TOTP code for the factor: the time step it matches (now, or one either side) must be
 * later than the last taken, and moves it forward in the same statement (a code works once).
 */
async function takeTotp(db: Database, secretsKey: string, userId: string, code: string, now: number) {
  const factor = await db.select().from(userFactors).where(eq(userFactors.userId, userId)).get();
  if (!factor) return false;
  const key = await keyOf(factor.secret, secretsKey);
  const current = counterAt(now);
  for (const counter of [current - 1, current, current + 1]) {
    if (!(await secretsEqual(code, generateHOTP(key, BigInt(counter), TOTP_DIGITS)))) continue;
    const taken = await db
      .update(userFactors)
      .set({ lastCounter: counter, confirmedAt: factor.confirmedAt ?? now })
      .where(
        and(
          eq(userFactors.id, factor.id),
          sql`(${userFactors.lastCounter} IS NULL OR ${userFactors.lastCounter} < ${counter})`,
        ),
      )
      .returning({ id: userFactors.id });
    return taken.length === 1;
  }
  return false;
}

/** Ten new recovery codes (`xxxxx-xxxxx`), replacing the account's old ones; answered once, kept as hashes. */
async function newRecoveryCodes(db: Database, userId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODES }, () => {
    const raw = base58(crypto.getRandomValues(new Uint8Array(8)))
      .slice(0, 10)
      .toLowerCase()
      .padEnd(10, 'x');
    return `${raw.slice(0, 5)}-${raw.slice(5)}`;
  });
  const hashes = await Promise.all(codes.map((code) => sha256Hex(normalizedCode(code))));
  await db.batch([
    db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId)),
    db.insert(recoveryCodes).values(hashes.map((codeHash) => ({ userId, codeHash }))),
  ]);
  return codes;
}

const normalizedCode = (code: string) => code.toLowerCase().replace(/[^0-9a-z]/g, '');

/** Confirms a new authenticator app with its first code; answers the recovery codes (shown once). */
export async function confirmTotp(
  db: Database,
  secretsKey: string,
  userId: string,
  code: string,
  now: number,
): Promise<string[]> {
  const factor = await db.select().from(userFactors).where(eq(userFactors.userId, userId)).get();
  if (factor?.confirmedAt) throw alreadyOn();
  if (!factor) throw new ApiError('conflict', 'Start setting up an authenticator app first.');
  if (!(await takeTotp(db, secretsKey, userId, code.trim(), now))) {
    // Two confirmations at once: the one that lost says what happened, not that its code was wrong.
    const after = await db.select().from(userFactors).where(eq(userFactors.userId, userId)).get();
    if (after?.confirmedAt) throw alreadyOn();
    throw new ApiError(
      'validation_failed',
      'That code is not the one the app shows now. Check the app and try again.',
      {
        errors: [
          { pointer: '/code', detail: 'That code is not the one the app shows now: check the app and try again.' },
        ],
      },
    );
  }
  return newRecoveryCodes(db, userId);
}

const alreadyOn = () =>
  new ApiError('conflict', 'Two-step sign-in is already on: it was turned on a moment ago (perhaps in another tab).');

/** Removes the account's authenticator app and its recovery codes (the caller checked the password). */
export async function removeSecondFactor(db: Database, userId: string): Promise<void> {
  await db.batch([
    db.delete(userFactors).where(eq(userFactors.userId, userId)),
    db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId)),
  ]);
}

/**
 * Checks a sign-in's second step: a TOTP code, or a recovery code (used once). Each code first
 * takes an attempt slot (lib/attempts.ts), so 5 wrong codes in 15 minutes lock the factor even when
 * sent at once with the right one: a locked factor refuses every code with 429 until the window
 * closes. A wrong code counts towards the lock; a right one gives its slot back.
 */
export async function verifySecondFactor(
  db: Database,
  secretsKey: string,
  userId: string,
  code: string,
  now: number,
): Promise<boolean> {
  const limits = [{ subject: lockSubject(userId), max: FACTOR_LOCK.failures, windowMs: FACTOR_LOCK.windowMs }];
  const began = clock.now();
  await takeAttempt(db, limits, () => now + (clock.now() - began), lockedMessage);
  const given = code.trim();
  const accepted = /^\d{6}$/.test(given)
    ? await takeTotp(db, secretsKey, userId, given, now)
    : (
        await db
          .update(recoveryCodes)
          .set({ usedAt: now })
          .where(
            and(
              eq(recoveryCodes.userId, userId),
              eq(recoveryCodes.codeHash, await sha256Hex(normalizedCode(given))),
              isNull(recoveryCodes.usedAt),
            ),
          )
          .returning({ userId: recoveryCodes.userId })
      ).length === 1;
  await settleAttempt(db, limits, { failed: !accepted }, now);
  return accepted;
}

const lockedMessage = (minutes: number) =>
  `Too many wrong codes. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;

/** The signed value of a pending sign-in (the password done): the account, when it ends, and a nonce that spends it. */
export async function pendingSignInToken(secret: string, userId: string, now: number): Promise<string> {
  const until = now + PENDING_SIGN_IN_MS;
  const nonce = base58(crypto.getRandomValues(new Uint8Array(12)));
  return `${userId}.${until}.${nonce}.${toHex(await hmacSha256(secret, `pending:${userId}.${until}.${nonce}`))}`;
}

/** Where a spent pending sign-in is noted (a window that outlives the sign-in it spends). */
const spentKey = (nonce: string) => `pending-spent:${nonce}`;

/**
 * The account of a pending sign-in, when its signature holds, it has not ended, and it has not
 * been spent (the session it opened spends it: a copy of its cookie opens nothing after).
 */
export async function readPendingSignIn(db: Database, secret: string, value: string | undefined, now: number) {
  const [userId, until, nonce, signature] = (value ?? '').split('.');
  if (!userId || !until || !nonce || !signature || Number(until) <= now) return undefined;
  const expected = toHex(await hmacSha256(secret, `pending:${userId}.${until}.${nonce}`));
  if (!(await secretsEqual(signature, expected))) return undefined;
  const spent = await readWindows(db, [spentKey(nonce)], now, PENDING_SIGN_IN_MS);
  return spent.length > 0 ? undefined : userId;
}

/**
 * Spends a pending sign-in as its session starts; false when it was spent already (two finishes
 * of one pending sign-in at once: one wins).
 */
export async function spendPendingSignIn(db: Database, value: string | undefined, now: number): Promise<boolean> {
  const nonce = (value ?? '').split('.')[2];
  if (!nonce) return false;
  try {
    await windowIncrement(db, spentKey(nonce), now, PENDING_SIGN_IN_MS, 1);
    return true;
  } catch (error) {
    if (isConstraintViolation(error, 'within_window_limit')) return false;
    throw error;
  }
}

/** The account a pending sign-in finishes, as a session holds it. */
export async function pendingSignInUser(db: Database, userId: string) {
  return db
    .select({
      id: users.id,
      email: users.email,
      role: users.role,
      isPlatformAdmin: users.isPlatformAdmin,
      emailVerifiedAt: users.emailVerifiedAt,
    })
    .from(users)
    .where(eq(users.id, userId))
    .get();
}
