/**
 * Single-use account links (docs/design/identity-and-access.md#password-reset): a link names its
 * row (`atk_…`) and carries the HMAC of that id under the platform's secret, which is never
 * stored, so the database alone cannot make a working link. Made when the email is composed
 * (platform/email), checked when the link is followed (platform/identity).
 */
import { hmacSha256, toHex } from './crypto';

/** How long a password reset link works. */
export const RESET_TTL_MS = 60 * 60 * 1000;

/** The secret part of a reset link for a token id. */
export async function resetLinkSecret(secret: string, tokenId: string): Promise<string> {
  return toHex(await hmacSha256(secret, `password_reset:${tokenId}`)).slice(0, 48);
}

/** The path of a reset link (`/auth/reset/{id}.{secret}`), for the email that carries it. */
export async function resetLinkPath(secret: string, tokenId: string): Promise<string> {
  return `/auth/reset/${tokenId}.${await resetLinkSecret(secret, tokenId)}`;
}
