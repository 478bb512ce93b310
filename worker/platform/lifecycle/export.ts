/**
 * What an export holds (docs/design/data-lifecycle.md#export; GDPR article 20): a workspace's
 * channels, conversations with their messages, leads with their history; or, for one contact
 * address, that contact's leads, their conversations and messages. One line per row, named by its
 * table. Secrets (keys' hashes, signing secrets, visitors' bearer hashes) are never in it; erased
 * texts are the marker they became.
 */
import { sql } from 'drizzle-orm';
import { type Database, schema } from '../../lib/db';

const { channels, conversations, messages, leads, leadEvents } = schema;

/** Rows read a statement: exports page through their tables. */
const PAGE = 1_000;

type Line = Record<string, unknown> & { table: string };

/** Every row a query pages through (keyset on `id`), each as a line of `table`. */
async function pageThrough(db: Database, table: string, query: (after: string) => ReturnType<typeof sql>) {
  const lines: Line[] = [];
  let after = '';
  for (;;) {
    const rows = await db.all<Record<string, unknown>>(sql`${query(after)} ORDER BY id LIMIT ${PAGE}`);
    for (const row of rows) lines.push({ table, ...row });
    if (rows.length < PAGE) return lines;
    after = String(rows[rows.length - 1]!.id);
  }
}

/** The export's lines, for the workspace or for one contact address's leads. */
export async function exportRows(db: Database, workspaceId: string, contactEmail?: string): Promise<Line[]> {
  const contactLeads = contactEmail
    ? sql`(SELECT id FROM ${leads} WHERE workspace_id = ${workspaceId} AND lower(contact_email) = ${contactEmail})`
    : undefined;
  const contactConversations = contactEmail
    ? sql`(SELECT conversation_id FROM ${leads} WHERE workspace_id = ${workspaceId}
        AND lower(contact_email) = ${contactEmail} AND conversation_id IS NOT NULL)`
    : undefined;
  const inWorkspace = sql`workspace_id = ${workspaceId}`;
  const lines: Line[] = [];
  if (!contactEmail)
    lines.push(
      ...(await pageThrough(
        db,
        'channels',
        (after) => sql`SELECT channel_key AS id, name, domain, status, created_at FROM ${channels}
          WHERE ${inWorkspace} AND channel_key > ${after}`,
      )),
    );
  lines.push(
    ...(await pageThrough(
      db,
      'conversations',
      (after) => sql`SELECT id, kind, channel_id, language, lead_id, created_at, last_seen_at FROM ${conversations}
        WHERE ${inWorkspace} AND id > ${after}
        ${contactConversations ? sql`AND id IN ${contactConversations}` : sql``}`,
    )),
    ...(await pageThrough(
      db,
      'messages',
      (after) => sql`SELECT m.id, m.conversation_id, m.role, m.text, m.created_at FROM ${messages} m
        WHERE m.conversation_id IN (SELECT id FROM ${conversations} WHERE ${inWorkspace}
          ${contactConversations ? sql`AND id IN ${contactConversations}` : sql``}) AND m.id > ${after}`,
    )),
    ...(await pageThrough(
      db,
      'leads',
      (after) => sql`SELECT id, status, contact_name, contact_email, contact_phone, conversation_id, domain, topic,
          summary, language, created_at FROM ${leads}
        WHERE ${inWorkspace} AND id > ${after} ${contactLeads ? sql`AND id IN ${contactLeads}` : sql``}`,
    )),
    ...(await pageThrough(
      db,
      'lead_events',
      (after) => sql`SELECT id, lead_id, from_status, to_status, note, created_at FROM ${leadEvents}
        WHERE lead_id IN ${contactLeads ?? sql`(SELECT id FROM ${leads} WHERE ${inWorkspace})`} AND id > ${after}`,
    )),
  );
  return lines;
}
