/**
 * Putting a source into the index (docs/design/knowledge.md): its documents read and cut into
 * chunks, then one batch that replaces the source's chunks (the FTS5 index follows by its
 * triggers), takes the chunks' ids from its workspace's range, and records the source's counts.
 * A source too large to read within a request, and every URL source, is indexed by the queue.
 */
import { eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { type Database, schema } from '../../lib/db';
import type { EgressPolicy } from '../../lib/egress';
import { type CrawlOutcome, crawl } from './crawl';
import { readHtml } from './html';
import { type ChunkText, chunksOf, readMarkdown, readPlainText, type SourceDocument } from './text';

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
  counts: { documents: number; bytes: number; etag?: string | null; lastModified?: string | null },
  now: number,
): BatchItem<'sqlite'>[] {
  const writes: BatchItem<'sqlite'>[] = [
    db.delete(knowledgeChunks).where(eq(knowledgeChunks.sourceId, source.id)),
    db.run(sql`UPDATE ${knowledgeSpaces} SET next_chunk = next_chunk + ${chunks.length}
      WHERE workspace_id = ${source.workspaceId}`),
  ];
  // The chunks in statements of bounded size; each statement's first id follows the one before.
  let start = 0;
  while (start < chunks.length) {
    let end = start;
    let chars = 0;
    while (end < chunks.length && (end === start || chars + chunks[end]!.body.length < STATEMENT_CHARS)) {
      chars += chunks[end]!.body.length + chunks[end]!.title.length + 200;
      end++;
    }
    const rows = JSON.stringify(chunks.slice(start, end));
    writes.push(
      db.run(sql`INSERT INTO ${knowledgeChunks} (id, workspace_id, source_id, title, headings, body, url, language)
        SELECT s.ordinal * ${CHUNKS_PER_WORKSPACE} + s.next_chunk - ${chunks.length} + ${start} + j.key,
          ${source.workspaceId}, ${source.id}, json_extract(j.value, '$.title'), json_extract(j.value, '$.headings'),
          json_extract(j.value, '$.body'), json_extract(j.value, '$.url'), ${source.language}
        FROM json_each(${rows}) j, ${knowledgeSpaces} s WHERE s.workspace_id = ${source.workspaceId}`),
    );
    start = end;
  }
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
        indexedAt: now,
        updatedAt: now,
      })
      .where(eq(knowledgeSources.id, source.id)),
  );
  return writes;
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

/**
 * Indexes one source now: reads its documents (a URL source by crawling it through the egress
 * guard), cuts them, and writes the batch. A failure is recorded on the source, not thrown.
 */
export async function indexSource(
  db: Database,
  sourceId: string,
  deps: { egress: EgressPolicy; now: () => number },
): Promise<SourceRow['status'] | undefined> {
  const row = await db.select().from(knowledgeSources).where(eq(knowledgeSources.id, sourceId)).get();
  if (!row) return undefined;
  let documents: SourceDocument[];
  let crawled: CrawlOutcome | undefined;
  if (row.kind === 'url') {
    crawled = await crawl(row, deps.egress);
    if (crawled.unchanged) {
      await db.update(knowledgeSources).set({ indexedAt: deps.now() }).where(eq(knowledgeSources.id, row.id));
      return 'indexed';
    }
    if (crawled.documents.length === 0) {
      await failedWrite(db, row.id, crawled.error ?? 'No page could be read.', deps.now());
      return 'failed';
    }
    documents = crawled.documents;
  } else {
    documents = await readStoredSource(row);
  }
  const chunks = chunksOfDocuments(documents);
  if (chunks.length === 0) {
    await failedWrite(db, row.id, 'The source has no text to index.', deps.now());
    return 'failed';
  }
  if (!(await rangeHasRoom(db, row.workspaceId, chunks.length))) {
    await failedWrite(db, row.id, "The workspace's index is full: delete sources before adding more.", deps.now());
    return 'failed';
  }
  const bytes = crawled?.bytes ?? new TextEncoder().encode(row.content ?? '').length;
  const [first, ...rest] = indexWrites(
    db,
    row,
    chunks,
    {
      documents: documents.length,
      bytes,
      ...(crawled ? { etag: crawled.etag, lastModified: crawled.lastModified } : {}),
    },
    deps.now(),
  );
  await db.batch([first!, ...rest]);
  return 'indexed';
}
