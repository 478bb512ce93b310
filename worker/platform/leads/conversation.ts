/**
 * The claimer's side of a lead's conversation (docs/design/live.md): only the expert who claimed
 * the lead writes in it, and only while the lead is being worked (claimed, contacted, qualified).
 * The first reply moves `claimed` to `contacted`, with a history entry. A reply is written with its
 * event and its audit row in one batch, conditional on the claim still holding, so a release or a
 * close that wins the race leaves no message behind.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { insertWhere, isConstraintViolation, schema, type Database } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { readWindows, windowIncrement } from '../../lib/rate-limit';
import type { MailContext } from '../../lib/services';
import { continuationHold } from '../email';
import { expertAnswerWrite } from '../knowledge';
import { eventInsertWhere, newEvent } from '../events';
import { auditInsertWhere, type AuditContext } from '../audit';
import type { ProviderRow } from '../providers';
import { changeApplied, claimedBy, leadOfClaimer } from './workbench';
import { clock } from '../../lib/clock';

const { leads, leadEvents, messages } = schema;

/** The statuses in which the claimer works a lead, and may write in and listen to its conversation. */
export const WORKING_STATUSES = ['claimed', 'contacted', 'qualified'] as const;
/** Replies per provider per minute. */
export const REPLIES_PER_MINUTE = 60;
const REPLY_WINDOW_MS = 60_000;

/** A lead's conversation as its claimer may use it. */
export interface ClaimedConversation {
  leadId: string;
  conversationId: string;
  workspaceId: string;
  status: (typeof WORKING_STATUSES)[number];
}

/**
 * The conversation of a lead this provider claimed and works now; else the refusal: 404 out of
 * scope, 403 `not_claimer`, 409 `lead_closed` (open, won or lost), 409 `conflict` without a
 * conversation (an API call without `session_id` has nobody to answer).
 */
export async function claimedConversation(
  db: Database,
  provider: ProviderRow,
  leadId: string,
): Promise<ClaimedConversation> {
  const lead = await leadOfClaimer(db, provider, leadId, 'write in its conversation');
  const status = lead.status;
  if (status !== 'claimed' && status !== 'contacted' && status !== 'qualified') {
    throw new ApiError('lead_closed', `This lead is ${status}: its conversation is closed.`, {
      extensions: { status },
    });
  }
  if (!lead.conversationId) {
    throw new ApiError('conflict', 'This lead came from an API call without session_id: there is no conversation.');
  }
  return { leadId, conversationId: lead.conversationId, workspaceId: lead.workspaceId, status };
}

/** The claimer's reply: 201 `{message_id, created_at}`. Two round trips: the lead, then one batch. */
export async function replyToLead(
  db: Database,
  provider: ProviderRow,
  leadId: string,
  text: string,
  audit: AuditContext,
  mail: MailContext,
  now = clock.now(),
): Promise<{ message_id: string; created_at: string }> {
  const lead = await claimedConversation(db, provider, leadId);
  const messageId = newId('msg', now);
  const changeId = newId('lev', now);
  const at = new Date(now).toISOString();
  const stillWorked = sql`EXISTS (SELECT 1 FROM ${leads} WHERE ${and(
    eq(leads.id, leadId),
    claimedBy(provider),
    inArray(leads.status, [...WORKING_STATUSES]),
  )})`;
  const written = sql`EXISTS (SELECT 1 FROM ${messages} WHERE ${messages.id} = ${messageId})`;
  const contacted = changeApplied(leadId, changeId);
  const author = { provider_id: provider.id, name: provider.displayName };
  let inserted: Array<{ id: string }>;
  try {
    [, inserted] = await db.batch([
      windowIncrement(db, `reply:${provider.id}`, now, REPLY_WINDOW_MS, REPLIES_PER_MINUTE),
      insertWhere(
        db,
        messages,
        {
          id: messageId,
          conversationId: lead.conversationId,
          role: 'provider',
          text,
          authorId: provider.id,
          createdAt: now,
        },
        stillWorked,
      ).returning({ id: messages.id }),
      eventInsertWhere(
        db,
        newEvent('conversation.message_created', lead.workspaceId, {
          message_id: messageId,
          conversation_id: lead.conversationId,
          role: 'provider',
          author_name: provider.displayName,
          text,
          created_at: at,
        }),
        written,
        now,
      ),
      auditInsertWhere(
        db,
        audit,
        { action: 'lead.replied', targetId: leadId, metadata: { message_id: messageId } },
        written,
        now,
      ),
      // If the visitor left and does not read it within 2 minutes, it goes to them by email.
      continuationHold(db, { conversationId: lead.conversationId, messageId }, mail, now, written),
      // A question the knowledge declined in this conversation keeps the expert's first answer.
      expertAnswerWrite(db, lead.conversationId, text, written),
      // The first reply: claimed → contacted, with its history entry and event.
      db
        .update(leads)
        .set({
          status: 'contacted',
          changeId,
          firstContactedAt: sql`COALESCE(${leads.firstContactedAt}, ${now})`,
          updatedAt: now,
        })
        .where(and(eq(leads.id, leadId), claimedBy(provider), eq(leads.status, 'claimed'))),
      insertWhere(
        db,
        leadEvents,
        {
          id: changeId,
          leadId,
          fromStatus: 'claimed',
          toStatus: 'contacted',
          actorKind: 'provider',
          actorId: provider.id,
          note: 'Replied in the conversation.',
          createdAt: now,
        },
        contacted,
      ),
      eventInsertWhere(
        db,
        newEvent('lead.status_changed', lead.workspaceId, {
          lead_id: leadId,
          conversation_id: lead.conversationId,
          from: 'claimed',
          to: 'contacted',
          changed_by: author,
          changed_at: at,
        }),
        contacted,
        now,
      ),
    ]);
  } catch (error) {
    if (!isConstraintViolation(error, 'within_window_limit')) throw error;
    const [window] = await readWindows(db, [`reply:${provider.id}`], now, REPLY_WINDOW_MS);
    const retryAfter = Math.max(1, Math.ceil(((window?.resetAt ?? now + REPLY_WINDOW_MS) - now) / 1000));
    throw new ApiError('rate_limited', `At most ${REPLIES_PER_MINUTE} replies a minute.`, {
      headers: { 'Retry-After': String(retryAfter) },
    });
  }
  if (inserted.length === 0) {
    // Released or closed since it was read: the fresh state says which refusal.
    await claimedConversation(db, provider, leadId);
    throw new ApiError('lead_closed', 'This lead changed meanwhile. Reload it.');
  }
  return { message_id: messageId, created_at: at };
}
