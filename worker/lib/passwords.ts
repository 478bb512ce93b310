/**
 * Password hashing: PBKDF2-SHA256 at exactly 100,000 iterations, the most Workers production
 * allows (local runs do not enforce the cap, so a test asserts it). The password is first keyed
 * with a server-side pepper (HMAC-SHA256), so a leaked database alone cannot be brute-forced.
 * The stored string carries its parameters, so they can change and old hashes still verify
 * (and get rehashed at the next sign-in).
 */
import { COMMON_PASSWORDS } from './common-passwords';
import { fromBase64, hmacSha256, toBase64 } from './crypto';

export const PBKDF2_ITERATIONS = 100_000;
/** The Workers production limit for PBKDF2 iterations. */
export const WORKERS_PBKDF2_MAX_ITERATIONS = 100_000;
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;
const SALT_BYTES = 16;
const HASH_BITS = 256;

const _encoder = new TextEncoder();

async function pepperedKey(password: string, pepper: string): Promise<CryptoKey> {
  const peppered = await hmacSha256(pepper, password);
  return crypto.subtle.importKey('raw', peppered, 'PBKDF2', false, ['deriveBits']);
}

async function derive(password: string, pepper: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const bits = await crypto.subtle.deriveBits(
    { name: 'PBKDF2', hash: 'SHA-256', salt, iterations },
    await pepperedKey(password, pepper),
    HASH_BITS,
  );
  return new Uint8Array(bits);
}

export interface PasswordHashParameters {
  algorithm: 'pbkdf2-sha256';
  iterations: number;
  salt: Uint8Array;
  hash: Uint8Array;
}

/** The parameters of a stored hash, or undefined when it is not one of ours. */
export function parsePasswordHash(stored: string): PasswordHashParameters | undefined {
  const [algorithm, iterations, salt, hash] = stored.split('$');
  if (algorithm !== 'pbkdf2-sha256' || !iterations || !salt || !hash) return undefined;
  return { algorithm, iterations: Number(iterations), salt: fromBase64(salt), hash: fromBase64(hash) };
}

/** A new hash of the password, with a fresh salt and today's parameters. */
export async function hashPassword(password: string, pepper: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  const hash = await derive(password, pepper, salt, PBKDF2_ITERATIONS);
  return `pbkdf2-sha256$${PBKDF2_ITERATIONS}$${toBase64(salt)}$${toBase64(hash)}`;
}

/** Verifies in constant time; `needsRehash` when the stored parameters are not today's. */
export async function verifyPassword(
  password: string,
  stored: string,
  pepper: string,
): Promise<{ valid: boolean; needsRehash: boolean }> {
  const parameters = parsePasswordHash(stored);
  if (!parameters || parameters.iterations > WORKERS_PBKDF2_MAX_ITERATIONS) return { valid: false, needsRehash: false };
  const candidate = await derive(password, pepper, parameters.salt, parameters.iterations);
  const valid =
    candidate.byteLength === parameters.hash.byteLength && crypto.subtle.timingSafeEqual(candidate, parameters.hash);
  return { valid, needsRehash: valid && parameters.iterations !== PBKDF2_ITERATIONS };
}

/** Spends the same work as a real verification, so an unknown email takes as long as a wrong password. */
export async function burnVerification(password: string, pepper: string): Promise<void> {
  await derive(password, pepper, new Uint8Array(SALT_BYTES), PBKDF2_ITERATIONS);
}

/** Why a new password is refused, or undefined when it is acceptable. */
export function passwordProblem(password: string, email: string): string | undefined {
  if (password.length < PASSWORD_MIN_LENGTH) return `Use at least ${PASSWORD_MIN_LENGTH} characters.`;
  if (password.length > PASSWORD_MAX_LENGTH) return `Use at most ${PASSWORD_MAX_LENGTH} characters.`;
  const normalized = password.toLowerCase();
  if (COMMON_PASSWORDS.has(normalized)) return 'This password is too common. Choose one that is harder to guess.';
  if (normalized === email.toLowerCase() || normalized === email.toLowerCase().split('@')[0]) {
    return 'Do not use your email address as your password.';
  }
  if (/^(.)\1+$/.test(password)) return 'This password is too easy to guess.';
  return undefined;
}
