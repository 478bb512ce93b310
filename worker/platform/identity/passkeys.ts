/**
 * Passkeys (docs/design/identity-and-access.md#passkeys): WebAuthn credentials, checked by
 * lib/webauthn.ts. A passkey signs in on its own (the authenticator verified its user, so
 * it is both factors), or stands as the second factor after the password. Every ceremony's
 * challenge is kept for five minutes and taken once: the verification deletes it, so a replayed
 * answer finds nothing. The relying party is the console's configured origin, never a request's
 * Host, so a look-alike site relaying our pages cannot use an answer.
 */
import { and, asc, eq, gt, isNull, or, sql } from 'drizzle-orm';
import { z } from 'zod';
import { toBase64Url } from '../../lib/base64';
import { COSE_ALGORITHMS, verifyAssertion, verifyRegistration } from '../../lib/webauthn';
import { type Database, schema } from '../../lib/db';
import { ApiError } from '../../lib/errors';

const { passkeyChallenges, userPasskeys } = schema;

/** Who the passkeys are for: the console's origin and its host name. */
export interface RelyingParty {
  id: string;
  origin: string;
  name: string;
}

/** How long a ceremony's challenge waits for its answer. */
export const CHALLENGE_TTL_MS = 5 * 60 * 1000;
/** Passkeys an account may hold. */
export const MAX_PASSKEYS = 10;

const base64url = z
  .string()
  .max(16_384)
  .regex(/^[A-Za-z0-9_-]*$/);
const credentialBase = {
  id: base64url.max(1_400),
  rawId: base64url.max(1_400),
  type: z.literal('public-key'),
  clientExtensionResults: z.record(z.string(), z.unknown()),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
};
/** A browser's answer to navigator.credentials.create(), as @simplewebauthn/browser sends it. */
const registrationSchema = z.object({
  ...credentialBase,
  response: z.object({
    clientDataJSON: base64url,
    attestationObject: base64url,
    transports: z.array(z.string().max(20)).max(8).optional(),
    authenticatorData: base64url.optional(),
    publicKey: base64url.optional(),
    publicKeyAlgorithm: z.number().int().optional(),
  }),
});
/** A browser's answer to navigator.credentials.get(). */
const authenticationSchema = z.object({
  ...credentialBase,
  response: z.object({
    clientDataJSON: base64url,
    authenticatorData: base64url,
    signature: base64url,
    userHandle: base64url.optional(),
  }),
});

const refused = () => new ApiError('invalid_credentials', 'That passkey could not be checked. Try again.');

/** The answer the browser sent (JSON text), in its shape, or a refusal. */
function parseAnswer<T extends z.ZodType>(schemaOf: T, text: string): z.infer<T> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw refused();
  }
  const parsed = schemaOf.safeParse(value);
  if (!parsed.success) throw refused();
  return parsed.data;
}

/** 32 random bytes, base64url: a ceremony's challenge. */
const newChallenge = () => toBase64Url(crypto.getRandomValues(new Uint8Array(32)));

/** A stored passkey as the browser is told of it (to exclude, or to allow). */
const credentialDescriptor = (passkey: { id: string; transports: string | null }) => ({
  type: 'public-key',
  id: passkey.id,
  ...(passkey.transports ? { transports: JSON.parse(passkey.transports) as string[] } : {}),
});

async function keepChallenge(
  db: Database,
  challenge: string,
  purpose: 'register' | 'sign_in',
  userId: string | null,
  now: number,
) {
  await db.batch([
    db.delete(passkeyChallenges).where(sql`${passkeyChallenges.expiresAt} <= ${now}`),
    db.insert(passkeyChallenges).values({ challenge, purpose, userId, expiresAt: now + CHALLENGE_TTL_MS }),
  ]);
}

/**
 * Takes a challenge once: it is deleted by the statement that finds it, for its purpose and
 * account (a sign-in's without one may be answered by any passkey).
 */
function challengeTaker(db: Database, purpose: 'register' | 'sign_in', userId: string | null, now: number) {
  return async (challenge: string) => {
    const owner = userId === null ? isNull(passkeyChallenges.userId) : eq(passkeyChallenges.userId, userId);
    const taken = await db
      .delete(passkeyChallenges)
      .where(
        and(
          eq(passkeyChallenges.challenge, challenge),
          eq(passkeyChallenges.purpose, purpose),
          gt(passkeyChallenges.expiresAt, now),
          purpose === 'sign_in' && userId !== null ? or(owner, isNull(passkeyChallenges.userId)) : owner,
        ),
      )
      .returning({ challenge: passkeyChallenges.challenge });
    return taken.length === 1;
  };
}

/** The account's passkeys, oldest first. */
export async function listPasskeys(db: Database, userId: string) {
  return db
    .select({
      id: userPasskeys.id,
      name: userPasskeys.name,
      createdAt: userPasskeys.createdAt,
      lastUsedAt: userPasskeys.lastUsedAt,
    })
    .from(userPasskeys)
    .where(eq(userPasskeys.userId, userId))
    .orderBy(asc(userPasskeys.createdAt));
}

