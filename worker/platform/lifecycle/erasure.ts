/**
 * A visitor's erasure (docs/design/data-lifecycle.md#erasure; GDPR article 17): the texts and
 * contact details of a conversation, or of every lead of a contact address, are replaced by a
 * marker in D1 and in the workspace's archives. What money and counts rest on stays: the rows,
 * their ids, times and amounts. A lead still open is withdrawn (nobody can buy a lead without its
 * contact), and a fee an expert paid for one of them is given back. Every step may run again: a
 * crash in the middle is finished by running it once more.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Database, newIdsInStatement, schema } from '../../lib/db';
import { erasedLeadRefunds } from '../billing';
import { inDirectory } from '../shards';
import { ERASED_TEXT } from '../../vocabulary';
import { type ArchiveBucket, gunzipNdjson, rewriteArchive, subjectsOf } from './archive';

const {
  conversations,
  messages,
  leads,
  leadEvents,
  leadOffers,
  demands,
  conversationKeys,
  events,
  a2aTasks,
  knowledgeGaps,
  archiveObjects,
} = schema;

/** What erased text reads as, everywhere. */
export const ERASED = ERASED_TEXT;

/** The conversations and leads an erasure covers, within one workspace. */
export interface ErasureSubjects {
  conversationIds: string[];
  leadIds: string[];
  /** Their requests (demands): the archive of requests' bodies names these. */
  demandIds: string[];
}

const list = (ids: string[]) => sql`(SELECT value FROM json_each(${JSON.stringify(ids)}))`;

type Found = { conversation_id: string | null; lead_id: string | null; demand_id: string | null };

/** The subjects of a conversation (with its lead), or of every lead of a contact address. */
export async function erasureSubjects(
  db: Database,
  workspaceId: string,
  target: { conversationId: string } | { contactEmail: string },
): Promise<ErasureSubjects> {
  const rows =
    'conversationId' in target
      ? await db.all<Found>(sql`SELECT c.id AS conversation_id, l.id AS lead_id, l.demand_id
          FROM ${conversations} c LEFT JOIN ${leads} l ON l.conversation_id = c.id
          WHERE c.id = ${target.conversationId} AND c.workspace_id = ${workspaceId}`)
      : await db.all<Found>(sql`SELECT conversation_id, id AS lead_id, demand_id FROM ${leads}
          WHERE workspace_id = ${workspaceId} AND lower(contact_email) = ${target.contactEmail.trim().toLowerCase()}`);
  const unique = (values: (string | null)[]) => [...new Set(values.filter((value): value is string => Boolean(value)))];
  const conversationIds = unique(rows.map((row) => row.conversation_id));
  const requests = conversationIds.length
    ? await db.all<{ id: string }>(sql`SELECT id FROM ${demands} WHERE workspace_id = ${workspaceId}
        AND conversation_id IN ${list(conversationIds)}`)
    : [];
  return {
    conversationIds,
    leadIds: unique(rows.map((row) => row.lead_id)),
    demandIds: unique([...rows.map((row) => row.demand_id), ...requests.map((row) => row.id)]),
  };
}

/** The note on a lead an erasure withdrew (its history says why it closed). */
export const WITHDRAWN_NOTE = 'Withdrawn: the visitor’s data was erased.';

/**
 * Replaces the subjects' texts and contact details in D1, withdraws their open leads and gives
 * back the fees paid for them, in one batch; answers the rows changed.
 */
