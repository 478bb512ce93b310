/**
 * Conversations (docs/design/providers-and-leads.md): one visitor session on one channel, or the turns of one
 * API `session_id` in a workspace. The first message creates the conversation's one demand;
 * later messages are turns of it, and it has at most one lead. A channel's visitor holds a
 * secret token (`egv_…`); D1 keeps only its SHA-256.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { newSecretToken, sha256Hex } from '../../lib/crypto';
import { insertRows, schema, type Database } from '../../lib/db';
import { newId } from '../../lib/ids';
import type { Attribution } from '../attribution';
import { openedByVisitorToken } from './keys';
import { clock } from '../../lib/clock';

const { conversations, messages, leads, demands } = schema;

import type { LeadStatus, MessageRole } from '../../vocabulary';

export type { MessageRole };

/** What the execution core needs to know of a conversation that already exists. */
export interface ConversationState {
  id: string;
  attribution: Attribution | null;
  demandId: string | null;
  leadId: string | null;
  /** The demand's disposition: a held or rejected conversation stays so. */
  disposition: 'routed' | 'held' | 'rejected' | null;
  /** Whether its lead already has a way to reach the visitor. */
  contactKnown: boolean;
  /** Its lead's status (`open` until a person claims it), or null without a lead. */
  leadStatus: LeadStatus | null;
  /** The language it is spoken to in (null: started before languages, English). */
  language: string | null;
  /** Whether the workspace's knowledge has answered in it. */
  knowledgeAnswered: boolean;
  /** The visitor's own last message (read with the conversation, at no cost): what a handoff's lead is about. */
  lastVisitorText: string | null;
}

/** A new visitor token: 128 random bits. */
export function newVisitorToken(): string {
  return newSecretToken('egv_', 16);
}

async function findConversation(db: Database, where: ReturnType<typeof and>): Promise<ConversationState | undefined> {
  const row = await db
    .select({
      id: conversations.id,
      attribution: conversations.attribution,
      language: conversations.language,
      demandId: conversations.demandId,
      leadId: conversations.leadId,
      disposition: demands.disposition,
      leadEmail: leads.contactEmail,
      leadPhone: leads.contactPhone,
      leadStatus: leads.status,
      knowledgeAnsweredAt: conversations.knowledgeAnsweredAt,
      lastVisitorText: sql<string | null>`(SELECT ${messages.text} FROM ${messages}
        WHERE ${messages.conversationId} = ${conversations.id} AND ${messages.role} = 'visitor'
        ORDER BY ${messages.id} DESC LIMIT 1)`,
    })
    .from(conversations)
    .leftJoin(leads, eq(leads.id, conversations.leadId))
    .leftJoin(demands, eq(demands.id, conversations.demandId))
    .where(where)
    .get();
  if (!row) return undefined;
  return {
    id: row.id,
    attribution: row.attribution,
    demandId: row.demandId,
    leadId: row.leadId,
    disposition: row.disposition,
    contactKnown: Boolean(row.leadEmail || row.leadPhone),
    leadStatus: row.leadStatus,
    language: row.language,
    knowledgeAnswered: row.knowledgeAnsweredAt !== null,
    lastVisitorText: row.lastVisitorText,
  };
}

/** The conversation a visitor token (or an email's resume key) opens on this channel; not another channel's. */
export async function findChannelConversation(
  db: Database,
  channelId: number,
  token: string,
): Promise<ConversationState | undefined> {
  return findConversation(
    db,
    and(openedByVisitorToken(await sha256Hex(token), clock.now()), eq(conversations.channelId, channelId)),
  );
}

/** The conversation of an API `session_id` in this workspace; another workspace's finds nothing. */
export async function findApiConversation(
  db: Database,
  workspaceId: string,
  sessionId: string,
): Promise<ConversationState | undefined> {
  return findConversation(
    db,
    and(eq(conversations.workspaceId, workspaceId), eq(conversations.externalSessionId, sessionId)),
  );
}

/** A channel's conversation by its id (an email reply's key named it); another channel's finds nothing. */
export async function findChannelConversationById(
  db: Database,
  channelId: number,
  conversationId: string,
): Promise<ConversationState | undefined> {
  return findConversation(db, and(eq(conversations.id, conversationId), eq(conversations.channelId, channelId)));
}

