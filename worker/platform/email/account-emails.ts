/** Emails about a person's own account (docs/design/email.md): a password reset's link. */
import { eq } from 'drizzle-orm';
import { RESET_TTL_MS, resetLinkPath } from '../../lib/account-links';
import { type Database, schema } from '../../lib/db';
import { addressed, type ComposeSettings, type Composed, type EmailRow } from './composed';
import { passwordResetContent } from './templates';

const { users } = schema;

/**
 * A password reset's link (platform/identity/recovery.ts): its secret is made now from the token
 * the row names, so no stored row holds a working link. Sent even to an address that unsubscribed
 * from notices: the person asked for it.
 */
export async function passwordResetEmail(
  db: Database,
  row: EmailRow,
  settings: ComposeSettings,
  origin: string,
): Promise<Composed> {
  const recipient = await db.select({ email: users.email }).from(users).where(eq(users.id, row.userId!)).get();
  if (!recipient || !row.linkPath) return { skip: 'The account or its link no longer exists.' };
  const url = `${origin}${await resetLinkPath(settings.signingSecret, row.linkPath)}`;
  const content = passwordResetContent(
    { url, minutes: RESET_TTL_MS / 60_000 },
    {
      reason: 'You get this because someone asked to reset the password of your account here.',
      manageUrl: `${origin}/auth/sign-in`,
      manageLabel: 'Sign in',
    },
  );
  return { email: addressed(row, recipient.email, content, undefined, settings) };
}
