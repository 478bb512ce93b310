/**
 * A conversation's thread as people read it (docs/design/live.md): each message with who wrote
 * it, oldest first. The visitor reads theirs with the `egv_` token intake issued; the claimer
 * reads it on the lead; the site owner reads it in the console. Contact details are not in it.
 */
import { and, asc, eq, gt, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { demandReference } from '../../brain';
import { sha256Hex } from '../../lib/crypto';
import { isConstraintViolation, schema, type Database } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { RATE_LIMIT_WINDOW_MS, windowIncrement } from '../../lib/rate-limit';
import type { LeadStatus } from '../../vocabulary';
import { openedByVisitorToken } from './keys';
import type { MessageView, VisitorThread } from './schemas';
import { clock } from '../../lib/clock';

const { conversations, messages, leads, providers } = schema;

/** The most messages one read answers; `has_more` says to read again from the last one. */
export const THREAD_PAGE = 100;

/**
 * The query of a conversation's messages after `after` (a `msg_` id; none: from the start), oldest
 * first, with their authors' names, at most `limit`. `conversationId` may be SQL, to run in a batch.
 */
export function threadQuery(db: Database, conversationId: string | SQL, options: { after?: string; limit: number }) {
  return db
    .select({ message: messages, authorName: providers.displayName })
    .from(messages)
    .leftJoin(providers, eq(providers.id, messages.authorId))
    .where(
      and(
        eq(messages.conversationId, conversationId),
        options.after !== undefined ? gt(messages.id, options.after) : undefined,
      ),
    )
    .orderBy(asc(messages.id))
    .limit(options.limit);
}

/** Thread rows as people read them. */
export function toMessageViews(
  rows: Array<{ message: typeof messages.$inferSelect; authorName: string | null }>,
): MessageView[] {
  return rows.map(({ message, authorName }) => ({
    message_id: message.id,
    role: message.role,
    author_name: message.role === 'provider' || message.role === 'agent' ? (authorName ?? null) : null,
    text: message.text,
    ...(message.sources ? { sources: message.sources } : {}),
    created_at: new Date(message.createdAt).toISOString(),
  }));
}

/** The query of a conversation's demand and its lead's state, with the claimer's name. */
function leadStateQuery(db: Database, conversationId: string) {
  return db
    .select({ demandId: conversations.demandId, status: leads.status, claimer: providers.displayName })
    .from(conversations)
    .leftJoin(leads, eq(leads.id, conversations.leadId))
    .leftJoin(providers, eq(providers.id, leads.claimedBy))
    .where(eq(conversations.id, conversationId));
}

function leadStateOf(head: { status: LeadStatus | null; claimer: string | null } | undefined): VisitorThread['lead'] {
  if (!head?.status) return null;
  return { status: head.status, claimed_by_name: head.status === 'open' ? null : (head.claimer ?? 'An expert') };
}

/** The conversation a visitor's token opens on this channel, or 401 `invalid_session`. */
export async function visitorConversation(
  db: Database,
  channelId: number,
  token: string | undefined,
  /** A replica's session to look in first (with the visitor's bookmark); a miss asks the primary. */
  reads?: Database,
) {
  const tokenHash = token ? await sha256Hex(token) : undefined;
  const find = (from: Database) =>
    from
      .select({ id: conversations.id })
      .from(conversations)
      .where(and(openedByVisitorToken(tokenHash!, clock.now()), eq(conversations.channelId, channelId)))
      .get();
  const row = tokenHash ? ((reads ? await find(reads) : undefined) ?? (await find(db))) : undefined;
  if (!row) {
    throw new ApiError('invalid_session', 'Send the session_id that intake gave you as "Authorization: Bearer …".', {
      headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
    });
  }
  return row.id;
}

/** Reads of the thread per minute and session: a polling widget makes 30 at most, per tab. */
export const THREAD_READS_PER_MINUTE = 120;

/**
 * What the visitor reads: the messages after `after`, and the state of the conversation's lead
 * (and, from a polling client, what the visitor has seen). Two round trips: the token's
 * conversation, then the page and the lead in one batch, with the session's read counted (429
 * past 120 a minute).
 */
export async function visitorThread(
  db: Database,
  channelId: number,
  token: string | undefined,
  after: string | undefined,
  readUpTo?: string,
  now = clock.now(),
  reads?: Database,
): Promise<VisitorThread> {
  // Which conversation the token opens, from a replica as new as the visitor's last write; its
  // messages then come with the read's limit, from the primary.
  const conversationId = await visitorConversation(db, channelId, token, reads);
  const subject = `thread-reads:${conversationId}`;
  let rows: Awaited<ReturnType<typeof threadQuery>>;
  let heads: Awaited<ReturnType<ReturnType<typeof leadStateQuery>['all']>>;
  try {
    [, rows, heads] = await db.batch([
      windowIncrement(db, subject, now, RATE_LIMIT_WINDOW_MS, THREAD_READS_PER_MINUTE),
      threadQuery(db, conversationId, { ...(after !== undefined ? { after } : {}), limit: THREAD_PAGE + 1 }),
      leadStateQuery(db, conversationId),
      // A polling client's read mark (a socket sends its own): it only moves forward.
      ...(readUpTo ? [visitorReadUpTo(db, conversationId, readUpTo)] : []),
    ]);
  } catch (error) {
    if (!isConstraintViolation(error, 'within_window_limit')) throw error;
    throw new ApiError('rate_limited', `At most ${THREAD_READS_PER_MINUTE} reads of the thread a minute.`, {
      headers: { 'Retry-After': '60' },
    });
  }
  const head = heads[0];
  return {
    reference: head?.demandId ? demandReference(head.demandId) : null,
    lead: leadStateOf(head),
    messages: toMessageViews(rows.slice(0, THREAD_PAGE)),
    has_more: rows.length > THREAD_PAGE,
  };
}

/**
 * What a live socket's `resume` answers: every message after `after`, in order (all pages), and
 * the lead's state. One batch per page; a conversation rarely has more than one.
 */
export async function threadAfter(
  db: Database,
  conversationId: string,
  after: string | null,
): Promise<{ messages: MessageView[]; lead: VisitorThread['lead'] }> {
  const all: MessageView[] = [];
  let cursor = after ?? undefined;
  let lead: VisitorThread['lead'] = null;
  for (let page = 0; page < 50; page++) {
    const [rows, heads] = await db.batch([
      threadQuery(db, conversationId, { ...(cursor !== undefined ? { after: cursor } : {}), limit: THREAD_PAGE + 1 }),
      leadStateQuery(db, conversationId),
    ]);
    lead = leadStateOf(heads[0]);
    all.push(...toMessageViews(rows.slice(0, THREAD_PAGE)));
    if (rows.length <= THREAD_PAGE) break;
    cursor = all.at(-1)!.message_id;
  }
  return { messages: all, lead };
}

/**
 * A channel's conversation as its site owner reads it (read only): every message with its author,
 * and its lead's status and claimer; never the visitor's contact details. 404 when the conversation
 * is not this channel's. One batch.
 */
export async function ownerThread(db: Database, channelId: number, conversationId: string) {
  const onChannel = and(eq(conversations.id, conversationId), eq(conversations.channelId, channelId));
  const [heads, rows] = await db.batch([
    db
      .select({
        demandId: conversations.demandId,
        createdAt: conversations.createdAt,
        status: leads.status,
        claimer: providers.displayName,
      })
      .from(conversations)
      .leftJoin(leads, eq(leads.id, conversations.leadId))
      .leftJoin(providers, eq(providers.id, leads.claimedBy))
      .where(onChannel),
    threadQuery(db, sql`(SELECT ${conversations.id} FROM ${conversations} WHERE ${onChannel})`, { limit: 500 }),
  ]);
  const head = heads[0];
  if (!head) throw new ApiError('not_found', 'No such conversation on this channel.');
  return {
    reference: head.demandId ? demandReference(head.demandId) : null,
    started_at: new Date(head.createdAt).toISOString(),
    lead: leadStateOf(head),
    messages: toMessageViews(rows),
  };
}

/**
 * The visitor has seen the thread up to `messageId`: a read mark only moves forward, and only to a
 * message of this conversation (a made-up id, sorting after every real one, would pin it forever).
 */
export function visitorReadUpTo(db: Database, conversationId: string, messageId: string | SQL): BatchItem<'sqlite'> {
  return db
    .update(conversations)
    .set({ visitorReadUpTo: sql`${messageId}` })
    .where(
      sql`${conversations.id} = ${conversationId} AND (${conversations.visitorReadUpTo} IS NULL
        OR ${conversations.visitorReadUpTo} < ${messageId})
        AND EXISTS (SELECT 1 FROM ${messages} m WHERE m.id = ${messageId} AND m.conversation_id = ${conversationId})`,
    );
}
