/** What the email jobs need, from the Worker's settings: the SMTP transport and the composer's settings. */
import { readSettings, type Bindings } from '../env';
import type { Database } from '../lib/db';
import { emailLinkOrigin, parseMailbox, type SendDeps, smtpTransport } from '../platform/email';

/** The dependencies of sending, for the queue job. */
export function emailSendDeps(env: Bindings, db: Database): SendDeps {
  const settings = readSettings(env);
  const fromDomain = parseMailbox(settings.MAIL_FROM).email.split('@').pop() || 'localhost';
  const signingSecret = settings.SECRETS_KEY ?? settings.PASSWORD_PEPPER;
  return {
    db,
    queue: env.EMAILS,
    transport: smtpTransport(settings),
    compose: signingSecret
      ? {
          signingSecret,
          fromDomain,
          linkOrigin: (stored) => emailLinkOrigin(settings, stored || undefined),
          ...(settings.MAIL_REPLY_DOMAIN ? { replyDomain: settings.MAIL_REPLY_DOMAIN } : {}),
        }
      : { missing: 'SECRETS_KEY is not set: unsubscribe links cannot be signed.' },
    // About a minute first (EMAIL_RETRY_BASE_SECONDS), then doubling, at most 2 hours, for 24 hours.
    retryBaseSeconds: settings.EMAIL_RETRY_BASE_SECONDS,
  };
}
