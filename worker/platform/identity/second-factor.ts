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
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { readWindows, windowIncrement } from '../../lib/rate-limit';
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

/**
 * Starts enrolling an authenticator app: a new key (replacing an unconfirmed one), encrypted at
 * rest; answers the key in base32 and its `otpauth://` URI, for the person to add to the app.
 */
export async function startTotpEnrolment(
  db: Database,
  secretsKey: string,
  user: { id: string; email: string },
  now: number,
): Promise<{ key: string; uri: string }> {
  if (await hasSecondFactor(db, user.id))
    throw new ApiError('conflict', 'An authenticator app is already set up: remove it first to set up another.');
  const key = crypto.getRandomValues(new Uint8Array(20));
  const secret = await encryptSecret(encodeBase32NoPadding(key), secretsKey);
  await db.batch([
    db.delete(userFactors).where(eq(userFactors.userId, user.id)),
    db.insert(userFactors).values({ id: newId('fac', now), userId: user.id, kind: 'totp', secret, createdAt: now }),
  ]);
  return {
    key: encodeBase32NoPadding(key),
    uri: createTOTPKeyURI('Edge Gateway', user.email, key, TOTP_PERIOD_S, TOTP_DIGITS),
  };
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
  if (!factor || factor.confirmedAt) throw new ApiError('conflict', 'Start setting up an authenticator app first.');
  if (!(await takeTotp(db, secretsKey, userId, code.trim(), now)))
    throw new ApiError('validation_failed', 'That code is not the one the app shows now. Try the next one.', {
      errors: [{ pointer: '/code', detail: 'That code is not the one the app shows now.' }],
    });
  return newRecoveryCodes(db, userId);
}

/** Removes the account's authenticator app and its recovery codes (the caller checked the password). */
export async function removeSecondFactor(db: Database, userId: string): Promise<void> {
  await db.batch([
    db.delete(userFactors).where(eq(userFactors.userId, userId)),
    db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId)),
  ]);
}

/**
 * Checks a sign-in's second step: a TOTP code, or a recovery code (used once). A locked factor
 * (5 wrong codes in 15 minutes) refuses every code with 429 until the window closes; a wrong code
 * counts towards the lock.
 */
export async function verifySecondFactor(
  db: Database,
  secretsKey: string,
  userId: string,
  code: string,
  now: number,
): Promise<boolean> {
  const subject = lockSubject(userId);
  const [window] = await readWindows(db, [subject], now, FACTOR_LOCK.windowMs);
  if (window && window.count >= FACTOR_LOCK.failures) throw locked(window.resetAt - now);
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
  if (accepted) return true;
  try {
    await windowIncrement(db, subject, now, FACTOR_LOCK.windowMs, FACTOR_LOCK.failures);
  } catch (error) {
    if (!isConstraintViolation(error, 'within_window_limit')) throw error;
    throw locked(FACTOR_LOCK.windowMs);
  }
  return false;
}

function locked(ms: number) {
  const minutes = Math.max(1, Math.ceil(ms / 60_000));
  return new ApiError(
    'too_many_attempts',
    `Too many wrong codes. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
    {
      headers: { 'Retry-After': String(Math.max(1, Math.ceil(ms / 1000))) },
    },
  );
}

/** The signed value of a pending sign-in (the password done): the account and when it ends. */
export async function pendingSignInToken(secret: string, userId: string, now: number): Promise<string> {
  const until = now + PENDING_SIGN_IN_MS;
  return `${userId}.${until}.${toHex(await hmacSha256(secret, `pending:${userId}.${until}`))}`;
}

/** The account of a pending sign-in, when its signature holds and it has not ended. */
export async function readPendingSignIn(secret: string, value: string | undefined, now: number) {
  const [userId, until, signature] = (value ?? '').split('.');
  if (!userId || !until || !signature || Number(until) <= now) return undefined;
  const expected = toHex(await hmacSha256(secret, `pending:${userId}.${until}`));
  return (await secretsEqual(signature, expected)) ? userId : undefined;
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
