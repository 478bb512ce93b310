/**
 * Who may hold a live socket on a conversation, checked where the right can change: when a socket
 * opens (a ticket minted before a release must not open one after it), and after a commit that
 * takes the right away (jobs/publish.ts closes the sockets that the committed batch revoked).
 */
import { unitOf } from '../../lib/shards/router';
import { sql } from 'drizzle-orm';
import { schema, type Database } from '../../lib/db';
import { readEveryShard } from '../shards';

const { leads, providers, messages, conversations } = schema;

/** Who holds a socket: the conversation's visitor, or a provider by id. */
export interface LiveParticipant {
  role: 'visitor' | 'provider';
  id: string;
}

/** A participant whose sockets on one conversation must close. */
export interface LiveRevocation {
  conversationId: string;
  participant: LiveParticipant;
}

/**
 * Whether the participant may listen now: the visitor to their own conversation; a provider only
 * while active and the claimer of its lead, in a working status.
 */
export async function participantMayListen(
  db: Database,
  conversationId: string,
  participant: LiveParticipant,
): Promise<boolean> {
  const rows =
    participant.role === 'visitor'
      ? await db.all(sql`SELECT 1 FROM ${conversations} WHERE id = ${conversationId} AND id = ${participant.id}`)
      : await db.all(sql`SELECT 1 FROM ${leads} l JOIN ${providers} p ON p.id = l.claimed_by
          WHERE l.conversation_id = ${conversationId} AND l.claimed_by = ${participant.id}
            AND l.status IN ('claimed', 'contacted', 'qualified') AND p.status = 'active'`);
  return rows.length > 0;
}

/** Whether a message is one of this conversation's (a read mark may name no other). */
export async function messageInConversation(db: Database, conversationId: string, messageId: string): Promise<boolean> {
  const rows = await db.all(
    sql`SELECT 1 FROM ${messages} WHERE id = ${messageId} AND conversation_id = ${conversationId}`,
  );
  return rows.length > 0;
}

const revoked = new WeakMap<object, LiveRevocation[]>();

/**
 * A provider stopped being active (suspended, or back under review): their sockets on every
 * conversation whose lead they hold are to close once the request is done (jobs/publish.ts). The
 * leads are read from every shard that holds leads; call it after the change has committed.
 */
export async function revokeProviderLive(db: Database, providerId: string): Promise<void> {
  const held = await readEveryShard(db, leads, (shardDb) =>
    shardDb.all<{ conversationId: string }>(sql`SELECT conversation_id AS "conversationId" FROM ${leads}
      WHERE claimed_by = ${providerId} AND status IN ('claimed', 'contacted', 'qualified')
        AND conversation_id IS NOT NULL`),
  );
  const list = revoked.get(unitOf(db)) ?? [];
  for (const row of held.flat())
    list.push({ conversationId: row.conversationId, participant: { role: 'provider', id: providerId } });
  revoked.set(unitOf(db), list);
}

/** The revocations committed through this database since the last call (each once). */
export function takeLiveRevocations(db: Database): LiveRevocation[] {
  const list = revoked.get(unitOf(db)) ?? [];
  revoked.delete(unitOf(db));
  return list;
}