export async function eraseInDatabase(db: Database, workspaceId: string, subjects: ErasureSubjects, now: number) {
  const conversationIds = list(subjects.conversationIds);
  const leadIds = list(subjects.leadIds);
  const mentions = (column: SQL) =>
    sql`EXISTS (SELECT 1 FROM json_each(${JSON.stringify([
      ...subjects.conversationIds,
      ...subjects.leadIds,
    ])}) WHERE instr(${column}, value) > 0)`;
  // The fees were paid from experts' escrows, which are in the directory: given back there first, in
  // their own batch (no batch spans two databases), so a retry after a crash finds them given.
  const directory = inDirectory(db);
  const refunds = await erasedLeadRefunds(directory, subjects.leadIds, now);
  const [first, ...rest] = refunds;
  const refunded = first ? await directory.batch([first, ...rest]) : [];
  const results = await db.batch([
    // The questions the knowledge declined in these conversations, however often asked: their
    // wording is the visitor's (a gap keeps its first asker's words). Before the messages go.
    db.run(sql`DELETE FROM ${knowledgeGaps} WHERE workspace_id = ${workspaceId}
      AND (last_conversation_id IN ${conversationIds} OR question IN (SELECT substr(text, 1, 500) FROM ${messages}
        WHERE conversation_id IN ${conversationIds} AND role = 'visitor'))`),
    db.run(sql`UPDATE ${messages} SET text = ${ERASED} WHERE conversation_id IN ${conversationIds}
      AND text != ${ERASED}`),
    // An open lead is withdrawn: no offer, no claim, no fee for a lead without its contact.
    db.run(sql`INSERT INTO ${leadEvents} (id, lead_id, from_status, to_status, actor_kind, actor_id, note, created_at)
      SELECT ${newIdsInStatement('lev', now)}, id, 'open', 'lost', 'system', NULL, ${WITHDRAWN_NOTE}, ${now}
      FROM ${leads} WHERE workspace_id = ${workspaceId} AND id IN ${leadIds} AND status = 'open'`),
    db.run(sql`UPDATE ${leads} SET status = 'lost', held_at = NULL, widen_at = NULL, escalate_at = NULL,
        claim_deadline = NULL, updated_at = ${now}
      WHERE workspace_id = ${workspaceId} AND id IN ${leadIds} AND status = 'open'`),
    db.run(sql`DELETE FROM ${leadOffers} WHERE lead_id IN ${leadIds}`),
    db.run(sql`UPDATE ${leads} SET contact_name = CASE WHEN contact_name IS NULL THEN NULL ELSE ${ERASED} END,
      contact_email = NULL, contact_phone = NULL, attribution = NULL, summary = ${ERASED}
      WHERE workspace_id = ${workspaceId} AND id IN ${leadIds}`),
    db.run(sql`UPDATE ${leadEvents} SET note = ${ERASED} WHERE lead_id IN ${leadIds} AND note IS NOT NULL
      AND note != ${ERASED} AND note != ${WITHDRAWN_NOTE}`),
    db.run(sql`UPDATE ${demands} SET text = CASE WHEN text IS NULL THEN NULL ELSE ${ERASED} END,
      structured_input = NULL, attachments = NULL, attribution = NULL
      WHERE workspace_id = ${workspaceId} AND id IN ${list(subjects.demandIds)}`),
    db.run(sql`UPDATE ${a2aTasks} SET history = '[]', artifacts = '[]' WHERE workspace_id = ${workspaceId}
      AND context_id IN (SELECT external_session_id FROM ${conversations} WHERE id IN ${conversationIds})`),
    db.run(sql`UPDATE ${conversations} SET attribution = NULL, external_session_id = NULL, token_hash = NULL
      WHERE workspace_id = ${workspaceId} AND id IN ${conversationIds}`),
    db.run(sql`DELETE FROM ${conversationKeys} WHERE conversation_id IN ${conversationIds}`),
    // The webhook outbox's payloads that name them: only the fact that one was erased stays.
    db.run(sql`UPDATE ${events} SET data = json_object('erased', json('true'))
      WHERE workspace_id = ${workspaceId} AND ${mentions(sql`data`)}`),
  ]);
  return [...refunded, ...results].reduce((sum, result) => sum + ('meta' in result ? result.meta.changes : 0), 0);
}

/** Whether an archived row is about the subjects (it names one of their ids). */
function mentionsAny(row: Record<string, unknown>, ids: string[]): boolean {
  const text = JSON.stringify(row);
  return ids.some((id) => text.includes(id));
}

/** An archived row with the subjects' texts replaced. */
function erasedRow(kind: string, row: Record<string, unknown>): Record<string, unknown> {
  if (kind === 'events') return { id: row.id, type: row.type, created_at: row.created_at, data: { erased: true } };
  if (kind === 'executions')
    return { ...row, text: row.text === null ? null : ERASED, structured_input: null, attachments: null };
  if (kind === 'conversations') {
    const thread = Array.isArray(row.messages) ? (row.messages as Record<string, unknown>[]) : [];
    return { ...row, attribution: null, messages: thread.map((message) => ({ ...message, text: ERASED })) };
  }
  return { ...row, erased: true };
}

/** A rewrite of one object lost to another writer this many times in a row is left for the next run. */
const REWRITE_TRIES = 5;

/**
 * Rewrites the workspace's archived objects that hold rows about the subjects, with those rows
 * erased; answers how many objects changed. Only the objects whose manifest names a subject are
 * opened (and those written before the manifest kept subjects, once: their subjects are recorded
 * then). Each rewrite holds only if the object is still the version read, so two erasures at once
 * never undo each other: the loser reads it again and erases on top.
 */
export async function eraseInArchive(
  db: Database,
  bucket: ArchiveBucket,
  workspaceId: string,
  subjects: ErasureSubjects,
): Promise<number> {
  const ids = [...subjects.conversationIds, ...subjects.leadIds, ...subjects.demandIds];
  if (ids.length === 0) return 0;
  const objects = await db.all<{ key: string; kind: string }>(sql`SELECT key, kind FROM ${archiveObjects}
    WHERE workspace_id = ${workspaceId} AND kind IN ('events', 'executions', 'conversations')
      AND (subjects IS NULL OR EXISTS (SELECT 1 FROM json_each(subjects) s WHERE s.value IN ${list(ids)}))`);
  let rewritten = 0;
  for (const object of objects) {
    for (let attempt = 0; attempt < REWRITE_TRIES; attempt++) {
      const stored = await bucket.get(object.key);
      if (!stored) break;
      const rows = await gunzipNdjson(await stored.arrayBuffer());
      if (!rows.some((row) => mentionsAny(row, ids))) {
        // An object from before subjects were kept: record them, so no later erasure opens it in vain.
        await db.run(sql`UPDATE ${archiveObjects} SET subjects = ${JSON.stringify(subjectsOf(rows))}
          WHERE key = ${object.key} AND subjects IS NULL`);
        break;
      }
      const erased = rows.map((row) => (mentionsAny(row, ids) ? erasedRow(object.kind, row) : row));
      if (await rewriteArchive(db, bucket, { key: object.key, etag: stored.etag }, erased)) {
        rewritten += 1;
        break;
      }
      if (attempt === REWRITE_TRIES - 1)
        throw new Error(`The archive object ${object.key} kept changing while it was erased: the erasure runs again.`);
    }
  }
  return rewritten;
}
