/**
 * The knowledge queue's job (docs/design/knowledge.md#url-sources): index one source. A stored
 * source is indexed at once; a URL source is crawled in slices of at most CRAWL_SLICE_MS, each a
 * queue message of its own on the `knowledge` queue (no other job waits behind a slow site): a
 * slice takes the crawl's lease, reads on from its cursor, keeps the pages it read, and either
 * sends the next slice or, at the end, indexes every page in one batch. A crawl that needs more
 * than CRAWL_MAX_SLICES slices (or keeps crashing) ends `failed`, as does one past the limits.
 */
import { enterWhereFound } from '../shards';
import { eq, sql } from 'drizzle-orm';
import { type Database, isConstraintViolation, schema } from '../../lib/db';
import type { EgressPolicy } from '../../lib/egress';
import { windowIncrement } from '../../lib/rate-limit';
import { type CrawlCursor, crawlSlice, newCursor, PAGES_PER_SECOND } from './crawl';
import { failedWrite, indexDocuments, indexStoredSource, limitsLeft, overLimitReason } from './indexing';
import type { ReadDocument, SourceDocument } from './text';

const { knowledgeCrawls, knowledgeCrawlPages, knowledgeSources } = schema;

/** A slice starts no fetch after this long (a queue consumer may run for 15 minutes). */
export const CRAWL_SLICE_MS = 25_000;
/** A slice that has not ended this long after it took the lease has died: another may take it. */
const LEASE_MS = CRAWL_SLICE_MS + 60_000;
/** The most slices a crawl may take: 500 pages at 2 a second need about ten. */
export const CRAWL_MAX_SLICES = 40;
/** A page's read text kept between slices stays within D1's 2 MB value. */
const STAGED_PAGE_CHARS = 1_500_000;

/** Sends the next slice of a crawl. */
export interface KnowledgeQueue {
  send(message: { kind: 'knowledge.index'; source_id: string }): Promise<unknown>;
}

export interface CrawlDeps {
  egress: EgressPolicy;
  queue: KnowledgeQueue;
  now: () => number;
}

type SourceRow = typeof knowledgeSources.$inferSelect;

/**
 * Waits for a host's turn: at most PAGES_PER_SECOND pages a second from one host, counted in D1
 * (rate_limit_windows), so two crawls of one site, or twenty re-syncs, ask it no faster. Answers
 * false when the turn has not come by `deadline` (the slice then ends, and the next goes on).
 */
export function hostTurn(db: Database, now: () => number, deadline: number) {
  return async (host: string): Promise<boolean> => {
    for (;;) {
      try {
        await windowIncrement(db, `crawl:host:${host.slice(0, 200)}`, now(), 1000, PAGES_PER_SECOND);
        return true;
      } catch (error) {
        if (!isConstraintViolation(error, 'within_window_limit')) throw error;
        if (now() >= deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, 1000 / PAGES_PER_SECOND));
      }
    }
  };
}

/** A page's document, its sections cut so the JSON kept between slices stays within D1's bounds. */
function boundedDocument(document: ReadDocument): ReadDocument {
  let chars = document.title.length;
  const sections = [];
  for (const section of document.sections) {
    if (chars >= STAGED_PAGE_CHARS) break;
    const text = section.text.slice(0, STAGED_PAGE_CHARS - chars);
    chars += text.length + section.headings.join('').length;
    sections.push({ ...section, text });
  }
  return { title: document.title, sections };
}

/** Takes the crawl's lease (starting the crawl if there is none): the crawl's row, or null when a slice holds it. */
async function takeLease(db: Database, row: SourceRow, now: number) {
  const cursor = newCursor({ ...row, url: row.url ?? '' });
  return db
    .insert(knowledgeCrawls)
    .values({
      sourceId: row.id,
      workspaceId: row.workspaceId,
      cursor: cursor as unknown as Record<string, unknown>,
      slices: 1,
      leaseUntil: now + LEASE_MS,
      startedAt: now,
      updatedAt: now,
    })
    .onConflictDoUpdate({
      target: knowledgeCrawls.sourceId,
      set: { leaseUntil: now + LEASE_MS, slices: sql`${knowledgeCrawls.slices} + 1`, updatedAt: now },
      setWhere: sql`${knowledgeCrawls.leaseUntil} IS NULL OR ${knowledgeCrawls.leaseUntil} < ${now}`,
    })
    .returning()
    .get();
}

