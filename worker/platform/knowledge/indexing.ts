/**
 * Putting a source into the index (docs/design/knowledge.md): its documents read and cut into
 * chunks, then one batch that replaces the source's chunks (the FTS5 index follows by its
 * triggers), takes the chunks' ids from its workspace's range, and records the source's counts.
 * A source too large to read within a request, and every URL source, is indexed by the queue.
 */
import { eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { type Database, schema } from '../../lib/db';
import { readHtml } from './html';
import { stemsOf } from './bm25';
import { type ChunkText, chunksOf, readMarkdown, readPlainText, type SourceDocument } from './text';
import { guessLanguage } from './words';

const { knowledgeChunks, knowledgeSources, knowledgeSpaces } = schema;

/** The size of a workspace's id range: its chunks' ids are ordinal × 2^24 + counter. */
export const CHUNKS_PER_WORKSPACE = 2 ** 24;
/** At most this many characters of chunks go in one statement's JSON (D1 takes values up to 2 MB). */
const STATEMENT_CHARS = 400_000;

type SourceRow = typeof knowledgeSources.$inferSelect;

/** Reads a document or Q&A source's stored content into its documents. */
export async function readStoredSource(row: SourceRow): Promise<SourceDocument[]> {
  const content = row.content ?? '';
  if (row.kind === 'qa')
    return [
      { document: { title: row.title, sections: [{ headings: [], anchor: null, text: content }] }, url: row.url },
    ];
  if (row.contentType === 'text/html')
    return [{ document: (await readHtml(content, row.title, row.url)).document, url: row.url }];
  if (row.contentType === 'text/plain') return [{ document: readPlainText(content, row.title), url: row.url }];
  return [{ document: readMarkdown(content, row.title), url: row.url }];
}

/** The chunks of a source's documents. */
export function chunksOfDocuments(documents: SourceDocument[]): ChunkText[] {
  return documents.flatMap(({ document, url }) => chunksOf(document, url));
}

/**
 * The batch that replaces a source's chunks with `chunks` and marks it indexed: the old chunks
 * go, the workspace's counter moves past the new ones, each new chunk takes its id from there.
 */
export function indexWrites(
  db: Database,
  source: Pick<SourceRow, 'id' | 'workspaceId' | 'language'>,
  chunks: ChunkText[],
  counts: { documents: number; bytes: number; etag?: string | null; lastModified?: string | null; title?: string },
  now: number,
): BatchItem<'sqlite'>[] {
  const writes: BatchItem<'sqlite'>[] = [
    db.delete(knowledgeChunks).where(eq(knowledgeChunks.sourceId, source.id)),
    db.run(sql`UPDATE ${knowledgeSpaces} SET next_chunk = next_chunk + ${chunks.length}
      WHERE workspace_id = ${source.workspaceId}`),
  ];
  // A source that does not say its language is read for it: a question in another is told so.
  const language = source.language ?? guessLanguage(chunks.map((chunk) => chunk.body).join(' '));
  // The chunks in statements of bounded size; each statement's first id follows the one before.
  let start = 0;
  while (start < chunks.length) {
    let end = start;
    let chars = 0;
    while (end < chunks.length && (end === start || chars + chunks[end]!.body.length < STATEMENT_CHARS)) {
      chars += chunks[end]!.body.length + chunks[end]!.title.length + 200;
      end++;
    }
    // Each chunk with its fields' lengths in words, as ranking counts them (bm25.ts).
    const rows = JSON.stringify(
      chunks.slice(start, end).map((chunk) => ({
        ...chunk,
        t: stemsOf(chunk.title).length,
        h: stemsOf(chunk.headings).length,
        b: stemsOf(chunk.body).length,
      })),
    );
    writes.push(
      db.run(sql`INSERT INTO ${knowledgeChunks} (id, workspace_id, source_id, title, headings, body, url, language,
          title_tokens, heading_tokens, body_tokens)
        SELECT s.ordinal * ${CHUNKS_PER_WORKSPACE} + s.next_chunk - ${chunks.length} + ${start} + j.key,
          ${source.workspaceId}, ${source.id}, json_extract(j.value, '$.title'), json_extract(j.value, '$.headings'),
          json_extract(j.value, '$.body'), json_extract(j.value, '$.url'), ${language},
          json_extract(j.value, '$.t'), json_extract(j.value, '$.h'), json_extract(j.value, '$.b')
        FROM json_each(${rows}) j, ${knowledgeSpaces} s WHERE s.workspace_id = ${source.workspaceId}`),
    );
    start = end;
  }
  writes.push(statsWrite(db, source.workspaceId));
  writes.push(
    db
      .update(knowledgeSources)
      .set({
        status: 'indexed',
        error: null,
        documents: counts.documents,
        chunks: chunks.length,
        bytes: counts.bytes,
        ...(counts.etag !== undefined ? { etag: counts.etag } : {}),
        ...(counts.lastModified !== undefined ? { lastModified: counts.lastModified } : {}),
        ...(counts.title ? { title: counts.title } : {}),
        indexedAt: now,
        updatedAt: now,
      })
      .where(eq(knowledgeSources.id, source.id)),
  );
  return writes;
}

/** A field's length in words, or (for a passage written before lengths were counted) its spaces plus one. */
const tokensOf = (counted: string, text: string) =>
  sql.raw(`CASE WHEN ${counted} > 0 THEN ${counted} ELSE length(${text}) - length(replace(${text}, ' ', '')) + 1 END`);

/**
 * The statement that counts the workspace's ranking statistics again from its passages (after its
 * chunks change): how many, their fields' words, and the language most are written in. It reads
 * the workspace's id range only.
 */
export function statsWrite(db: Database, workspaceId: string): BatchItem<'sqlite'> {
  const size = sql.raw(String(CHUNKS_PER_WORKSPACE));
  const range = sql`c.id >= ${knowledgeSpaces}.ordinal * ${size} AND c.id < (${knowledgeSpaces}.ordinal + 1) * ${size}`;
  return db.run(sql`UPDATE ${knowledgeSpaces} SET (passages, title_tokens, heading_tokens, body_tokens) = (
      SELECT count(*), coalesce(sum(${tokensOf('c.title_tokens', 'c.title')}), 0),
        coalesce(sum(${tokensOf('c.heading_tokens', 'c.headings')}), 0),
        coalesce(sum(${tokensOf('c.body_tokens', 'c.body')}), 0)
      FROM ${knowledgeChunks} c WHERE ${range}),
      language = (SELECT c.language FROM ${knowledgeChunks} c WHERE ${range}
        GROUP BY c.language ORDER BY count(*) DESC LIMIT 1)
    WHERE workspace_id = ${workspaceId}`);
}

/** Marks a source failed, with its reason (its earlier chunks, if any, stay searchable). */
export function failedWrite(db: Database, sourceId: string, reason: string, now: number): BatchItem<'sqlite'> {
  return db
    .update(knowledgeSources)
    .set({ status: 'failed', error: reason.slice(0, 500), updatedAt: now })
    .where(eq(knowledgeSources.id, sourceId));
}

/** Whether the workspace's id range has room for `count` more chunks. */
export async function rangeHasRoom(db: Database, workspaceId: string, count: number): Promise<boolean> {
  const space = await db
    .select({ next: knowledgeSpaces.nextChunk })
    .from(knowledgeSpaces)
    .where(eq(knowledgeSpaces.workspaceId, workspaceId))
    .get();
  return (space?.next ?? 0) + count < CHUNKS_PER_WORKSPACE;
}

/** What the workspace's knowledge has left beside one source: its limits, less the other sources'. */
export async function limitsLeft(db: Database, workspaceId: string, sourceId: string) {
  const [row] = await db.all<{ bytes: number; chunks: number; max_bytes: number; max_chunks: number }>(sql`
    SELECT coalesce(sum(CASE WHEN id <> ${sourceId} THEN bytes END), 0) AS bytes,
      coalesce(sum(CASE WHEN id <> ${sourceId} THEN chunks END), 0) AS chunks,
      coalesce((SELECT max_bytes FROM ${knowledgeSpaces} WHERE workspace_id = ${workspaceId}), ${DEFAULT_MAX_BYTES})
        AS max_bytes,
      coalesce((SELECT max_chunks FROM ${knowledgeSpaces} WHERE workspace_id = ${workspaceId}), ${DEFAULT_MAX_CHUNKS})
        AS max_chunks
    FROM ${knowledgeSources} WHERE workspace_id = ${workspaceId}`);
  const limits = row ?? { bytes: 0, chunks: 0, max_bytes: DEFAULT_MAX_BYTES, max_chunks: DEFAULT_MAX_CHUNKS };
  return {
    bytes: limits.max_bytes - limits.bytes,
    chunks: limits.max_chunks - limits.chunks,
    maxBytes: limits.max_bytes,
    maxChunks: limits.max_chunks,
  };
}

/** The workspace's limits when it has set none (knowledge_spaces' defaults). */
export const DEFAULT_MAX_BYTES = 20 * 1024 * 1024;
export const DEFAULT_MAX_CHUNKS = 20_000;

type Limits = { maxBytes: number; maxChunks: number };

/** The reason a source fails when it would pass one of the workspace's limits, naming the limit. */
export function overLimitReason(limit: 'bytes' | 'chunks', limits: Limits): string {
  const named =
    limit === 'bytes'
      ? `${Math.round(limits.maxBytes / 1024 / 1024)} MB`
      : `${limits.maxChunks.toLocaleString('en')} passages`;
  return `This source would take the workspace's knowledge past its limit of ${named}: delete sources first.`;
}

/** Why the database refused an index batch for the workspace's limits (migration 0038's triggers), if it did. */
function limitRefusal(error: unknown, limits: Limits): string | undefined {
  const text = error instanceof Error ? `${error.message} ${String(error.cause ?? '')}` : String(error);
  if (text.includes('knowledge_bytes_limit')) return overLimitReason('bytes', limits);
  if (text.includes('knowledge_chunks_limit')) return overLimitReason('chunks', limits);
  return undefined;
}

/**
 * Writes a source's documents into the index: cut into chunks, checked against the workspace's
 * range and limits, one batch. A source that does not fit is marked failed with its reason (its
 * earlier chunks stay); `extra` statements (a crawl's clean-up) join the batch that succeeds.
 */
export async function indexDocuments(
  db: Database,
  row: SourceRow,
  documents: SourceDocument[],
  counts: { bytes: number; etag?: string | null; lastModified?: string | null },
  now: number,
  extra: BatchItem<'sqlite'>[] = [],
): Promise<'indexed' | 'failed'> {
  const chunks = chunksOfDocuments(documents);
  const fail = async (reason: string) => {
    await db.batch([failedWrite(db, row.id, reason, now), ...extra]);
    return 'failed' as const;
  };
  if (chunks.length === 0) return fail('The source has no text to index.');
  const left = await limitsLeft(db, row.workspaceId, row.id);
  if (counts.bytes > left.bytes) return fail(overLimitReason('bytes', left));
  if (chunks.length > left.chunks) return fail(overLimitReason('chunks', left));
  if (!(await rangeHasRoom(db, row.workspaceId, chunks.length)))
    return fail("The workspace's index is full: delete sources before adding more.");
  // A URL source is listed by its page's title (the start page's, or the first page read), not its address.
  const page = documents.find((document) => document.url === row.url) ?? documents[0];
  const title = row.kind === 'url' ? page?.document.title.slice(0, 200).trim() || null : null;
  const [first, ...rest] = indexWrites(
    db,
    row,
    chunks,
    { documents: documents.length, ...counts, ...(title ? { title } : {}) },
    now,
  );
  try {
    await db.batch([first!, ...rest, ...extra]);
  } catch (error) {
    // Another source of the workspace took what was left meanwhile: the database refused this one.
    const refused = limitRefusal(error, left);
    if (!refused) throw error;
    return fail(refused);
  }
  return 'indexed';
}

/** Indexes a stored source (a document or a Q&A pair) now. A failure is recorded on the source, not thrown. */
export async function indexStoredSource(db: Database, row: SourceRow, now: number): Promise<'indexed' | 'failed'> {
  const documents = await readStoredSource(row);
  return indexDocuments(db, row, documents, { bytes: new TextEncoder().encode(row.content ?? '').length }, now);
}
