/**
 * Sending over SMTP from the Worker (docs/design/email.md): the message is composed with mimetext
 * (every display name and the subject as RFC 2047 encoded words, so a quote or a comma in a brand
 * name can never add a mailbox), and sent by our own small client (lib/smtp.ts) over
 * `cloudflare:sockets`, whose every read has a deadline and handles a dropped connection. SMTP
 * errors quote the dialogue, addresses included, so they are scrubbed before anyone stores or
 * logs them (send.ts).
 */
import { connect } from 'cloudflare:sockets';
import { createMimeMessage, Mailbox } from 'mimetext/browser';
import type { Settings } from '../../env';
import { toBase64 } from '../../lib/crypto';
import { type SmtpConnect, type SmtpOptions, sendSmtp } from '../../lib/smtp';
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

const oneLine = (value: string) => value.replace(/[\r\n]+/g, ' ');

/** Base64 in lines of 76 characters, as MIME bodies are written. */
function base64Lines(text: string): string {
  return (toBase64(new TextEncoder().encode(text)).match(/.{1,76}/g) ?? []).join('\r\n');
}

/** The whole RFC 5322 message: text and HTML alternatives, every name and the subject encoded. */
export function composeMime(email: OutgoingEmail, from: { name?: string; email: string }, now: Date): string {
  const message = createMimeMessage();
  const name = email.fromName ?? from.name;
  message.setSender(name ? { addr: from.email, name: oneLine(name) } : { addr: from.email });
  message.setTo({ addr: email.to });
  if (email.replyTo) message.setHeader('Reply-To', new Mailbox({ addr: email.replyTo }, { type: 'To' }));
  message.setSubject(oneLine(email.subject));
  message.setHeader('Date', now.toUTCString().replace(/GMT|UTC/i, '+0000'));
  for (const [header, value] of Object.entries(email.headers)) message.setHeader(header, oneLine(value));
  message.addMessage({ contentType: 'text/plain', data: base64Lines(email.text), encoding: 'base64' });
  message.addMessage({ contentType: 'text/html', data: base64Lines(email.html), encoding: 'base64' });
  return message.asRaw();
}

const cloudflareConnect: SmtpConnect = (host, port, secureTransport) =>
  connect({ hostname: host, port }, { secureTransport, allowHalfOpen: false });

/**
 * The SMTP transport from the settings, or why there is none: no SMTP_HOST; or `none` (plain
 * text) towards anything but a loopback address. A deployed Worker cannot reach loopback, so plain
 * text never leaves the machine: it is for the local sink of `npm run dev` and the tests.
 */
export function smtpTransport(
  settings: Settings,
  socketConnect: SmtpConnect = cloudflareConnect,
): MailTransport | NoTransport {
  const host = settings.SMTP_HOST;
  if (!host) return { skipped: 'No SMTP server is configured (SMTP_HOST).' };
  const loopback = host === '127.0.0.1' || host === 'localhost' || host === '::1';
  if (settings.SMTP_SECURE === 'none' && !loopback) {
    return { skipped: 'SMTP_SECURE=none (plain text) is allowed only towards 127.0.0.1, for local development.' };
  }
  const from = parseMailbox(settings.MAIL_FROM);
  const options: SmtpOptions = {
    host,
    port: settings.SMTP_PORT,
    security: settings.SMTP_SECURE,
    // Only with a username: many relays list AUTH in EHLO without requiring it.
    credentials: settings.SMTP_USERNAME
      ? { username: settings.SMTP_USERNAME, password: settings.SMTP_PASSWORD ?? '' }
      : undefined,
    clientName: from.email.split('@').pop() || 'localhost',
    stepTimeoutMs: settings.SMTP_TIMEOUT_SECONDS * 1000,
    totalTimeoutMs: settings.SMTP_TIMEOUT_SECONDS * 4000,
  };
  return {
    async send(email) {
      await sendSmtp(socketConnect, options, {
        from: from.email,
        to: [email.to],
        data: composeMime(email, from, new Date()),
      });
    },
  };
}