/** Options for adding a passkey to a signed-in account (its existing ones excluded). */
export async function passkeyRegistrationOptions(
  db: Database,
  user: { id: string; email: string },
  rp: RelyingParty,
  now: number,
) {
  const existing = await db
    .select({ id: userPasskeys.id, transports: userPasskeys.transports })
    .from(userPasskeys)
    .where(eq(userPasskeys.userId, user.id));
  if (existing.length >= MAX_PASSKEYS)
    throw new ApiError('conflict', `An account holds at most ${MAX_PASSKEYS} passkeys: remove one first.`);
  // The browser's PublicKeyCredentialCreationOptionsJSON: a discoverable key, its user verified.
  const options = {
    challenge: newChallenge(),
    rp: { name: rp.name, id: rp.id },
    user: { id: toBase64Url(new TextEncoder().encode(user.id)), name: user.email, displayName: user.email },
    pubKeyCredParams: COSE_ALGORITHMS.map((alg) => ({ type: 'public-key', alg })),
    timeout: CHALLENGE_TTL_MS,
    attestation: 'none',
    excludeCredentials: existing.map(credentialDescriptor),
    authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
  };
  await keepChallenge(db, options.challenge, 'register', user.id, now);
  return options;
}

/** Adds the passkey a registration answer made, named by its owner; answers its id. */
export async function addPasskey(
  db: Database,
  userId: string,
  input: { name: string; answer: string },
  rp: RelyingParty,
  now: number,
): Promise<string> {
  const answer = parseAnswer(registrationSchema, input.answer);
  const credential = await verifyRegistration(
    { id: answer.id, ...answer.response },
    { takeChallenge: challengeTaker(db, 'register', userId, now), origin: rp.origin, rpId: rp.id },
  ).catch(() => undefined);
  if (!credential) throw refused();
  const transports = answer.response.transports;
  const inserted = await db
    .insert(userPasskeys)
    .values({
      id: credential.id,
      userId,
      name: input.name,
      publicKey: credential.publicKey,
      counter: credential.counter,
      transports: transports ? JSON.stringify(transports) : null,
      createdAt: now,
    })
    .onConflictDoNothing()
    .returning({ id: userPasskeys.id });
  if (inserted.length === 0) throw new ApiError('conflict', 'This passkey is already registered.');
  return credential.id;
}

/**
 * Options for a sign-in with a passkey: any of the account's when `userId` is given (the second
 * step after a password), else any passkey at all (the browser offers the ones it holds).
 */
export async function passkeySignInOptions(db: Database, rp: RelyingParty, now: number, userId?: string) {
  const allowed = userId
    ? await db
        .select({ id: userPasskeys.id, transports: userPasskeys.transports })
        .from(userPasskeys)
        .where(eq(userPasskeys.userId, userId))
    : [];
  const options = {
    challenge: newChallenge(),
    rpId: rp.id,
    timeout: CHALLENGE_TTL_MS,
    userVerification: 'required',
    allowCredentials: allowed.map(credentialDescriptor),
  };
  await keepChallenge(db, options.challenge, 'sign_in', userId ?? null, now);
  return options;
}

/**
 * The account a sign-in answer proves, or a refusal: its passkey must exist (and be the account's
 * when `userId` is given), its challenge unused, its signature good and its user verified. The
 * signature counter moves forward only from the value read, so two uses of one answer cannot both pass.
 */
export async function verifyPasskeySignIn(
  db: Database,
  answer: string,
  rp: RelyingParty,
  now: number,
  userId?: string,
): Promise<string> {
  const response = parseAnswer(authenticationSchema, answer);
  const passkey = await db.select().from(userPasskeys).where(eq(userPasskeys.id, response.id)).get();
  if (!passkey || (userId !== undefined && passkey.userId !== userId)) throw refused();
  const counter = await verifyAssertion(response.response, passkey, {
    takeChallenge: challengeTaker(db, 'sign_in', userId ?? null, now),
    origin: rp.origin,
    rpId: rp.id,
  }).catch(() => undefined);
  if (counter === undefined) throw refused();
  const moved = await db
    .update(userPasskeys)
    .set({ counter, lastUsedAt: now })
    .where(and(eq(userPasskeys.id, passkey.id), eq(userPasskeys.counter, passkey.counter)))
    .returning({ userId: userPasskeys.userId });
  if (moved.length !== 1) throw refused();
  return passkey.userId;
}

/** Renames one of the account's passkeys; false when it has no such passkey. */
export async function renamePasskey(db: Database, userId: string, id: string, name: string): Promise<boolean> {
  const renamed = await db
    .update(userPasskeys)
    .set({ name })
    .where(and(eq(userPasskeys.id, id), eq(userPasskeys.userId, userId)))
    .returning({ id: userPasskeys.id });
  return renamed.length === 1;
}

/** Removes one of the account's passkeys; false when it has no such passkey. */
export async function removePasskey(db: Database, userId: string, id: string): Promise<boolean> {
  const removed = await db
    .delete(userPasskeys)
    .where(and(eq(userPasskeys.id, id), eq(userPasskeys.userId, userId)))
    .returning({ id: userPasskeys.id });
  return removed.length === 1;
}
