/**
 * From an outbox row to an email, when it is sent (docs/design/email.md): the address and the
 * content are read now, so a changed preference, a lead claimed meanwhile or a reply read
 * meanwhile is honoured, and no address or body is ever stored in the outbox. Each kind says
 * whether there is still something to send; if not, the row is skipped with the reason.
 */
import { and, asc, eq, gt, inArray, sql } from 'drizzle-orm';
import { demandReference } from '../../brain';
import { formatDateTime, isLanguage, visitorMessages } from '../../lib/i18n';
import { type Database, schema } from '../../lib/db';
import { mintConversationKeys } from '../conversations';
import {
  type AlertItem,
  alertExcerpt,
  continuationEmail,
  type EmailFooter,
  leadAlertEmail,
  leadDigestEmail,
  billingNoticeEmail,
  noticeContent,
  testEmail,
  unclaimedEmail,
} from './templates';
import { accountLinkEmail } from './account-emails';
import { addressed, type ComposeSettings, type Composed, type EmailRow } from './composed';

import { isSuppressed, unsubscribeToken } from './unsubscribe';

export type { ComposeSettings, Composed } from './composed';

const { emails, providers, users, leads, demands, channels, conversations, messages } = schema;

const leadUrl = (origin: string, leadId: string) => `${origin}/provider/workbench/leads/${leadId}`;

/** The most leads one digest lists; the rest are counted, with a link to the workbench. */
export const DIGEST_LIST_LIMIT = 50;

/**
 * Open leads as alerts show them, in the order of their alerts: the lead of one alert, or the
 * leads of one digest's alerts (by the digest's id, never a list of ids: a digest may gather
 * thousands, and D1 takes 100 parameters a statement).
 */
async function alertItems(
  db: Database,
  origin: string,
  of: { leadId: string } | { digestId: string },
): Promise<AlertItem[]> {
  const which =
    'leadId' in of
      ? eq(leads.id, of.leadId)
      : sql`${leads.id} IN (SELECT ${emails.leadId} FROM ${emails} WHERE ${emails.digestId} = ${of.digestId}
          AND ${emails.kind} = 'lead_alert')`;
  const rows = await db
    .select({
      id: leads.id,
      demandId: leads.demandId,
      status: leads.status,
      domain: leads.domain,
      topic: leads.topic,
      urgency: leads.urgency,
      text: demands.text,
      channelName: channels.name,
    })
    .from(leads)
    .innerJoin(demands, eq(demands.id, leads.demandId))
    .leftJoin(channels, eq(channels.id, leads.channelId))
    .where(and(which, eq(leads.status, 'open')))
    .orderBy(asc(leads.id))
    .limit(DIGEST_LIST_LIMIT + 1);
  return rows.map((row) => ({
    reference: demandReference(row.demandId),
    domain: row.domain,
    topic: row.topic,
    urgency: row.urgency,
    channelName: row.channelName,
    excerpt: alertExcerpt(row.text),
    leadUrl: leadUrl(origin, row.id),
  }));
}

/** How many of a digest's leads are still open (all of them, past the listed ones). */
async function openDigestLeads(db: Database, digestId: string): Promise<number> {
  const [row] = await db.all<{ n: number }>(sql`SELECT COUNT(*) AS n FROM ${leads} WHERE ${leads.status} = 'open'
    AND ${leads.id} IN (SELECT ${emails.leadId} FROM ${emails} WHERE ${emails.digestId} = ${digestId}
      AND ${emails.kind} = 'lead_alert')`);
  return row?.n ?? 0;
}

/** The expert an alert or digest goes to, if they still want it. */
async function alertRecipient(db: Database, providerId: string) {
  const row = await db
    .select({
      email: users.email,
      status: providers.status,
      availability: providers.availability,
      mode: providers.leadAlerts,
    })
    .from(providers)
    .innerJoin(users, eq(users.id, providers.userId))
    .where(eq(providers.id, providerId))
    .get();
  if (row?.status !== 'active') return { skip: 'The expert is no longer active.' };
  if (row.availability === 'away') return { skip: 'The expert is away.' };
  if (row.mode === 'off') return { skip: 'The expert turned lead alerts off.' };
  return { email: row.email };
}

