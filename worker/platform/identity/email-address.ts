/** How account addresses compare. */

/** Emails are compared trimmed and lower-cased: one account per address. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
