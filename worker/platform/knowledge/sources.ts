/**
 * A workspace's knowledge sources (docs/design/knowledge.md): added within the workspace's limits
 * (1,000 sources and 20 MB by default), listed, read, deleted with their chunks, and synced again.
 * A small document or Q&A pair is indexed in the request that adds it; a large one, and every URL
 * source, goes to the queue (`knowledge.index`), which the daily cron also fills with the URL
 * sources to re-sync. Another workspace's source is 404, as a made-up id is.
 */
import { sweepEachDatabase } from '../shards';
import { and, asc, desc, eq, lt, sql } from 'drizzle-orm';
import { z } from 'zod';
import { type Database, schema } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { iso } from '../../lib/periods';
import { type AuditContext, auditInsert } from '../audit';
import { takeSlotOrRefuse } from '../../lib/rate-limit';
import type { KnowledgeQueue } from './crawl-job';
import { DEFAULT_MAX_BYTES, indexStoredSource, statsWrite } from './indexing';
import type { CreateSource, SourceView } from './schemas';
import type { EgressPolicy } from '../../lib/egress';

const { knowledgeChunks, knowledgeSources, knowledgeSpaces } = schema;

/** The queue message that indexes one source. */
export const indexMessageSchema = z.object({ kind: z.literal('knowledge.index'), source_id: z.string().max(64) });
export type IndexMessage = z.infer<typeof indexMessageSchema>;

/** A document or Q&A pair up to this size is indexed in the request that adds it. */
const INLINE_BYTES = 200 * 1024;
/** URL sources are synced again when their last sync is older than this (the daily cron). */
export const RESYNC_AFTER_MS = 24 * 60 * 60 * 1000;

type SourceRow = typeof knowledgeSources.$inferSelect;

/** A source as the API shows it. */
export function sourceView(row: SourceRow): SourceView {
  return {
    source_id: row.id,
    kind: row.kind,
    title: row.title,
    url: row.url,
    status: row.status,
    documents: row.documents,
    chunks: row.chunks,
    bytes: row.bytes,
    error: row.error,
    indexed_at: iso(row.indexedAt),
    created_at: iso(row.createdAt),
  };
}

/** What adding and indexing sources needs beyond the database (the `knowledge` queue: what is not indexed at once). */
export interface KnowledgeDeps {
  egress: EgressPolicy;
  queue: KnowledgeQueue;
  now: () => number;
}

/** Re-syncs an owner may ask for: per source, and per workspace, each an hour. */
export const SYNC_LIMITS = { perSource: 6, perWorkspace: 60, windowMs: 60 * 60 * 1000 };