async function expertEmail(db: Database, row: EmailRow, settings: ComposeSettings, origin: string): Promise<Composed> {
  const recipient = await alertRecipient(db, row.providerId!);
  if ('skip' in recipient) return { skip: recipient.skip! };
  const unsubscribeUrl = `${origin}/email/unsubscribe/${await unsubscribeToken(settings.signingSecret, {
    kind: 'alerts',
    providerId: row.providerId!,
  })}`;
  const footer: EmailFooter = {
    reason: 'You get this because you take leads as an expert.',
    manageUrl: `${origin}/provider/workbench#preferences`,
    manageLabel: 'Change your alert preferences',
  };
  if (row.kind === 'lead_alert') {
    const [item] = await alertItems(db, origin, { leadId: row.leadId! });
    if (!item) return { skip: 'The lead was claimed or closed before the alert went.' };
    return { email: addressed(row, recipient.email!, leadAlertEmail(item, footer), unsubscribeUrl, settings) };
  }
  const items = await alertItems(db, origin, { digestId: row.id });
  if (items.length === 0) return { skip: 'Every lead of this digest was claimed or closed.' };
  const total = items.length > DIGEST_LIST_LIMIT ? await openDigestLeads(db, row.id) : items.length;
  const content = leadDigestEmail(items.slice(0, DIGEST_LIST_LIMIT), total, `${origin}/provider/workbench`, footer);
  return { email: addressed(row, recipient.email!, content, unsubscribeUrl, settings) };
}

const timeOf = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

async function visitorEmail(
  db: Database,
  row: EmailRow,
  settings: ComposeSettings,
  origin: string,
  now: number,
): Promise<Composed> {
  const head = await db
    .select({
      email: leads.contactEmail,
      demandId: leads.demandId,
      readUpTo: conversations.visitorReadUpTo,
      language: conversations.language,
      channelKey: channels.channelKey,
      // The brand the visitor talked to (the widget's, else the channel's name).
      brand: sql<string>`COALESCE(json_extract(${channels.widgetConfig}, '$.brand.name'), ${channels.name})`,
      lastSent: sql<string | null>`(SELECT MAX(${emails.upToMessageId}) FROM ${emails} WHERE
        ${emails.conversationId} = ${conversations.id} AND ${emails.kind} = 'visitor_continuation'
        AND ${emails.status} IN ('sent', 'sending') AND ${emails.id} != ${row.id})`,
    })
    .from(conversations)
    .innerJoin(leads, eq(leads.id, conversations.leadId))
    .innerJoin(channels, eq(channels.id, conversations.channelId))
    .where(eq(conversations.id, row.conversationId!))
    .get();
  if (!head?.email) return { skip: 'The visitor left no email address.' };
  if (await isSuppressed(db, head.email)) return { skip: 'The visitor unsubscribed.' };
  const after =
    [head.readUpTo, head.lastSent]
      .filter((id): id is string => Boolean(id))
      .sort()
      .at(-1) ?? '';
  const replies = await db
    .select({
      id: messages.id,
      text: messages.text,
      role: messages.role,
      at: messages.createdAt,
      name: providers.displayName,
    })
    .from(messages)
    .leftJoin(providers, eq(providers.id, messages.authorId))
    .where(
      and(
        eq(messages.conversationId, row.conversationId!),
        inArray(messages.role, ['provider', 'agent']),
        gt(messages.id, after),
      ),
    )
    .orderBy(asc(messages.id))
    .limit(20);
  if (replies.length === 0) return { skip: 'The visitor read the replies.' };
  const keys = await mintConversationKeys(db, row.conversationId!, now);
  const language = isLanguage(head.language) ? head.language : 'en';
  const say = visitorMessages(language);
  // The page opens in the conversation's language, whatever the browser that follows the link prefers.
  const resumeUrl = `${origin}/widget/${head.channelKey}?resume=${keys.resume}&lang=${language}`;
  const { brand } = head;
  const unsubscribeUrl = `${origin}/email/unsubscribe/${await unsubscribeToken(settings.signingSecret, {
    kind: 'visitor',
    conversationId: row.conversationId!,
  })}?lang=${language}`;
  const content = continuationEmail(
    {
      brand,
      reference: head.demandId ? demandReference(head.demandId) : null,
      replies: replies.map((reply) => ({
        author: reply.name ?? (reply.role === 'agent' ? say.author_assistant() : say.author_expert()),
        text: reply.text,
        at: formatDateTime(language, reply.at),
      })),
      resumeUrl,
      canReplyByEmail: Boolean(settings.replyDomain),
      language,
    },
    { reason: say.email_reason({ brand }), manageUrl: unsubscribeUrl, manageLabel: say.email_stop() },
  );
  const replyTo = settings.replyDomain ? `reply+${keys.reply}@${settings.replyDomain}` : undefined;
  return {
    email: { ...addressed(row, head.email, content, unsubscribeUrl, settings, replyTo), fromName: brand },
    upToMessageId: replies.at(-1)!.id,
  };
}

