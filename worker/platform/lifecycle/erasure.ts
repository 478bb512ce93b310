/**
 * A visitor's erasure (docs/design/data-lifecycle.md#erasure; GDPR article 17): the texts and
 * contact details of a conversation, or of every lead of a contact address, are replaced by a
 * marker in D1 and in the workspace's archives. What money and counts rest on stays: the rows,
 * their ids, times, statuses and amounts; the ledger and the rollups do not change.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Database, schema } from '../../lib/db';
import { type ArchiveBucket, gunzipNdjson, rewriteArchive } from './archive';

const { conversations, messages, leads, leadEvents, demands, conversationKeys, events, a2aTasks, knowledgeGaps } =
  schema;

/** What erased text reads as, everywhere. */
export const ERASED = '[erased]';

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

/** Replaces the subjects' texts and contact details in D1, in one batch; answers the rows changed. */
export async function eraseInDatabase(db: Database, workspaceId: string, subjects: ErasureSubjects) {
  const conversationIds = list(subjects.conversationIds);
  const leadIds = list(subjects.leadIds);
  const mentions = (column: SQL) =>
    sql`EXISTS (SELECT 1 FROM json_each(${JSON.stringify([
      ...subjects.conversationIds,
      ...subjects.leadIds,
    ])}) WHERE instr(${column}, value) > 0)`;
  const results = await db.batch([
    db.run(sql`UPDATE ${messages} SET text = ${ERASED} WHERE conversation_id IN ${conversationIds}
      AND text != ${ERASED}`),
    db.run(sql`UPDATE ${leads} SET contact_name = CASE WHEN contact_name IS NULL THEN NULL ELSE ${ERASED} END,
      contact_email = NULL, contact_phone = NULL, attribution = NULL, summary = ${ERASED}
      WHERE workspace_id = ${workspaceId} AND id IN ${leadIds}`),
    db.run(sql`UPDATE ${leadEvents} SET note = ${ERASED} WHERE lead_id IN ${leadIds} AND note IS NOT NULL
      AND note != ${ERASED}`),
    db.run(sql`UPDATE ${demands} SET text = CASE WHEN text IS NULL THEN NULL ELSE ${ERASED} END,
      structured_input = NULL, attachments = NULL, attribution = NULL
      WHERE workspace_id = ${workspaceId} AND id IN ${list(subjects.demandIds)}`),
    db.run(sql`UPDATE ${a2aTasks} SET history = '[]', artifacts = '[]' WHERE workspace_id = ${workspaceId}
      AND context_id IN (SELECT external_session_id FROM ${conversations} WHERE id IN ${conversationIds})`),
    db.run(sql`UPDATE ${conversations} SET attribution = NULL, external_session_id = NULL, token_hash = NULL
      WHERE workspace_id = ${workspaceId} AND id IN ${conversationIds}`),
    db.run(sql`DELETE FROM ${conversationKeys} WHERE conversation_id IN ${conversationIds}`),
    db.run(sql`DELETE FROM ${knowledgeGaps} WHERE workspace_id = ${workspaceId}
      AND last_conversation_id IN ${conversationIds} AND count = 1`),
    db.run(sql`UPDATE ${knowledgeGaps} SET last_conversation_id = NULL WHERE workspace_id = ${workspaceId}
      AND last_conversation_id IN ${conversationIds}`),
    // The webhook outbox's payloads that name them: only the fact that one was erased stays.
    db.run(sql`UPDATE ${events} SET data = json_object('erased', json('true'))
      WHERE workspace_id = ${workspaceId} AND ${mentions(sql`data`)}`),
  ]);
  return results.reduce((sum, result) => sum + result.meta.changes, 0);
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

/**
 * Rewrites the workspace's archived objects that hold rows about the subjects, with those rows
 * erased; answers how many objects changed. Read through the manifest, so only this workspace's
 * objects are opened.
 */
export async function eraseInArchive(
  db: Database,
  bucket: ArchiveBucket,
  workspaceId: string,
  subjects: ErasureSubjects,
): Promise<number> {
  const ids = [...subjects.conversationIds, ...subjects.leadIds, ...subjects.demandIds];
  if (ids.length === 0) return 0;
  const objects = await db.all<{ key: string; kind: string }>(sql`SELECT key, kind FROM ${schema.archiveObjects}
    WHERE workspace_id = ${workspaceId} AND kind IN ('events', 'executions', 'conversations')`);
  let rewritten = 0;
  for (const object of objects) {
    const stored = await bucket.get(object.key);
    if (!stored) continue;
    const rows = await gunzipNdjson(await stored.arrayBuffer());
    if (!rows.some((row) => mentionsAny(row, ids))) continue;
    const erased = rows.map((row) => (mentionsAny(row, ids) ? erasedRow(object.kind, row) : row));
    await rewriteArchive(db, bucket, object.key, erased);
    rewritten += 1;
  }
  return rewritten;
}
