/**
 * Secrets the platform must be able to read back (the `whsec_` signing secrets of agents, robots
 * and webhooks, and agents' bearer tokens) are stored encrypted: AES-GCM with a fresh 96-bit IV,
 * under a key derived from the SECRETS_KEY secret. A database leak alone reveals none of them.
 */
import { fromBase64, toBase64 } from './crypto';
import { TtlCache } from './ttl-cache';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** One SECRETS_KEY in force, and the one before it during a rotation. */
const keyCache = new TtlCache<Promise<CryptoKey>>(Number.POSITIVE_INFINITY, 4);

/** The AES-256 key of a SECRETS_KEY value (its SHA-256), imported once per isolate. */
function aesKey(secretsKey: string): Promise<CryptoKey> {
  let key = keyCache.peek(secretsKey);
  if (!key) {
    key = crypto.subtle
      .digest('SHA-256', encoder.encode(secretsKey))
      .then((digest) => crypto.subtle.importKey('raw', digest, 'AES-GCM', false, ['encrypt', 'decrypt']));
    keyCache.set(secretsKey, key);
  }
  return key;
}

/** `v1:` + base64(IV ‖ ciphertext ‖ tag). */
export async function encryptSecret(plaintext: string, secretsKey: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, await aesKey(secretsKey), encoder.encode(plaintext)),
  );
  const out = new Uint8Array(iv.length + sealed.length);
  out.set(iv);
  out.set(sealed, iv.length);
  return `v1:${toBase64(out)}`;
}

/** The plaintext of encryptSecret's output; throws when it was tampered with or the key is wrong. */
export async function decryptSecret(stored: string, secretsKey: string): Promise<string> {
  if (!stored.startsWith('v1:')) throw new Error('unknown secret format');
  const bytes = fromBase64(stored.slice(3));
  const plain = await crypto.subtle.decrypt(
    { name: 'AES-GCM', iv: bytes.slice(0, 12) },
    await aesKey(secretsKey),
    bytes.slice(12),
  );
  return decoder.decode(plain);
}

/** After a rotation, the previous signing secret keeps signing beside the new one this long. */
export const SIGNING_SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** The stored (encrypted) signing secrets of an agent, robot or webhook endpoint. */
export interface StoredSigningSecrets {
  current: string | null;
  previous: string | null;
  previousUntil: number | null;
}

/** The signing secrets in force now, decrypted: the current one, and the previous one during its overlap. */
export async function signingSecretsInForce(
  stored: StoredSigningSecrets,
  secretsKey: string,
  now: number,
): Promise<string[]> {
  const secrets: string[] = [];
  if (stored.current) secrets.push(await decryptSecret(stored.current, secretsKey));
  if (stored.previous && (stored.previousUntil ?? 0) > now)
    secrets.push(await decryptSecret(stored.previous, secretsKey));
  return secrets;
}