/** A lead nobody claimed in time, to one of its workspace's owners (no contact details either). */
async function ownerEmail(
  db: Database,
  row: EmailRow,
  settings: ComposeSettings,
  origin: string,
  now: number,
): Promise<Composed> {
  const head = await db
    .select({
      email: users.email,
      status: leads.status,
      demandId: leads.demandId,
      domain: leads.domain,
      createdAt: leads.createdAt,
      text: demands.text,
      channelKey: channels.channelKey,
    })
    .from(leads)
    .innerJoin(users, eq(users.id, row.userId!))
    .innerJoin(demands, eq(demands.id, leads.demandId))
    .leftJoin(channels, eq(channels.id, leads.channelId))
    .where(eq(leads.id, row.leadId!))
    .get();
  if (!head) return { skip: 'The lead no longer exists.' };
  if (head.status !== 'open') return { skip: 'The lead was claimed before the email went.' };
  if (await isSuppressed(db, head.email)) return { skip: 'The owner unsubscribed from these emails.' };
  const ws = `?ws=${encodeURIComponent(row.workspaceId)}`;
  const consoleUrl = head.channelKey
    ? `${origin}/integrations/channels/${head.channelKey}${ws}`
    : `${origin}/integrations${ws}`;
  const content = unclaimedEmail(
    {
      reference: demandReference(head.demandId),
      domain: head.domain,
      waitingMinutes: Math.round((now - head.createdAt) / 60_000),
      excerpt: alertExcerpt(head.text),
      consoleUrl,
    },
    {
      reason: 'You get this because you own this workspace, and a lead of it is waiting for an expert.',
      manageUrl: `${origin}/integrations/email${ws}`,
      manageLabel: 'See every email of this workspace',
    },
  );
  const token = await unsubscribeToken(settings.signingSecret, { kind: 'owner', userId: row.userId! });
  return { email: addressed(row, head.email, content, `${origin}/email/unsubscribe/${token}`, settings) };
}

/** The operator's test email, to the user who asked for it. */
async function smtpTestEmail(
  db: Database,
  row: EmailRow,
  settings: ComposeSettings,
  origin: string,
): Promise<Composed> {
  const user = await db.select({ email: users.email }).from(users).where(eq(users.id, row.userId!)).get();
  if (!user) return { skip: 'The user no longer exists.' };
  const token = await unsubscribeToken(settings.signingSecret, { kind: 'owner', userId: row.userId! });
  const content = testEmail(
    { sentAt: timeOf(row.createdAt), consoleUrl: `${origin}/console` },
    {
      reason: 'You get this because a platform administrator sent a test email to your account.',
      manageUrl: `${origin}/console`,
      manageLabel: 'Open the console',
    },
  );
  return { email: addressed(row, user.email, content, `${origin}/email/unsubscribe/${token}`, settings) };
}

