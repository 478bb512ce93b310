/** @jsxImportSource hono/jsx */
/**
 * The emails' words and layout (docs/design/email.md): each has a plain-text part and an HTML
 * part with the same content. The HTML is one centred column of tables with inline styles (what
 * mail clients render alike), escaped by JSX; nothing is loaded from elsewhere.
 */
import type { Child } from 'hono/jsx';
import { directionOf, type Language, visitorMessages } from '../../lib/i18n';
import { withoutContactDetails } from '../../lib/redact';

/** An email's content before it is addressed. */
export interface ComposedContent {
  subject: string;
  text: string;
  html: string;
}

/** What every email ends with: why it came, and the way out. */
export interface EmailFooter {
  reason: string;
  /** The preferences page (experts) or the one-click unsubscribe page (visitors). */
  manageUrl: string;
  manageLabel: string;
}

/** A lead as an alert shows it: never contact details. */
export interface AlertItem {
  reference: string;
  domain: string;
  topic: string | null;
  urgency: string;
  channelName: string | null;
  excerpt: string;
  leadUrl: string;
}

/** A reply as the visitor's email shows it. */
export interface ReplyItem {
  author: string;
  text: string;
  at: string;
}

/** The first 300 characters of a message, with any address or phone number written in it removed. */
export function alertExcerpt(text: string | null): string {
  const cleaned = withoutContactDetails(text ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  return cleaned.length > 300 ? `${cleaned.slice(0, 299)}…` : cleaned;
}

const font = 'font-family:-apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;';

function Layout({
  preheader,
  children,
  footer,
  brand = 'Edge Gateway',
  language = 'en',
}: {
  preheader: string;
  children: Child;
  footer: EmailFooter;
  /** Who the email speaks for: the platform to experts, the site's own brand to its visitors. */
  brand?: string;
  /** The language it is written in: a visitor's email speaks the conversation's (right to left for ar, he). */
  language?: Language;
}) {
  return (
    <html lang={language} dir={directionOf(language)}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light" />
      </head>
      <body style={`margin:0;padding:0;background:#f3f4f6;${font}color:#111827;`}>
        <div style="display:none;max-height:0;overflow:hidden;">{preheader}</div>
        <table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f3f4f6;">
          <tr>
            <td align="center" style="padding:24px 12px;">
              <table
                role="presentation"
                width="100%"
                cellpadding="0"
                cellspacing="0"
                style="max-width:560px;background:#ffffff;border-radius:8px;border:1px solid #e5e7eb;"
              >
                <tr>
                  <td style="padding:20px 24px 4px;font-size:14px;font-weight:700;color:#4338ca;">{brand}</td>
                </tr>
                <tr>
                  <td style="padding:8px 24px 24px;font-size:15px;line-height:1.5;">{children}</td>
                </tr>
              </table>
              <table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:560px;">
                <tr>
                  <td style="padding:16px 24px;font-size:12px;line-height:1.5;color:#6b7280;">
                    {footer.reason}{' '}
                    <a href={footer.manageUrl} style="color:#4338ca;">
                      {footer.manageLabel}
                    </a>
                  </td>
                </tr>
              </table>
            </td>
          </tr>
        </table>
      </body>
    </html>
  );
}

function Button({ href, children }: { href: string; children: Child }) {
  return (
    <table role="presentation" cellpadding="0" cellspacing="0" style="margin:20px 0 4px;">
      <tr>
        <td style="background:#4338ca;border-radius:6px;">
          <a
            href={href}
            style="display:inline-block;padding:11px 20px;color:#ffffff;font-weight:600;text-decoration:none;"
          >
            {children}
          </a>
        </td>
      </tr>
    </table>
  );
}

const facts = (item: AlertItem) =>
  [item.domain, item.topic, `${item.urgency} urgency`, item.channelName ? `via ${item.channelName}` : null]
    .filter(Boolean)
    .join(' · ');

function AlertCard({ item }: { item: AlertItem }) {
  return (
    <table
      role="presentation"
      width="100%"
      cellpadding="0"
      cellspacing="0"
      style="margin:12px 0;border:1px solid #e5e7eb;border-radius:6px;"
    >
      <tr>
        <td style="padding:12px 14px;">
          <div style="font-weight:700;">{item.reference}</div>
          <div style="font-size:13px;color:#4b5563;margin:2px 0 8px;">{facts(item)}</div>
          <div style="white-space:pre-wrap;word-break:break-word;">{item.excerpt || '(no text)'}</div>
          <div style="margin-top:8px;">
            <a href={item.leadUrl} style="color:#4338ca;font-weight:600;">
              Open {item.reference}
            </a>
          </div>
        </td>
      </tr>
    </table>
  );
}

const textFooter = (footer: EmailFooter) => `--\n${footer.reason}\n${footer.manageLabel}: ${footer.manageUrl}\n`;

const alertText = (item: AlertItem) =>
  `${item.reference} · ${facts(item)}\n\n${item.excerpt || '(no text)'}\n\nOpen it: ${item.leadUrl}\n`;

/** One new lead, offered to this expert. */
export function leadAlertEmail(item: AlertItem, footer: EmailFooter): ComposedContent {
  const subject = `New lead ${item.reference}: ${item.domain}${item.topic ? ` · ${item.topic}` : ''}`;
  const html = (
    <Layout preheader={item.excerpt.slice(0, 120)} footer={footer}>
      <h1 style="font-size:20px;margin:0 0 4px;">A new lead is waiting</h1>
      <p style="margin:0;color:#4b5563;">The first expert to claim it works it. Contact details show once you claim.</p>
      <AlertCard item={item} />
      <Button href={item.leadUrl}>Open the lead</Button>
    </Layout>
  );
  const intro = 'A new lead is waiting. The first expert to claim it works it.';
  const text = `${intro}\n\n${alertText(item)}\n${textFooter(footer)}`;
  return { subject, text, html: `<!doctype html>${html}` };
}

/** The leads offered to this expert since the last digest that are still open. */
export function leadDigestEmail(
  items: AlertItem[],
  total: number,
  workbenchUrl: string,
  footer: EmailFooter,
): ComposedContent {
  const count = total === 1 ? '1 open lead' : `${total.toLocaleString('en')} open leads`;
  const subject = `${count} waiting for you`;
  const more = total - items.length;
  const moreLine = more > 0 ? `And ${more.toLocaleString('en')} more in the workbench.` : '';
  const html = (
    <Layout preheader={`${count} since your last digest`} footer={footer}>
      <h1 style="font-size:20px;margin:0 0 4px;">{count} waiting for you</h1>
      <p style="margin:0;color:#4b5563;">Offered to you since your last digest, and not claimed yet.</p>
      {items.map((item) => (
        <AlertCard item={item} />
      ))}
      {more > 0 ? (
        <p style="margin:16px 0 0;">
          <a href={workbenchUrl}>{moreLine}</a>
        </p>
      ) : null}
      <Button href={workbenchUrl}>Open the workbench</Button>
    </Layout>
  );
  const text = `${count} waiting for you, offered since your last digest.\n\n${items
    .map(alertText)
    .join('\n')}\n${moreLine ? `${moreLine}\n` : ''}The workbench: ${workbenchUrl}\n\n${textFooter(footer)}`;
  return { subject, text, html: `<!doctype html>${html}` };
}

/** The replies the visitor has not read, with the way back into the conversation, in the conversation's language. */
export function continuationEmail(
  facts: {
    brand: string;
    reference: string | null;
    replies: ReplyItem[];
    resumeUrl: string;
    canReplyByEmail: boolean;
    language: Language;
  },
  footer: EmailFooter,
): ComposedContent {
  const say = visitorMessages(facts.language);
  const author = facts.replies.at(-1)?.author ?? say.author_expert();
  const { reference, brand } = facts;
  const subject = reference ? say.email_subject_reference({ author, reference }) : say.email_subject({ author });
  const how = facts.canReplyByEmail ? say.email_how_reply() : say.email_how();
  const heading = say.email_heading({ count: facts.replies.length, brand });
  const about = reference ? `${say.email_about({ reference })} ` : '';
  const html = (
    <Layout
      preheader={facts.replies.at(-1)?.text.slice(0, 120) ?? ''}
      footer={footer}
      brand={brand}
      language={facts.language}
    >
      <h1 style="font-size:20px;margin:0 0 4px;">{heading}</h1>
      <p style="margin:0 0 8px;color:#4b5563;">
        {about}
        {how}
      </p>
      {facts.replies.map((reply) => (
        <table
          role="presentation"
          width="100%"
          cellpadding="0"
          cellspacing="0"
          style="margin:12px 0;border-inline-start:3px solid #4338ca;"
        >
          <tr>
            <td style="padding:4px 12px;">
              <div style="font-size:13px;color:#4b5563;">
                <strong style="color:#111827;">{reply.author}</strong> · {reply.at}
              </div>
              <div style="white-space:pre-wrap;word-break:break-word;margin-top:4px;">{reply.text}</div>
            </td>
          </tr>
        </table>
      ))}
      <Button href={facts.resumeUrl}>{say.email_continue()}</Button>
    </Layout>
  );
  const thread = facts.replies.map((reply) => `${reply.author} (${reply.at}):\n${reply.text}\n`).join('\n');
  const resume = `${say.email_continue()}: ${facts.resumeUrl}`;
  const text = `${heading}. ${about}${how}\n\n${thread}\n${resume}\n\n${textFooter(footer)}`;
  return { subject, text, html: `<!doctype html>${html}` };
}

/** A lead nobody claimed in time, to the workspace's owners. */
export function unclaimedEmail(
  facts: { reference: string; domain: string; waitingMinutes: number; excerpt: string; consoleUrl: string },
  footer: EmailFooter,
): ComposedContent {
  const subject = `Nobody has claimed ${facts.reference} yet`;
  const waited = `${facts.waitingMinutes} minutes`;
  const html = (
    <Layout preheader={`${facts.reference} has waited ${waited}`} footer={footer}>
      <h1 style="font-size:20px;margin:0 0 4px;">{subject}</h1>
      <p style="margin:0 0 12px;color:#4b5563;">
        A {facts.domain} request has waited {waited} without an expert. Every matching expert has been offered it.
      </p>
      <div style="white-space:pre-wrap;word-break:break-word;border-left:3px solid #4338ca;padding:4px 12px;">
        {facts.excerpt || '(no text)'}
      </div>
      <Button href={facts.consoleUrl}>See your recent intake</Button>
    </Layout>
  );
  const text =
    `${subject}. A ${facts.domain} request has waited ${waited} without an expert; every matching expert has been ` +
    `offered it.\n\n${facts.excerpt || '(no text)'}\n\n` +
    `Your recent intake: ${facts.consoleUrl}\n\n${textFooter(footer)}`;
  return { subject, text, html: `<!doctype html>${html}` };
}

/** The operator's test email: proof that the SMTP settings deliver, sent through the same outbox as any other. */
export function testEmail(facts: { sentAt: string; consoleUrl: string }, footer: EmailFooter): ComposedContent {
  const subject = 'Test email: your SMTP settings deliver';
  const html = (
    <Layout preheader="If you read this, email works." footer={footer}>
      <h1 style="font-size:20px;margin:0 0 4px;">{subject}</h1>
      <p style="margin:0 0 12px;color:#4b5563;">
        A platform administrator asked for this email at {facts.sentAt}. It went through the outbox, the queue and your
        SMTP server, as lead alerts and replies to visitors do.
      </p>
      <Button href={facts.consoleUrl}>Open the console</Button>
    </Layout>
  );
  const text =
    `${subject}.\n\nA platform administrator asked for this email at ${facts.sentAt}. It went through the outbox, ` +
    `the queue and your SMTP server, as lead alerts and replies to visitors do.\n\n${facts.consoleUrl}\n\n` +
    textFooter(footer);
  return { subject, text, html: `<!doctype html>${html}` };
}

/**
 * A billing notice (docs/design/billing.md): an allowance nearly or wholly used, a low balance, a
 * statement issued. The subject says what happened; the body says where to see the numbers.
 */
export function billingNoticeEmail(
  facts: { subject: string; url: string; forExpert: boolean },
  footer: EmailFooter,
): ComposedContent {
  const where = facts.forExpert ? 'your credits on the workbench' : 'the workspace’s usage page';
  const html = (
    <Layout preheader={facts.subject} footer={footer}>
      <h1 style="font-size:20px;margin:0 0 4px;">{facts.subject}</h1>
      <p style="margin:0 0 12px;color:#4b5563;">
        The numbers, the balance and every statement (with CSV) are on {where}.
      </p>
      <Button href={facts.url}>{facts.forExpert ? 'See your credits' : 'See usage'}</Button>
    </Layout>
  );
  const text =
    `${facts.subject}.\n\nThe numbers, the balance and every statement are on ${where}: ${facts.url}\n\n` +
    textFooter(footer);
  return { subject: facts.subject, text, html: `<!doctype html>${html}` };
}

/** A notice: its subject says what happened, the button opens where to see it. */
export function noticeContent(facts: { subject: string; url: string }, footer: EmailFooter): ComposedContent {
  const html = (
    <Layout preheader={facts.subject} footer={footer}>
      <h1 style="font-size:20px;margin:0 0 12px;">{facts.subject}</h1>
      <Button href={facts.url}>Open it in the console</Button>
    </Layout>
  );
  const text = `${facts.subject}.\n\nOpen it in the console: ${facts.url}\n\n${textFooter(footer)}`;
  return { subject: facts.subject, text, html: `<!doctype html>${html}` };
}

/** A password reset's link: single use, for an hour; nothing changes if it is ignored. */
export function passwordResetContent(facts: { url: string; minutes: number }, footer: EmailFooter): ComposedContent {
  const subject = 'Reset your password';
  const html = (
    <Layout preheader="A link to set a new password, for an hour." footer={footer}>
      <h1 style="font-size:20px;margin:0 0 12px;">{subject}</h1>
      <p>Someone, hopefully you, asked to reset the password of this account.</p>
      <p>The link works once, for {facts.minutes} minutes. Setting a new password signs the account out everywhere.</p>
      <Button href={facts.url}>Set a new password</Button>
      <p>If you did not ask, ignore this email: your password stays as it is.</p>
    </Layout>
  );
  const text =
    `Someone, hopefully you, asked to reset the password of this account. The link works once, for ` +
    `${facts.minutes} minutes. Setting a new password signs the account out everywhere.\n\n` +
    `Set a new password: ${facts.url}\n\nIf you did not ask, ignore this email: your password stays as it is.\n\n` +
    textFooter(footer);
  return { subject, text, html: `<!doctype html>${html}` };
}

/** An email verification's link: single use, for a day; the account stays limited until it is followed. */
export function emailVerificationContent(facts: { url: string; hours: number }, footer: EmailFooter): ComposedContent {
  const subject = 'Confirm your email address';
  const html = (
    <Layout preheader="One click confirms this address for your account." footer={footer}>
      <h1 style="font-size:20px;margin:0 0 12px;">{subject}</h1>
      <p>
        This address was given for an account here. Confirm it to create organisations, accept invitations, submit a
        provider profile and claim leads.
      </p>
      <p>The link works once, for {facts.hours} hours.</p>
      <Button href={facts.url}>Confirm my email</Button>
      <p>If it was not you, ignore this email: nothing is confirmed without the link.</p>
    </Layout>
  );
  const text =
    `This address was given for an account here. Confirm it to create organisations, accept invitations, ` +
    `submit a provider profile and claim leads. The link works once, for ${facts.hours} hours.\n\n` +
    `Confirm my email: ${facts.url}\n\nIf it was not you, ignore this email: nothing is confirmed without the ` +
    `link.\n\n${textFooter(footer)}`;
  return { subject, text, html: `<!doctype html>${html}` };
}
