/**
 * The email outbox's writes (docs/design/email.md). An email is a row written in the batch of
 * the change that causes it: a new lead's alerts in the execution's batch, a reply's continuation
 * (held until the visitor has had 2 minutes to read it) in the reply's batch. Each insert returns
 * its ids, so the ids that committed come back from the batch itself (takeCommittedEmails); the
 * entry points put them on the queue after the commit (jobs/publish.ts), and the cron sweep finds
 * any that were missed.
 */
import { routedHandleOf, unitOf } from '../../lib/shards/router';
import { databasesHolding } from '../../lib/shards/holding';
import { eq, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { afterCommit, type Database, schema, newIdsInStatement } from '../../lib/db';
import { newId } from '../../lib/ids';
import type { MailContext } from '../../lib/services';
import { clock } from '../../lib/clock';

const { emails, providers, leads, leadOffers } = schema;

/** At most this many instant alerts an hour per expert; the rest wait for the digest. */
export const INSTANT_ALERTS_PER_HOUR = 30;
const HOUR_MS = 60 * 60 * 1000;

/** New email ids made inside a statement, one per row. */
const idsInStatement = (now: number) => newIdsInStatement('eml', now);

/** Emails committed, by the shard whose database has their rows (null: the directory). */
const committedIds = new WeakMap<object, Map<number | null, string[]>>();

function collect(db: Database) {
  return (rows: unknown[]) => {
    const byShard = committedIds.get(unitOf(db)) ?? new Map<number | null, string[]>();
    const shard = routedHandleOf(db)?.route.shard ?? null;
    const list = byShard.get(shard) ?? [];
    for (const row of rows as Array<{ id: string; status: string }>) if (row.status === 'queued') list.push(row.id);
    byShard.set(shard, list);
    committedIds.set(unitOf(db), byShard);
  };
}

/**
 * The emails committed through this unit of work, due now, since the last call (each once), by
 * the shard whose database has their rows (null: the directory): a send job reads them there.
 */
export function takeCommittedEmails(db: Database): Array<{ shard: number | null; ids: string[] }> {
  const byShard = committedIds.get(unitOf(db)) ?? new Map<number | null, string[]>();
  committedIds.delete(unitOf(db));
  return [...byShard].filter(([, ids]) => ids.length > 0).map(([shard, ids]) => ({ shard, ids }));
}

/**
 * The alerts of new offers (docs/design/email.md), one statement for any number of leads: one row
 * per offer that `offered` selects (a condition on the offer `o` and its lead `l`), to experts who
 * are available and want alerts. An `instant` expert's alerts are queued up to 30 in the last
 * hour, counting the rows of this very statement (a widening sweep offers one expert many leads at
 * once): the window numbers each expert's new rows; the rest wait (`held`) for the next digest.
 * Written in the batch that makes the offers: the lead's own, or the sweep's step that widens them.
 */
export function offerAlertInserts(db: Database, offered: SQL, now: number): BatchItem<'sqlite'> {
  const recentInstant = sql`(SELECT COUNT(*) FROM ${emails} e WHERE e.provider_id = p.id
    AND e.kind = 'lead_alert' AND e.status IN ('queued', 'sending', 'sent', 'failed')
    AND e.created_at > ${now - HOUR_MS})`;
  const statement = db.all(sql`
    INSERT INTO ${emails} (id, workspace_id, kind, status, provider_id, lead_id, subject, link_origin,
      next_attempt_at, created_at, updated_at)
    SELECT ${idsInStatement(now)}, l.workspace_id, 'lead_alert',
      CASE WHEN p.lead_alerts = 'instant'
        AND ${recentInstant} + ROW_NUMBER() OVER (PARTITION BY p.id ORDER BY l.id) <= ${INSTANT_ALERTS_PER_HOUR}
        THEN 'queued' ELSE 'held' END,
      p.id, l.id, 'New lead D-' || upper(substr(l.demand_id, -6)) || ': ' || l.domain || ' · ' || l.topic,
      COALESCE(l.console_origin, ''), ${now}, ${now}, ${now}
    FROM ${leadOffers} o JOIN ${leads} l ON l.id = o.lead_id JOIN ${providers} p ON p.id = o.provider_id
    WHERE ${offered} AND p.availability = 'available' AND p.lead_alerts != 'off'
      -- An expert cooling down from this lead (they released it, or let it lapse) is not alerted to it.
      AND (o.cooldown_until IS NULL OR o.cooldown_until <= ${now})
    RETURNING id, status`);
  return afterCommit(statement, collect(db));
}

/**
 * A lead nobody claimed in time (docs/design/lead-operations.md): one email to each owner of its workspace,
 * for every lead `l` that `which` selects, in the sweep's escalation step.
 */
export function unclaimedAlertInserts(db: Database, which: SQL, now: number): BatchItem<'sqlite'> {
  const { memberships } = schema;
  const statement = db.all(sql`
    INSERT INTO ${emails} (id, workspace_id, kind, status, user_id, lead_id, subject, link_origin,
      next_attempt_at, created_at, updated_at)
    SELECT ${idsInStatement(now)}, l.workspace_id, 'lead_unclaimed', 'queued', m.user_id, l.id,
      'Nobody has claimed D-' || upper(substr(l.demand_id, -6)) || ' yet', COALESCE(l.console_origin, ''),
      ${now}, ${now}, ${now}
    FROM ${leads} l JOIN ${memberships} m ON m.workspace_id = l.workspace_id AND m.role = 'owner'
    WHERE ${which}
    RETURNING id, status`);
  return afterCommit(statement, collect(db));
}

/**
 * Billing notices (docs/design/billing.md): for each row `from` selects (a FROM … clause with the
 * escrow's `owner_kind` and `owner_id` columns), an email to each owner of the workspace, or to
 * the expert whose escrow it is. Its subject says it all; the body links to the numbers.
 */
export function billingNoticeInserts(
  db: Database,
  notice: { from: SQL; ownerKind: SQL; ownerId: SQL; subject: SQL },
  now: number,
): BatchItem<'sqlite'> {
  const { memberships } = schema;
  const statement = db.all(sql`
    INSERT INTO ${emails} (id, workspace_id, kind, status, user_id, provider_id, subject, link_origin,
      next_attempt_at, created_at, updated_at)
    SELECT ${idsInStatement(now)}, CASE WHEN n.owner_kind = 'workspace' THEN n.owner_id ELSE '' END, 'billing_notice',
      'queued', m.user_id, CASE WHEN n.owner_kind = 'provider' THEN n.owner_id END, n.subject, '', ${now}, ${now},
      ${now}
    FROM (SELECT ${notice.ownerKind} AS owner_kind, ${notice.ownerId} AS owner_id, ${notice.subject} AS subject
      ${notice.from}) AS n
    LEFT JOIN ${memberships} m ON n.owner_kind = 'workspace' AND m.workspace_id = n.owner_id AND m.role = 'owner'
    WHERE n.owner_kind = 'provider' OR m.user_id IS NOT NULL
    RETURNING id, status`);
  return afterCommit(statement, collect(db));
}

/**
 * Notices (docs/design/email.md): to each user `recipients` selects (a SELECT of `user_id`), an
 * email whose subject says it all and whose link opens `linkPath` in the console. Written in the
 * batch of the change it tells of, only when `when` holds (that change went in).
 */
export function noticeInserts(
  db: Database,
  notice: { recipients: SQL; workspaceId: string; subject: string; linkPath: string; linkOrigin: string; when?: SQL },
  now: number,
): BatchItem<'sqlite'> {
  const statement = db.all(sql`
    INSERT INTO ${emails} (id, workspace_id, kind, status, user_id, subject, link_origin, link_path, next_attempt_at,
      created_at, updated_at)
    SELECT ${idsInStatement(now)}, ${notice.workspaceId}, 'notice', 'queued', r.user_id, ${notice.subject},
      ${notice.linkOrigin}, ${notice.linkPath}, ${now}, ${now}, ${now}
    FROM (${notice.recipients}) AS r WHERE ${notice.when ?? sql`1`}
    RETURNING id, status`);
  return afterCommit(statement, collect(db));
}

/**
 * An email about a user's own account (a password reset's or a verification's link, a security
 * notice), to the user `account` selects (a FROM … WHERE … of `users`), written only when `when`
 * holds; `toAddress` sends it to an address the account no longer has (the old one, after a
 * change). Account emails belong to no workspace.
 */
export function accountEmailInsert(
  db: Database,
  email: {
    kind: 'password_reset' | 'email_verification' | 'notice';
    account: SQL;
    subject: string;
    linkOrigin: string;
    linkPath: string;
    toAddress?: string;
  },
  now: number,
  when: SQL = sql`1`,
): BatchItem<'sqlite'> {
  const statement = db.all(sql`
    INSERT INTO ${emails} (id, workspace_id, kind, status, user_id, subject, link_origin, link_path, to_address,
      next_attempt_at, created_at, updated_at)
    SELECT ${newId('eml', now)}, '', ${email.kind}, 'queued', ${schema.users.id}, ${email.subject},
      ${email.linkOrigin}, ${email.linkPath}, ${email.toAddress ?? null}, ${now}, ${now}, ${now} ${email.account}
      AND ${when}
    RETURNING id, status`);
  return afterCommit(statement, collect(db));
}

/**
 * A reply's continuation email (docs/design/email.md), one statement in the reply's batch: held
 * for 2 minutes (`unreadAfterMs`), when the conversation's lead has an email address and no continuation is held
 * already (that one will carry this reply too). The sweep then sends it, or skips it when the
 * visitor has read the replies meanwhile. Written only if `written` holds (the reply went in).
 */
export function continuationHold(
  db: Database,
  facts: { conversationId: string; messageId: string },
  mail: MailContext,
  now: number,
  written: SQL = sql`1`,
): BatchItem<'sqlite'> {
  const { conversations } = schema;
  return db.run(sql`
    INSERT INTO ${emails} (id, workspace_id, kind, status, conversation_id, lead_id, subject, link_origin,
      up_to_message_id, next_attempt_at, created_at, updated_at)
    SELECT ${newId('eml', now)}, c.workspace_id, 'visitor_continuation', 'held', c.id, c.lead_id,
      'A reply to your question', ${mail.linkOrigin}, ${facts.messageId}, ${now + mail.unreadAfterMs}, ${now}, ${now}
    FROM ${conversations} c JOIN ${leads} l ON l.id = c.lead_id
    WHERE c.id = ${facts.conversationId} AND c.channel_id IS NOT NULL AND l.contact_email IS NOT NULL AND ${written}
      AND NOT EXISTS (SELECT 1 FROM ${emails} WHERE ${emails.conversationId} = c.id
        AND ${emails.kind} = 'visitor_continuation' AND ${emails.status} = 'held')`);
}

/**
 * The operator's test email to a user: a row like any other, queued now (published after the
 * commit), so it proves the whole path: outbox, queue, composer, SMTP. Answers its id.
 */
export async function queueTestEmail(db: Database, userId: string, mail: MailContext, now = clock.now()) {
  const id = newId('eml', now);
  const statement = db.all(sql`INSERT INTO ${emails} (id, workspace_id, kind, status, user_id, subject, link_origin,
      next_attempt_at, created_at, updated_at)
    VALUES (${id}, '', 'smtp_test', 'queued', ${userId}, 'Test email', ${mail.linkOrigin}, ${now}, ${now}, ${now})
    RETURNING id, status`);
  await db.batch([afterCommit(statement, collect(db))]);
  return id;
}

/** Where one email is: for the operator checking a test email, or a support question. Never its address. */
export async function emailStatus(db: Database, id: string) {
  // An email is its unit's: an organisation's on its shard, an account's in the directory.
  const found = await Promise.all(
    databasesHolding(db, emails).map((each) =>
      each
        .select({
          email_id: emails.id,
          kind: emails.kind,
          status: emails.status,
          attempts: emails.attempts,
          last_error: emails.lastError,
          sent_at: emails.sentAt,
        })
        .from(emails)
        .where(sql`${emails.id} = ${id}`)
        .get(),
    ),
  );
  const row = found.find((each) => each);
  return row ? { ...row, sent_at: row.sent_at ? new Date(row.sent_at).toISOString() : null } : undefined;
}

/**
 * The platform's admins, as a notice's recipients (a FROM list of `user_id`): read from the
 * directory first, since the notice may be written on an organisation's shard, where no users are
 * (docs/design/scale.md#the-layout).
 */
export async function platformAdmins(db: Database): Promise<SQL> {
  const { users } = schema;
  const admins = await db.select({ id: users.id }).from(users).where(eq(users.isPlatformAdmin, true));
  return sql`SELECT value AS user_id FROM json_each(${JSON.stringify(admins.map((admin) => admin.id))})`;
}
