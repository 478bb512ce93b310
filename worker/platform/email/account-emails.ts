/** Emails about a person's own account (docs/design/email.md): a password reset's or a verification's link. */
import { and, eq } from 'drizzle-orm';
import { accountLinkPath, RESET_TTL_MS, VERIFY_TTL_MS } from '../../lib/account-links';
import { type Database, schema } from '../../lib/db';
import { addressed, type ComposeSettings, type Composed, type EmailRow } from './composed';
import { emailVerificationContent, passwordResetContent } from './templates';

const { users, accountTokens } = schema;

/**
 * A single-use account link (platform/identity): its secret is made now from the token the row
 * names, so no stored row holds a working link. It goes to the address the token was made for,
 * and not at all when the account's address has changed since. Sent even to an address that
 * unsubscribed from notices: the person asked for it.
 */
export async function accountLinkEmail(
  db: Database,
  row: EmailRow,
  settings: ComposeSettings,
  origin: string,
): Promise<Composed> {
  const purpose = row.kind === 'email_verification' ? 'email_verification' : 'password_reset';
  const token = row.linkPath
    ? await db
        .select({ email: accountTokens.email, current: users.email })
        .from(accountTokens)
        .innerJoin(users, eq(users.id, accountTokens.userId))
        .where(and(eq(accountTokens.id, row.linkPath), eq(accountTokens.purpose, purpose)))
        .get()
    : undefined;
  if (!token || token.email !== token.current) return { skip: 'The account, its link or its address has changed.' };
  const url = `${origin}${await accountLinkPath(settings.signingSecret, purpose, row.linkPath!)}`;
  const footer = {
    reason:
      purpose === 'password_reset'
        ? 'You get this because someone asked to reset the password of your account here.'
        : 'You get this because this address was given for an account here.',
    manageUrl: `${origin}/auth/sign-in`,
    manageLabel: 'Sign in',
  };
  const content =
    purpose === 'password_reset'
      ? passwordResetContent({ url, minutes: RESET_TTL_MS / 60_000 }, footer)
      : emailVerificationContent({ url, hours: VERIFY_TTL_MS / 3_600_000 }, footer);
  return { email: addressed(row, token.email, content, undefined, settings) };
}
