/** Base64, the one implementation (signatures, secrets, password hashes, SMTP, MIME bodies). */

/** Bytes as standard base64 (chunked, so any length fits the argument limit). */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let start = 0; start < bytes.length; start += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(start, start + 0x8000));
  return btoa(binary);
}

/** Standard base64 back to bytes. */
export function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
}

/** Bytes as base64url without padding (WebAuthn's encoding). */
export function toBase64Url(bytes: Uint8Array): string {
  return toBase64(bytes).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/** Base64url (padded or not) back to bytes. */
export function fromBase64Url(text: string): Uint8Array<ArrayBuffer> {
  const standard = text.replaceAll('-', '+').replaceAll('_', '/');
  return fromBase64(standard + '='.repeat((4 - (standard.length % 4)) % 4));
}
