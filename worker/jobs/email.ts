/** What the email jobs need, from the entry's services: the SMTP transport and the composer's settings. */
import { emailLinkOrigin } from '../env';
import type { Services } from '../lib/services';
import { parseMailbox, type SendDeps, smtpTransport } from '../platform/email';

/** The dependencies of sending, for the email queue's job. */
export function emailSendDeps(services: Services): SendDeps {
  const { settings } = services;
  const fromDomain = parseMailbox(settings.MAIL_FROM).email.split('@').pop() || 'localhost';
  const signingSecret = settings.SECRETS_KEY ?? settings.PASSWORD_PEPPER;
  return {
    db: services.db,
    queue: services.queues.emails,
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
    now: () => services.clock.now(),
  };
}
