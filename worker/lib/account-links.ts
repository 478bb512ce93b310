/**
 * Single-use account links (docs/design/identity-and-access.md#password-reset): a link names its
 * row (`atk_…`) and carries the HMAC of that id under the platform's secret, which is never
 * stored, so the database alone cannot make a working link. Made when the email is composed
 * (platform/email), checked when the link is followed (platform/identity).
 */
import { hmacSha256, toHex } from './crypto';
import type { AccountTokenPurpose } from '../vocabulary';

/** How long a password reset link works. */
export const RESET_TTL_MS = 60 * 60 * 1000;
/** How long an email verification link works. */
export const VERIFY_TTL_MS = 24 * 60 * 60 * 1000;

/** Where each kind of link opens. */
const LINK_PATHS: Record<AccountTokenPurpose, string> = {
  password_reset: '/auth/reset/',
  email_verification: '/auth/verify/',
};

/** The secret part of an account link for a token id (bound to its purpose). */
export async function accountLinkSecret(secret: string, purpose: AccountTokenPurpose, tokenId: string) {
  return toHex(await hmacSha256(secret, `${purpose}:${tokenId}`)).slice(0, 48);
}

/** The path of an account link (`/auth/reset/{id}.{secret}`), for the email that carries it. */
export async function accountLinkPath(secret: string, purpose: AccountTokenPurpose, tokenId: string) {
  return `${LINK_PATHS[purpose]}${tokenId}.${await accountLinkSecret(secret, purpose, tokenId)}`;
}
