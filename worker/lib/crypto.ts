/** Hashing and token helpers on WebCrypto. Secrets are only ever compared through their digests. */
const encoder = new TextEncoder();

export async function sha256Hex(input: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', encoder.encode(input));
  return toHex(new Uint8Array(digest));
}

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
    out = '1' + out;
  }
  return out;
}

/** A bearer secret: prefix + base58 of 24 random bytes (192 bits). */
export function newSecretToken(prefix: 'egk_' | 'egadm_'): string {
  return prefix + base58(crypto.getRandomValues(new Uint8Array(24)));
}

/** What a person may see of a token: its prefix and first characters. */
export function displayPrefix(token: string): string {
  const separator = token.indexOf('_') + 1;
  return token.slice(0, separator + 6);
}
