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

/** Every row a query pages through (keyset on `id`), a page at a time, each row a line of `table`. */
async function* pageThrough(db: Database, table: string, query: (after: string) => ReturnType<typeof sql>) {
  let after = '';
  for (;;) {
    const rows = await db.all<Record<string, unknown>>(sql`${query(after)} ORDER BY id LIMIT ${PAGE}`);
    if (rows.length > 0) yield rows.map((row): Line => ({ table, ...row }));
    if (rows.length < PAGE) return;
    after = String(rows[rows.length - 1]!.id);
  }
}

/**
 * The export's lines, for the workspace or for one contact address's leads, a page of at most
 * PAGE rows at a time: a large workspace's export is never held in memory as rows (exportObject).
 */
export async function* exportPages(db: Database, workspaceId: string, contactEmail?: string): AsyncGenerator<Line[]> {
  const contactLeads = contactEmail
    ? sql`(SELECT id FROM ${leads} WHERE workspace_id = ${workspaceId} AND lower(contact_email) = ${contactEmail})`
    : undefined;
  const contactConversations = contactEmail
    ? sql`(SELECT conversation_id FROM ${leads} WHERE workspace_id = ${workspaceId}
        AND lower(contact_email) = ${contactEmail} AND conversation_id IS NOT NULL)`
    : undefined;
  const inWorkspace = sql`workspace_id = ${workspaceId}`;
  if (!contactEmail)
    yield* pageThrough(
      db,
      'channels',
      (after) => sql`SELECT channel_key AS id, name, domain, status, created_at FROM ${channels}
        WHERE ${inWorkspace} AND channel_key > ${after}`,
    );
  yield* pageThrough(
    db,
    'conversations',
    (after) => sql`SELECT id, kind, channel_id, language, lead_id, created_at, last_seen_at FROM ${conversations}
        WHERE ${inWorkspace} AND id > ${after}
        ${contactConversations ? sql`AND id IN ${contactConversations}` : sql``}`,
  );
  yield* pageThrough(
    db,
    'messages',
    (after) => sql`SELECT m.id, m.conversation_id, m.role, m.text, m.created_at FROM ${messages} m
        WHERE m.conversation_id IN (SELECT id FROM ${conversations} WHERE ${inWorkspace}
          ${contactConversations ? sql`AND id IN ${contactConversations}` : sql``}) AND m.id > ${after}`,
  );
  yield* pageThrough(
    db,
    'leads',
    (after) => sql`SELECT id, status, contact_name, contact_email, contact_phone, conversation_id, domain, topic,
          summary, language, created_at FROM ${leads}
        WHERE ${inWorkspace} AND id > ${after} ${contactLeads ? sql`AND id IN ${contactLeads}` : sql``}`,
  );
  yield* pageThrough(
    db,
    'lead_events',
    (after) => sql`SELECT id, lead_id, from_status, to_status, note, created_at FROM ${leadEvents}
        WHERE lead_id IN ${contactLeads ?? sql`(SELECT id FROM ${leads} WHERE ${inWorkspace})`} AND id > ${after}`,
  );
}

/**
 * The export as one gzip NDJSON object: each page is written to the compressor as it is read, and
 * only the compressed bytes are kept (a tenth of the text, or less), so memory holds one page of
 * rows whatever the workspace's size. Answers the bytes and the number of rows.
 */
export async function exportObject(pages: AsyncIterable<Line[]>): Promise<{ body: Uint8Array; rows: number }> {
  const gzip = new CompressionStream('gzip');
  const compressed = new Response(gzip.readable).arrayBuffer();
  const writer = gzip.writable.getWriter();
  const encoder = new TextEncoder();
  let rows = 0;
  try {
    for await (const page of pages) {
      rows += page.length;
      await writer.write(encoder.encode(`${page.map((line) => JSON.stringify(line)).join('\n')}\n`));
    }
    await writer.close();
  } catch (error) {
    await writer.abort(error).catch(() => undefined);
    await compressed.catch(() => undefined);
    throw error;
  }
  return { body: new Uint8Array(await compressed), rows };
}