/** The row a new source starts as, from its request. */
function rowOf(workspaceId: string, body: CreateSource, now: number): SourceRow {
  const base = {
    id: newId('ks', now),
    workspaceId,
    url: body.url ?? null,
    language: body.language ?? null,
    contentType: null,
    content: null,
    crawlMode: null,
    maxPages: null,
    status: 'queued' as const,
    error: null,
    documents: 0,
    chunks: 0,
    bytes: 0,
    etag: null,
    lastModified: null,
    indexedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  if (body.kind === 'document')
    return {
      ...base,
      kind: 'document',
      title: body.title,
      contentType: body.content_type,
      content: body.content,
      bytes: new TextEncoder().encode(body.content).length,
    };
  if (body.kind === 'qa')
    return {
      ...base,
      kind: 'qa',
      title: body.question,
      content: body.answer,
      bytes: new TextEncoder().encode(body.question + body.answer).length,
    };
  return {
    ...base,
    kind: 'url',
    title: body.url,
    crawlMode: body.crawl?.mode ?? 'page',
    maxPages: body.crawl?.max_pages ?? (body.crawl?.mode && body.crawl.mode !== 'page' ? 100 : 1),
  };
}

/** Refuses a source past the workspace's limits (422, naming the limit). */
async function assertWithinLimits(db: Database, workspaceId: string, bytes: number): Promise<void> {
  const [usage] = await db.all<{ sources: number; bytes: number; max_sources: number; max_bytes: number }>(sql`
    SELECT (SELECT COUNT(*) FROM ${knowledgeSources} WHERE workspace_id = ${workspaceId}) AS sources,
      (SELECT coalesce(SUM(bytes), 0) FROM ${knowledgeSources} WHERE workspace_id = ${workspaceId}) AS bytes,
      coalesce((SELECT max_sources FROM ${knowledgeSpaces} WHERE workspace_id = ${workspaceId}), 1000) AS max_sources,
      coalesce((SELECT max_bytes FROM ${knowledgeSpaces} WHERE workspace_id = ${workspaceId}), ${DEFAULT_MAX_BYTES})
        AS max_bytes`);
  if (!usage) return;
  if (usage.sources >= usage.max_sources)
    throw new ApiError('validation_failed', `This workspace has its ${usage.max_sources} sources: delete some first.`, {
      errors: [{ pointer: '/kind', detail: `At most ${usage.max_sources} sources per workspace.` }],
    });
  if (usage.bytes + bytes > usage.max_bytes)
    throw new ApiError(
      'validation_failed',
      `This source would take the workspace's knowledge past ${Math.round(usage.max_bytes / 1024 / 1024)} MB.`,
      { errors: [{ pointer: '/content', detail: 'Over the workspace’s knowledge size.' }] },
    );
}

/** Adds a source: indexed now when small, else queued. Answers it as it stands. */
export async function createSource(
  db: Database,
  audit: AuditContext & { workspaceId: string },
  body: CreateSource,
  deps: KnowledgeDeps,
): Promise<SourceView> {
  const now = deps.now();
  const row = rowOf(audit.workspaceId, body, now);
  await assertWithinLimits(db, audit.workspaceId, row.bytes);
  await db.batch([
    db.insert(knowledgeSpaces).values({ workspaceId: audit.workspaceId }).onConflictDoNothing(),
    db.insert(knowledgeSources).values(row),
    auditInsert(
      db,
      audit,
      {
        action: 'knowledge.source_added',
        targetId: row.id,
        workspaceId: audit.workspaceId,
        metadata: { kind: row.kind, bytes: row.bytes },
      },
      now,
    ),
  ]);
  await indexOrQueue(db, row, deps);
  return sourceView(await findSource(db, audit.workspaceId, row.id));
}

/** Indexes a small stored source now; queues a large one and every URL source. */
async function indexOrQueue(db: Database, row: SourceRow, deps: KnowledgeDeps): Promise<void> {
  if (row.kind !== 'url' && row.bytes <= INLINE_BYTES) {
    await indexStoredSource(db, row, deps.now());
    return;
  }
  await deps.queue.send({ kind: 'knowledge.index', source_id: row.id } satisfies IndexMessage);
}

/** A source of the workspace (404 otherwise, another workspace's included). */
export async function findSource(db: Database, workspaceId: string, sourceId: string): Promise<SourceRow> {
  const row = await db
    .select()
    .from(knowledgeSources)
    .where(and(eq(knowledgeSources.id, sourceId), eq(knowledgeSources.workspaceId, workspaceId)))
    .get();
  if (!row) throw new ApiError('not_found', `No knowledge source ${sourceId}.`);
  return row;
}

/** The workspace's sources, newest first. */
export async function listSources(db: Database, workspaceId: string): Promise<SourceView[]> {
  const rows = await db
    .select()
    .from(knowledgeSources)
    .where(eq(knowledgeSources.workspaceId, workspaceId))
    .orderBy(desc(knowledgeSources.createdAt))
    .limit(1000);
  return rows.map(sourceView);
}

/** Deletes a source and its chunks (the index forgets them by its trigger), audited. */
export async function deleteSource(
  db: Database,
  audit: AuditContext & { workspaceId: string },
  sourceId: string,
  now: number,
): Promise<void> {
  const row = await findSource(db, audit.workspaceId, sourceId);
  await db.batch([
    db.delete(knowledgeChunks).where(eq(knowledgeChunks.sourceId, row.id)),
    statsWrite(db, audit.workspaceId),
    db.delete(knowledgeSources).where(eq(knowledgeSources.id, row.id)),
    auditInsert(
      db,
      audit,
      {
        action: 'knowledge.source_deleted',
        targetId: row.id,
        workspaceId: audit.workspaceId,
        metadata: { kind: row.kind },
      },
      now,
    ),
  ]);
}

/**
 * Syncs a source again: a URL source is fetched again (queued); a stored one is indexed again. A
 * source already queued (its crawl waiting or under way) answers as it is: that crawl is the sync.
 * At most SYNC_LIMITS a source and a workspace an hour (429 past them).
 */
export async function syncSource(
  db: Database,
  workspaceId: string,
  sourceId: string,
  deps: KnowledgeDeps,
): Promise<SourceView> {
  const row = await findSource(db, workspaceId, sourceId);
  if (row.status === 'queued') return sourceView(row);
  const now = deps.now();
  const detail = 'This source was synced often in the last hour: try again later.';
  await takeSlotOrRefuse(db, `knowledge:sync:${row.id}`, now, {
    windowMs: SYNC_LIMITS.windowMs,
    max: SYNC_LIMITS.perSource,
    detail,
  });
  await takeSlotOrRefuse(db, `knowledge:sync-ws:${workspaceId}`, now, {
    windowMs: SYNC_LIMITS.windowMs,
    max: SYNC_LIMITS.perWorkspace,
    detail: "This workspace's sources were synced often in the last hour: try again later.",
  });
  const queued = await db
    .update(knowledgeSources)
    .set({ status: 'queued', error: null, updatedAt: now })
    .where(and(eq(knowledgeSources.id, row.id), sql`${knowledgeSources.status} <> 'queued'`))
    .returning({ id: knowledgeSources.id });
  // Two syncs at once: the one that queued it sends the message; the other answers that sync.
  if (queued.length === 1) await indexOrQueue(db, row, deps);
  return sourceView(await findSource(db, workspaceId, sourceId));
}

/**
 * Queues the stale URL sources of every database that holds sources (below), each within `limit`.
 */
export async function queueStaleUrlSources(
  db: Database,
  queue: Queue<unknown>,
  now: number,
  limit = 100,
): Promise<number> {
  return sweepEachDatabase(db, schema.knowledgeSources, (each) => queueStaleUrlSourcesIn(each, queue, now, limit));
}

/** The daily cron: queues the URL sources whose last sync is a day old (at most `limit` a tick). */
async function queueStaleUrlSourcesIn(db: Database, queue: Queue<unknown>, now: number, limit = 100): Promise<number> {
  const stale = await db
    .select({ id: knowledgeSources.id })
    .from(knowledgeSources)
    .where(and(eq(knowledgeSources.kind, 'url'), lt(knowledgeSources.indexedAt, now - RESYNC_AFTER_MS)))
    .orderBy(asc(knowledgeSources.indexedAt))
    .limit(limit);
  if (stale.length === 0) return 0;
  await queue.sendBatch(stale.map(({ id }) => ({ body: { kind: 'knowledge.index', source_id: id } })));
  // Not queued again before the next day, whatever the queue makes of them.
  await db
    .update(knowledgeSources)
    .set({ indexedAt: now - RESYNC_AFTER_MS + 60 * 60 * 1000 })
    .where(sql`${knowledgeSources.id} IN (SELECT value FROM json_each(${JSON.stringify(stale.map((s) => s.id))}))`);
  return stale.length;
}

/** A source queued this long ago and still not indexed lost its message (or its retries): it is sent again. */
export const STUCK_AFTER_MS = 10 * 60 * 1000;

/**
 * Sends the stuck sources of every database that holds sources again (below), each within `limit`.
 */
export async function requeueStuckSources(
  db: Database,
  queue: Queue<unknown>,
  now: number,
  limit = 100,
): Promise<number> {
  return sweepEachDatabase(db, schema.knowledgeSources, (each) => requeueStuckSourcesIn(each, queue, now, limit));
}

/**
 * The housekeeping cron: the sources still queued STUCK_AFTER_MS after they were queued go back on
 * the queue (at most `limit` a tick), so that a message the queue dropped after its retries never
 * leaves a source queued for good.
 */
async function requeueStuckSourcesIn(db: Database, queue: Queue<unknown>, now: number, limit = 100): Promise<number> {
  const stuck = await db
    .update(knowledgeSources)
    .set({ updatedAt: now })
    .where(
      sql`${knowledgeSources.id} IN (SELECT id FROM ${knowledgeSources}
        WHERE status = 'queued' AND updated_at < ${now - STUCK_AFTER_MS} ORDER BY updated_at LIMIT ${limit})`,
    )
    .returning({ id: knowledgeSources.id });
  if (stuck.length === 0) return 0;
  await queue.sendBatch(stuck.map(({ id }) => ({ body: { kind: 'knowledge.index', source_id: id } })));
  return stuck.length;
}
