/**
 * Sending over SMTP from the Worker (PRODUCT.md section 14), through `cloudflare:sockets`, with
 * worker-mailer: maintained, MIT, its only import is `cloudflare:sockets`, and it writes proper
 * MIME (quoted-printable text and HTML parts, custom headers). Two things it does not do, done
 * here: with STARTTLS asked for, it would go on in plain text (credentials included) when the
 * server does not offer STARTTLS, so that refuses; and its error messages quote the SMTP dialogue,
 * addresses included, so they are scrubbed before anyone stores or logs them.
 */
import { LogLevel, WorkerMailer } from 'worker-mailer';
import type { Settings } from '../../env';
import { parseMailbox } from './addresses';

/** One email, ready to go: the composer's output. */
export interface OutgoingEmail {
  to: string;
  subject: string;
  text: string;
  html: string;
  replyTo?: string;
  /** The sender's display name, when not the platform's (a site's brand, to its visitors). */
  fromName?: string;
  /** Extra headers (List-Unsubscribe, Message-ID…); values never contain line breaks. */
  headers: Record<string, string>;
}

/** What sends an email: SMTP in production, a recorder in tests. */
export interface MailTransport {
  send(email: OutgoingEmail): Promise<void>;
}

/** Why no transport: emails are then recorded as skipped, with this reason. */
export type NoTransport = { skipped: string };

type MailerOptions = Parameters<typeof WorkerMailer.connect>[0];

/** The library's own steps, which the guard below wraps (they are private in its types). */
interface MailerSteps {
  tls(): Promise<void>;
  auth(): Promise<void>;
  initializeSmtpSession(): Promise<void>;
  start(): Promise<void>;
  send(email: unknown): Promise<void>;
  close(error?: Error): Promise<void>;
}

const MailerBase = WorkerMailer as unknown as new (options: MailerOptions) => MailerSteps;

/** worker-mailer, refusing to authenticate or send unless STARTTLS took place when it was required. */
class StrictStartTlsMailer extends MailerBase {
  private upgraded = false;

  constructor(
    options: MailerOptions,
    private readonly requireStartTls: boolean,
  ) {
    super(options);
  }

  override async tls(): Promise<void> {
    await super.tls();
    this.upgraded = true;
  }

  override async auth(): Promise<void> {
    if (this.requireStartTls && !this.upgraded) {
      throw new Error('The SMTP server did not offer STARTTLS; nothing is sent in plain text (SMTP_SECURE=starttls).');
    }
    await super.auth();
  }

  static async open(options: MailerOptions, requireStartTls: boolean): Promise<StrictStartTlsMailer> {
    const mailer = new StrictStartTlsMailer(options, requireStartTls);
    try {
      await mailer.initializeSmtpSession();
    } catch (error) {
      await mailer.close(error as Error).catch(() => undefined);
      throw error;
    }
    void mailer.start().catch(() => undefined);
    return mailer;
  }
}

const oneLine = (value: string) => value.replace(/[\r\n]+/g, ' ');

/**
 * The SMTP transport from the settings, or why there is none: no SMTP_HOST; or `none` (plain
 * text) towards anything but a loopback address. A deployed Worker cannot reach loopback, so plain
 * text never leaves the machine: it is for the local sink of `npm run dev` and the tests.
 */
export function smtpTransport(settings: Settings): MailTransport | NoTransport {
  const host = settings.SMTP_HOST;
  if (!host) return { skipped: 'No SMTP server is configured (SMTP_HOST).' };
  const loopback = host === '127.0.0.1' || host === 'localhost' || host === '::1';
  if (settings.SMTP_SECURE === 'none' && !loopback) {
    return { skipped: 'SMTP_SECURE=none (plain text) is allowed only towards 127.0.0.1, for local development.' };
  }
  const options: MailerOptions = {
    host,
    port: settings.SMTP_PORT,
    secure: settings.SMTP_SECURE === 'tls',
    startTls: settings.SMTP_SECURE === 'starttls',
    ...(settings.SMTP_USERNAME
      ? { credentials: { username: settings.SMTP_USERNAME, password: settings.SMTP_PASSWORD ?? '' } }
      : {}),
    authType: ['plain', 'login'],
    logLevel: LogLevel.NONE,
    socketTimeoutMs: 15_000,
    responseTimeoutMs: 15_000,
  };
  const from = parseMailbox(settings.MAIL_FROM);
  return {
    async send(email) {
      const mailer = await StrictStartTlsMailer.open(options, settings.SMTP_SECURE === 'starttls');
      try {
        await mailer.send({
          from: email.fromName ? { name: oneLine(email.fromName), email: from.email } : from,
          to: email.to,
          ...(email.replyTo ? { reply: email.replyTo } : {}),
          subject: oneLine(email.subject),
          text: email.text,
          html: email.html,
          headers: Object.fromEntries(Object.entries(email.headers).map(([name, value]) => [name, oneLine(value)])),
        });
      } finally {
        await mailer.close().catch(() => undefined);
      }
    },
  };
}