/** The statements that end a crawl: its cursor and the pages it kept go. */
const endCrawl = (db: Database, sourceId: string) => [
  db.delete(knowledgeCrawls).where(eq(knowledgeCrawls.sourceId, sourceId)),
  db.delete(knowledgeCrawlPages).where(eq(knowledgeCrawlPages.sourceId, sourceId)),
];

/**
 * Indexes one source: a stored one at once; a URL source one slice of its crawl at a time.
 * Answers the source's status after this message, or undefined when the source is gone or another
 * slice of its crawl is running.
 */
export async function indexSource(
  db: Database,
  sourceId: string,
  deps: CrawlDeps,
): Promise<SourceRow['status'] | undefined> {
  // The message names the source only: its organisation's shard is the one that has it.
  const { id, workspaceId } = knowledgeSources;
  if (!(await enterWhereFound(db, knowledgeSources, id, workspaceId, sourceId))) return undefined;
  const row = await db.select().from(knowledgeSources).where(eq(knowledgeSources.id, sourceId)).get();
  if (!row) {
    // Deleted while its crawl ran: what the crawl kept goes too.
    const [dropCursor, dropPages] = endCrawl(db, sourceId);
    await db.batch([dropCursor!, dropPages!]);
    return undefined;
  }
  if (row.kind !== 'url') return indexStoredSource(db, row, deps.now());
  return crawlOneSlice(db, row, deps);
}

async function crawlOneSlice(db: Database, row: SourceRow, deps: CrawlDeps) {
  const now = deps.now();
  const crawl = await takeLease(db, row, now);
  if (!crawl) return undefined;
  const [dropCursor, dropPages] = endCrawl(db, row.id);
  const fail = async (reason: string) => {
    await db.batch([failedWrite(db, row.id, reason, deps.now()), dropCursor!, dropPages!]);
    return 'failed' as const;
  };
  if (crawl.slices > CRAWL_MAX_SLICES)
    return fail(`The crawl did not finish within ${CRAWL_MAX_SLICES} runs: crawl fewer pages, or a faster site.`);
  const left = await limitsLeft(db, row.workspaceId, row.id);
  const cursor = crawl.cursor as unknown as CrawlCursor;
  const deadline = now + CRAWL_SLICE_MS;
  const slice = await crawlSlice(cursor, {
    egress: deps.egress,
    deadline,
    bytesLeft: left.bytes,
    limitBytes: left.maxBytes,
    hostTurn: hostTurn(db, deps.now, deadline),
  });
  const staged = slice.pages.map((page) =>
    db.insert(knowledgeCrawlPages).values({
      sourceId: row.id,
      url: page.url ?? row.url ?? '',
      document: boundedDocument(page.document) as unknown as Record<string, unknown>,
    }),
  );
  const end = slice.end;
  if (end.kind === 'failed' || end.kind === 'over_limit') return fail(end.reason);
  if (end.kind === 'unchanged') {
    await db.batch([
      db
        .update(knowledgeSources)
        .set({ status: 'indexed', indexedAt: deps.now() })
        .where(eq(knowledgeSources.id, row.id)),
      dropCursor!,
      dropPages!,
    ]);
    return 'indexed';
  }
  if (end.kind === 'more') {
    await db.batch([
      db
        .update(knowledgeCrawls)
        .set({
          cursor: slice.cursor as unknown as Record<string, unknown>,
          leaseUntil: null,
          updatedAt: deps.now(),
        })
        .where(eq(knowledgeCrawls.sourceId, row.id)),
      // The source is still at work: housekeeping's stuck-source sweep leaves it to its slices.
      db.update(knowledgeSources).set({ updatedAt: deps.now() }).where(eq(knowledgeSources.id, row.id)),
      ...staged,
    ]);
    await deps.queue.send({ kind: 'knowledge.index', source_id: row.id });
    return 'queued';
  }
  // Done: every page the crawl read, the earlier slices' and this one's, indexed in one batch.
  const kept = await db
    .select({ url: knowledgeCrawlPages.url, document: knowledgeCrawlPages.document })
    .from(knowledgeCrawlPages)
    .where(eq(knowledgeCrawlPages.sourceId, row.id))
    .orderBy(knowledgeCrawlPages.id);
  const documents: SourceDocument[] = [
    ...kept.map((page) => ({ url: page.url, document: page.document as unknown as ReadDocument })),
    ...slice.pages,
  ];
  if (slice.cursor.bytes > left.bytes) return fail(overLimitReason('bytes', left));
  return indexDocuments(
    db,
    row,
    documents,
    { bytes: slice.cursor.bytes, etag: slice.cursor.etag, lastModified: slice.cursor.lastModified },
    deps.now(),
    [dropCursor!, dropPages!],
  );
}
