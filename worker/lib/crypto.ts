/** Hashing, HMAC and token helpers on WebCrypto. Secrets are only ever compared through their digests. */
export { fromBase64, toBase64 } from './base64';

const encoder = new TextEncoder();

/** SHA-256 of a UTF-8 string, as lower-case hex: how tokens and secrets are stored and looked up. */
export async function sha256Hex(input: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', encoder.encode(input));
  return toHex(new Uint8Array(digest));
}

/** Bytes as lower-case hex. */
export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
  return out;
}

/**
 * Compares two secrets in constant time. Both sides are hashed first, so neither the content
 * nor the length of the expected secret leaks through timing.
 */
export async function secretsEqual(given: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([
    crypto.subtle.digest('SHA-256', encoder.encode(given)),
    crypto.subtle.digest('SHA-256', encoder.encode(expected)),
  ]);
  return crypto.subtle.timingSafeEqual(a, b);
}

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Bytes in Bitcoin's base58 alphabet (no 0, O, I or l), for tokens people may copy by hand. */
export function base58(bytes: Uint8Array): string {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  let out = '';
  while (value > 0n) {
    out = BASE58[Number(value % 58n)] + out;
    value /= 58n;
  }
  for (const byte of bytes) {
    if (byte !== 0) break;
    out = `1${out}`;
  }
  return out;
}

/**
 * The prefixes of secrets we issue. Each differs from every public id prefix (`key_`, `vs_`…),
 * so a secret is never mistaken for an id, in a log or a form: API keys, admin tokens, visitor
 * session tokens.
 */
export type SecretPrefix = 'egk_' | 'egadm_' | 'egv_' | 'lvt_';

/** A secret token: prefix + base58 of `bytes` random bytes (24 bytes: 192 bits). */
export function newSecretToken(prefix: SecretPrefix, bytes = 24): string {
  return prefix + base58(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** What a person may see of a token: its prefix and first characters. */
export function displayPrefix(token: string): string {
  const separator = token.indexOf('_') + 1;
  return token.slice(0, separator + 6);
}

const utf8 = new TextEncoder();

/** HMAC-SHA-256 of `message` under `key` (raw bytes or a UTF-8 string). */
export async function hmacSha256(key: Uint8Array | string, message: Uint8Array | string): Promise<Uint8Array> {
  const raw = typeof key === 'string' ? utf8.encode(key) : key;
  const imported = await crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(
    await crypto.subtle.sign('HMAC', imported, typeof message === 'string' ? utf8.encode(message) : message),
  );
}