/** A billing notice, to a workspace owner (`user_id`) or to the expert whose credits it is about (`provider_id`). */
async function billingEmail(db: Database, row: EmailRow, settings: ComposeSettings, origin: string): Promise<Composed> {
  const forExpert = row.providerId !== null;
  const recipient = forExpert
    ? await db
        .select({ email: users.email, userId: users.id })
        .from(providers)
        .innerJoin(users, eq(users.id, providers.userId))
        .where(eq(providers.id, row.providerId!))
        .get()
    : await db.select({ email: users.email, userId: users.id }).from(users).where(eq(users.id, row.userId!)).get();
  if (!recipient) return { skip: 'The recipient no longer exists.' };
  if (await isSuppressed(db, recipient.email)) return { skip: 'The recipient unsubscribed from these emails.' };
  const url = forExpert
    ? `${origin}/provider/workbench#credits`
    : `${origin}/integrations/usage?ws=${encodeURIComponent(row.workspaceId)}`;
  const content = billingNoticeEmail(
    { subject: row.subject, url, forExpert },
    {
      reason: forExpert
        ? 'You get this because you claim leads on this platform, and these are your credits.'
        : 'You get this because you own this workspace, and this is its contract.',
      manageUrl: url,
      manageLabel: forExpert ? 'See your credits' : 'See usage',
    },
  );
  const token = await unsubscribeToken(settings.signingSecret, { kind: 'owner', userId: recipient.userId });
  return { email: addressed(row, recipient.email, content, `${origin}/email/unsubscribe/${token}`, settings) };
}

/** A notice to a user: its subject, and the console page it tells of. */
async function noticeEmail(db: Database, row: EmailRow, settings: ComposeSettings, origin: string): Promise<Composed> {
  const recipient = await db
    .select({ email: users.email, userId: users.id })
    .from(users)
    .where(eq(users.id, row.userId!))
    .get();
  if (!recipient) return { skip: 'The recipient no longer exists.' };
  // An address the account no longer has (told of the change) is where this one goes.
  const to = row.toAddress ?? recipient.email;
  if (await isSuppressed(db, to)) return { skip: 'The recipient unsubscribed from these emails.' };
  const url = `${origin}${row.linkPath ?? '/'}`;
  const content = noticeContent(
    { subject: row.subject, url },
    {
      reason: 'You get this because you have an account on this platform, and it concerns you.',
      manageUrl: url,
      manageLabel: 'Open it in the console',
    },
  );
  const token = await unsubscribeToken(settings.signingSecret, { kind: 'owner', userId: recipient.userId });
  return { email: addressed(row, to, content, `${origin}/email/unsubscribe/${token}`, settings) };
}

/** The email a claimed row becomes now, or why there is nothing to send. */
export async function composeEmail(
  db: Database,
  row: EmailRow,
  settings: ComposeSettings,
  now: number,
): Promise<Composed> {
  // Links never come from a request's Host: without a configured public URL, nothing links anywhere.
  const origin = settings.linkOrigin(row.linkOrigin);
  if (!origin) return { skip: 'No public URL is configured (CONSOLE_URL or BASE_URL) for the links of this email.' };
  if (row.kind === 'visitor_continuation') return visitorEmail(db, row, settings, origin, now);
  if (row.kind === 'lead_unclaimed') return ownerEmail(db, row, settings, origin, now);
  if (row.kind === 'smtp_test') return smtpTestEmail(db, row, settings, origin);
  if (row.kind === 'billing_notice') return billingEmail(db, row, settings, origin);
  if (row.kind === 'notice') return noticeEmail(db, row, settings, origin);
  if (row.kind === 'password_reset' || row.kind === 'email_verification')
    return accountLinkEmail(db, row, settings, origin);
  return expertEmail(db, row, settings, origin);
}