/** How a conversation starts: on a channel (with the visitor's token), or for an API caller. */
export type ConversationStart =
  | { kind: 'channel'; workspaceId: string; channelId: number; tokenHash: string; attribution: Attribution | null }
  | { kind: 'api'; workspaceId: string; externalSessionId: string | null };

/** One turn of a conversation, for the execution's batch. */
export interface ConversationTurn {
  conversationId: string;
  /** Set when the conversation starts with this turn. */
  start?: ConversationStart;
  demandId: string;
  leadId: string | null;
  executionId: string;
  /** The language of the conversation from this turn on: set when it starts, changed when a turn asks. */
  language?: string;
  /** The visitor's message and the answer they read (and who gave it): stored as memory when the turn is kept. */
  visitorText?: string;
  reply?: {
    role: MessageRole;
    text: string;
    authorId?: string | null;
    authorName?: string | null;
    /** A knowledge answer's sources: the message says where it comes from. */
    sources?: MessageSources | null;
  };
  /** The workspace's knowledge answered this turn (the conversation keeps when it first did). */
  knowledgeAnswered?: boolean;
  now: number;
}

/** A knowledge answer's sources, as its message keeps them. */
export type MessageSources = Array<{ title: string; url: string | null }>;

/** A message a turn stores, as its event reports it. */
export interface StoredMessage {
  message_id: string;
  conversation_id: string;
  role: MessageRole;
  author_name: string | null;
  text: string;
  /** A knowledge answer's sources (absent on every other message). */
  sources?: MessageSources;
  created_at: string;
}

/**
 * The writes of one turn: the conversation (new, or touched), the visitor's message and the reply; and the messages
 * stored.
 */
export function conversationTurnWrites(
  db: Database,
  turn: ConversationTurn,
): { writes: BatchItem<'sqlite'>[]; messages: StoredMessage[] } {
  const { conversationId, now } = turn;
  const start = turn.start;
  const stored: Array<typeof messages.$inferInsert> = [];
  if (turn.visitorText !== undefined)
    stored.push({
      id: newId('msg', now),
      conversationId,
      role: 'visitor',
      text: turn.visitorText,
      executionId: turn.executionId,
      sources: null,
      createdAt: now,
    });
  if (turn.reply) {
    stored.push({
      id: newId('msg', now),
      conversationId,
      role: turn.reply.role,
      text: turn.reply.text,
      authorId: turn.reply.authorId ?? null,
      executionId: turn.executionId,
      sources: turn.reply.sources ?? null,
      createdAt: now,
    });
  }
  const writes: BatchItem<'sqlite'>[] = [
    start
      ? insertRows(db, conversations, [
          {
            id: conversationId,
            workspaceId: start.workspaceId,
            kind: start.kind,
            channelId: start.kind === 'channel' ? start.channelId : null,
            tokenHash: start.kind === 'channel' ? start.tokenHash : null,
            externalSessionId: start.kind === 'api' ? start.externalSessionId : null,
            attribution: start.kind === 'channel' ? start.attribution : null,
            language: turn.language ?? null,
            knowledgeAnsweredAt: turn.knowledgeAnswered ? now : null,
            demandId: turn.demandId,
            leadId: turn.leadId,
            createdAt: now,
            lastSeenAt: now,
          },
        ])
      : db
          .update(conversations)
          .set({
            lastSeenAt: now,
            ...(turn.leadId ? { leadId: turn.leadId } : {}),
            ...(turn.language ? { language: turn.language } : {}),
            ...(turn.knowledgeAnswered
              ? { knowledgeAnsweredAt: sql`coalesce(${conversations.knowledgeAnsweredAt}, ${now})` }
              : {}),
          })
          .where(eq(conversations.id, conversationId)),
    ...(stored.length > 0 ? [insertRows(db, messages, stored)] : []),
  ];
  const iso = new Date(now).toISOString();
  return {
    writes,
    messages: stored.map((row) => ({
      message_id: row.id,
      conversation_id: conversationId,
      role: row.role,
      author_name: row.role === turn.reply?.role ? (turn.reply.authorName ?? null) : null,
      text: row.text,
      ...(row.sources ? { sources: row.sources } : {}),
      created_at: iso,
    })),
  };
}
