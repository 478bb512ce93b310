/** What composing an email makes and needs (docs/design/email.md), shared by every kind's composer. */
import type { schema } from '../../lib/db';
import type { ComposedContent } from './templates';
import type { OutgoingEmail } from './transport';

/** An outbox row. */
export type EmailRow = typeof schema.emails.$inferSelect;

/** What composing needs besides the database. */
export interface ComposeSettings {
  /** Signs the unsubscribe links (SECRETS_KEY). */
  signingSecret: string;
  /** The sender's domain: Message-IDs are `<{email id}@{domain}>`. */
  fromDomain: string;
  /** Where visitors' replies come back (`reply+{key}@…`), when Email Routing is set up. */
  replyDomain?: string;
  /** The origin of the links, given the one the row was written with ('': none; see emailLinkOrigin). */
  linkOrigin(stored: string): string;
}

/** An email to send, and what the row records when it goes. */
export type Composed = { email: OutgoingEmail; upToMessageId?: string } | { skip: string };

/** An email addressed to `to`, with its Message-ID, and a one-click unsubscribe link when it has one. */
export function addressed(
  row: EmailRow,
  to: string,
  content: ComposedContent,
  unsubscribeUrl: string | undefined,
  settings: ComposeSettings,
  replyTo?: string,
): OutgoingEmail {
  return {
    to,
    ...content,
    ...(replyTo ? { replyTo } : {}),
    headers: {
      'Message-ID': `<${row.id}@${settings.fromDomain}>`,
      // An email the person asked for (a reset link) has nothing to unsubscribe from.
      ...(unsubscribeUrl
        ? { 'List-Unsubscribe': `<${unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' }
        : {}),
      // Autoresponders stay quiet, and a vacation reply never becomes a message of the conversation.
      'Auto-Submitted': 'auto-generated',
    },
  };
}
