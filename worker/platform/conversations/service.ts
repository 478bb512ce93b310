/**
 * Conversations: one visitor session on one channel (widget or hosted inbox) and its messages.
 * The visitor holds a secret token (`egv_…`); D1 keeps only its SHA-256.
 */
import { and, eq } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { newSecretToken, sha256Hex } from '../../lib/crypto';
import { schema, type Database } from '../../lib/db';
import { newId } from '../../lib/ids';
import type { Attribution } from '../channels/schemas';

const { visitorSessions, visitorMessages, leads } = schema;

/** What the platform core needs to know of a conversation that already exists. */
export interface ConversationState {
  id: string;
  attribution: Attribution | null;
  leadId: string | null;
  /** Whether its lead already has a way to reach the visitor. */
  contactKnown: boolean;
}

/** A new visitor token: 128 random bits. */
export function newVisitorToken(): string {
  return newSecretToken('egv_', 16);
}

/** The conversation a visitor token opens on this channel; a token of another channel opens nothing. */
export async function findConversation(db: Database, channelId: number, token: string): Promise<ConversationState | undefined> {
  const row = await db
    .select({
      id: visitorSessions.id,
      attribution: visitorSessions.attribution,
      leadId: visitorSessions.leadId,
      leadEmail: leads.contactEmail,
      leadPhone: leads.contactPhone,
    })
    .from(visitorSessions)
    .leftJoin(leads, eq(leads.id, visitorSessions.leadId))
    .where(and(eq(visitorSessions.tokenHash, await sha256Hex(token)), eq(visitorSessions.channelId, channelId)))
    .get();
  if (!row) return undefined;
  return { id: row.id, attribution: row.attribution, leadId: row.leadId, contactKnown: Boolean(row.leadEmail || row.leadPhone) };
}

/** One turn of a conversation, for the execution's batch. */
export interface ConversationTurn {
  conversationId: string;
  /** Set when the conversation starts with this turn. */
  start?: { channelId: number; workspaceId: string; tokenHash: string; attribution: Attribution | null };
  leadId: string | null;
  visitorText?: string;
  reply: string;
  now: number;
}

/** The writes of one turn: the conversation (new, or touched), the visitor's message and the reply. */
export function conversationTurnWrites(db: Database, turn: ConversationTurn): BatchItem<'sqlite'>[] {
  const { conversationId, now } = turn;
  return [
    turn.start
      ? db.insert(visitorSessions).values({ id: conversationId, ...turn.start, leadId: turn.leadId, createdAt: now, lastSeenAt: now })
      : db.update(visitorSessions).set({ lastSeenAt: now, ...(turn.leadId ? { leadId: turn.leadId } : {}) }).where(eq(visitorSessions.id, conversationId)),
    ...(turn.visitorText !== undefined
      ? [db.insert(visitorMessages).values({ id: newId('msg', now), visitorSessionId: conversationId, role: 'visitor', text: turn.visitorText, createdAt: now })]
      : []),
    db.insert(visitorMessages).values({ id: newId('msg', now), visitorSessionId: conversationId, role: 'assistant', text: turn.reply, createdAt: now }),
  ];
}
