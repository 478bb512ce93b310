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
 * PAGE rows at a time: a large workspace's export is never held in memory as rows (writeExport).
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

/** The size of each part but the last of a large export: R2's smallest, so memory holds little. */
export const EXPORT_PART_BYTES = 5 * 1024 * 1024;

/** R2's multipart upload, as the export uses it. */
interface ExportUpload {
  uploadPart(partNumber: number, value: Uint8Array): Promise<{ partNumber: number; etag: string }>;
  complete(parts: { partNumber: number; etag: string }[]): Promise<unknown>;
  abort(): Promise<void>;
}

/** What of R2 an export writes with (R2Bucket has it; tests may hand another). */
export interface ExportBucket {
  put(key: string, value: Uint8Array, options?: { httpMetadata?: { contentType?: string } }): Promise<unknown>;
  createMultipartUpload(key: string, options?: { httpMetadata?: { contentType?: string } }): Promise<ExportUpload>;
}

const NDJSON = { httpMetadata: { contentType: 'application/x-ndjson' } };

/**
 * Writes the export to `key` as gzip NDJSON, compressing each page as it is read and sending the
 * compressed bytes on in parts of `partBytes` (the last one smaller, as R2 requires), so memory
 * holds a page of rows and a part of bytes whatever the workspace's size. An export within one part
 * is a single put. Answers the rows, the compressed bytes and the parts.
 */
export async function writeExport(
  pages: AsyncIterable<Line[]>,
  bucket: ExportBucket,
  key: string,
  partBytes = EXPORT_PART_BYTES,
): Promise<{ rows: number; bytes: number; parts: number }> {
  const gzip = new CompressionStream('gzip');
  const uploaded = uploadInParts(gzip.readable, bucket, key, partBytes);
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
    await uploaded.catch(() => undefined);
    throw error;
  }
  return { rows, ...(await uploaded) };
}

/** Reads the compressed stream to its end, sending a part whenever more than a part is held. */
async function uploadInParts(stream: ReadableStream<Uint8Array>, bucket: ExportBucket, key: string, partBytes: number) {
  const reader = stream.getReader();
  const held = new HeldBytes();
  const parts: { partNumber: number; etag: string }[] = [];
  let upload: ExportUpload | undefined;
  let bytes = 0;
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      held.push(read.value);
      bytes += read.value.byteLength;
      // More than a part, not a part: the last part is never empty.
      while (held.size > partBytes) {
        upload ??= await bucket.createMultipartUpload(key, NDJSON);
        parts.push(await upload.uploadPart(parts.length + 1, held.take(partBytes)));
      }
    }
    if (!upload) {
      await bucket.put(key, held.take(held.size), NDJSON);
      return { bytes, parts: 1 };
    }
    parts.push(await upload.uploadPart(parts.length + 1, held.take(held.size)));
    await upload.complete(parts);
    return { bytes, parts: parts.length };
  } catch (error) {
    // The compressor's writer fails too, instead of waiting on a reader that is gone.
    await reader.cancel(error).catch(() => undefined);
    await upload?.abort().catch(() => undefined);
    throw error;
  }
}

/** Chunks held in arrival order, taken from the front a given number of bytes at a time. */
class HeldBytes {
  private chunks: Uint8Array[] = [];
  size = 0;

  push(chunk: Uint8Array): void {
    this.chunks.push(chunk);
    this.size += chunk.byteLength;
  }

  take(count: number): Uint8Array {
    const out = new Uint8Array(count);
    let filled = 0;
    while (filled < count) {
      const chunk = this.chunks[0]!;
      const used = Math.min(chunk.byteLength, count - filled);
      out.set(chunk.subarray(0, used), filled);
      filled += used;
      if (used === chunk.byteLength) this.chunks.shift();
      else this.chunks[0] = chunk.subarray(used);
    }
    this.size -= count;
    return out;
  }
}
