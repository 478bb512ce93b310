/**
 * Privacy requests (docs/design/data-lifecycle.md#erasure): an owner (or an administrator naming
 * the workspace) asks for a visitor's erasure or for an export; the request is answered at once
 * (202) and runs as a job on the events queue, within seconds. An erasure asked while the same one
 * is pending is that one; asked later, it runs again over what the address has by then. An export
 * is gzip NDJSON in R2, fetched through a link signed for 24 hours, kept EXPORT_KEEP_MS, and
 * deleted by any erasure of its workspace (it may hold what was erased).
 */
import { sweepEachDatabase } from '../shards';
import { enterWhereFound } from '../shards';
import { and, desc, eq, gte, inArray, lt, or, sql } from 'drizzle-orm';
import { z } from 'zod';
import { sha256Hex } from '../../lib/crypto';
import { type Database, schema } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { auditInsert, type AuditContext } from '../audit';
import { scrubAddresses } from '../email';
import type { ArchiveBucket } from './archive';
import { eraseInArchive, eraseInDatabase, type ErasureSubjects, erasureSubjects } from './erasure';
import { type ExportBucket, exportPages, writeExport } from './export';

const { privacyRequests, conversations } = schema;

/** The queue message that runs a request. */
export const privacyMessageSchema = z.object({ kind: z.literal('privacy.run'), request_id: z.string().max(64) });

/** How long an export's signed link works. */
export const EXPORT_LINK_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a finished export's object is kept; then housekeeping deletes it (status `expired`). */
export const EXPORT_KEEP_MS = 7 * 24 * 60 * 60 * 1000;
/** A request still queued or running this long after it was last sent has lost its message: sent again. */
export const PRIVACY_STUCK_AFTER_MS = 10 * 60 * 1000;
/** A request sent this many times without finishing is given up (`failed`, with why). */
export const PRIVACY_MAX_SENDS = 6;

/** A privacy request as stored. */
export type PrivacyRow = typeof privacyRequests.$inferSelect;

/** Where an export's object is kept. */
/** Where an export's file is kept in the bucket. */
export const exportKey = (row: PrivacyRow) => `exports/${row.workspaceId}/${row.id}.ndjson.gz`;

/** Sends a request to its job. */
export interface PrivacyQueue {
  send(message: z.infer<typeof privacyMessageSchema>): Promise<unknown>;
}

/**
 * Records an erasure of a conversation or of a contact address's leads, and queues it. While the
 * same erasure is pending (queued or running), asking again answers that one; once it has ended,
 * asking again runs it again (a visitor may come back after an erasure). Another workspace's
 * conversation is not found.
 */
export async function requestErasure(
  db: Database,
  queue: PrivacyQueue,
  audit: AuditContext & { workspaceId: string; organizationId: string },
  target: { conversationId: string } | { contactEmail: string },
  now: number,
): Promise<PrivacyRow> {
  if ('conversationId' in target) {
    const found = await db
      .select({ id: conversations.id })
      .from(conversations)
      .where(and(eq(conversations.id, target.conversationId), eq(conversations.workspaceId, audit.workspaceId)))
      .get();
    if (!found) throw new ApiError('not_found', `No conversation ${target.conversationId}.`);
  }
  const [targetKind, value] =
    'conversationId' in target
      ? (['conversation', target.conversationId] as const)
      : (['contact', target.contactEmail.trim().toLowerCase()] as const);
  const targetHash = await sha256Hex(`${targetKind}:${value}`);
  const id = newId('pvr', now);
  const [inserted] = await db.batch([
    db
      .insert(privacyRequests)
      .values({
        id,
        workspaceId: audit.workspaceId,
        kind: 'erasure',
        targetKind,
        target: value,
        targetHash,
        status: 'queued',
        requestedBy: `${audit.actorKind}:${audit.actorId}`,
        startedAt: now,
        createdAt: now,
      })
      .onConflictDoNothing()
      .returning({ id: privacyRequests.id }),
    auditInsert(
      db,
      audit,
      { ...audit, action: 'privacy.erasure_requested', targetId: targetKind === 'conversation' ? value : targetHash },
      now,
    ),
  ]);
  if (inserted.length === 1) {
    await queue.send({ kind: 'privacy.run', request_id: id });
    return (await db.select().from(privacyRequests).where(eq(privacyRequests.id, id)).get())!;
  }
  // The same erasure is pending: this is it.
  const pending = await db
    .select()
    .from(privacyRequests)
    .where(
      and(
        eq(privacyRequests.workspaceId, audit.workspaceId),
        eq(privacyRequests.targetHash, targetHash),
        inArray(privacyRequests.status, ['queued', 'running']),
      ),
    )
    .get();
  if (pending) return pending;
  // It ended between the insert and this read: ask once more.
  return requestErasure(db, queue, audit, target, now);
}

/** How many times the queue runs a privacy job before it is given up (wrangler.toml's max_retries + 1). */
export const PRIVACY_JOB_ATTEMPTS = 4;

/**
 * A request whose job failed its last attempt: `failed`, with the reason the owner reads, and an
 * erasure's address kept only as its hash (asking again runs it again).
 */
export async function failPrivacyRequest(db: Database, requestId: string, reason: string, now: number) {
  const row = await db.select().from(privacyRequests).where(eq(privacyRequests.id, requestId)).get();
  if (!row) return;
  await db
    .update(privacyRequests)
    .set({
      status: 'failed',
      // The reason as the owner may read it: never an address, whatever the error said.
      result: { error: scrubAddresses(reason).slice(0, 300) },
      completedAt: now,
      ...(row.kind === 'erasure' && row.targetKind === 'contact' ? { target: row.targetHash } : {}),
    })
    .where(and(eq(privacyRequests.id, requestId), inArray(privacyRequests.status, ['queued', 'running'])));
}

/** Records an export of the workspace, or of one contact address's leads, and queues it. */
export async function requestExport(
  db: Database,
  queue: PrivacyQueue,
  audit: AuditContext & { workspaceId: string; organizationId: string },
  target: { contactEmail?: string | undefined },
  now: number,
): Promise<PrivacyRow> {
  const contact = target.contactEmail?.trim().toLowerCase();
  const row: PrivacyRow = {
    id: newId('pvr', now),
    workspaceId: audit.workspaceId,
    kind: 'export',
    targetKind: contact ? 'contact' : 'workspace',
    target: contact ?? audit.workspaceId,
    targetHash: await sha256Hex(`export:${contact ?? audit.workspaceId}`),
    status: 'queued',
    result: null,
    subjects: null,
    requestedBy: `${audit.actorKind}:${audit.actorId}`,
    startedAt: now,
    createdAt: now,
    completedAt: null,
  };
  await db.batch([
    db.insert(privacyRequests).values(row),
    auditInsert(db, audit, { ...audit, action: 'privacy.export_requested', targetId: row.id }, now),
  ]);
  await queue.send({ kind: 'privacy.run', request_id: row.id });
  return row;
}

/** How many of a workspace's requests the console lists. */
export const RECENT_PRIVACY_REQUESTS = 20;

/** A workspace's newest requests, newest first (the console's list). */
export function recentPrivacyRequests(db: Database, workspaceId: string): Promise<PrivacyRow[]> {
  return db
    .select()
    .from(privacyRequests)
    .where(eq(privacyRequests.workspaceId, workspaceId))
    .orderBy(desc(privacyRequests.createdAt), desc(privacyRequests.id))
    .limit(RECENT_PRIVACY_REQUESTS)
    .all();
}

/** A request of this workspace, or not found (another workspace's too). */
export async function privacyRequest(db: Database, workspaceId: string, id: string): Promise<PrivacyRow> {
  const row = await db
    .select()
    .from(privacyRequests)
    .where(and(eq(privacyRequests.id, id), eq(privacyRequests.workspaceId, workspaceId)))
    .get();
  if (!row) throw new ApiError('not_found', `No privacy request ${id}.`);
  return row;
}

/**
 * Takes an erasure: its subjects found (every record of the address at this moment) and kept on
 * the request, and its target kept only as its hash from here on; answers the subjects. A request
 * already taken (its job crashed, or its message came twice) answers the subjects it took.
 */
async function takeErasure(db: Database, row: PrivacyRow, now: number): Promise<ErasureSubjects | undefined> {
  if (row.status === 'running' && row.subjects) return row.subjects as unknown as ErasureSubjects;
  const target = row.targetKind === 'conversation' ? { conversationId: row.target } : { contactEmail: row.target };
  const subjects = await erasureSubjects(db, row.workspaceId, target);
  const taken = await db
    .update(privacyRequests)
    .set({
      status: 'running',
      subjects: subjects as unknown as Record<string, string[]>,
      startedAt: now,
      ...(row.targetKind === 'contact' ? { target: row.targetHash } : {}),
    })
    .where(and(eq(privacyRequests.id, row.id), eq(privacyRequests.status, 'queued')))
    .returning({ id: privacyRequests.id });
  if (taken.length === 1) return subjects;
  // Another run took it meanwhile: go on with what it took.
  const again = await db.select().from(privacyRequests).where(eq(privacyRequests.id, row.id)).get();
  return again?.status === 'running' && again.subjects ? (again.subjects as unknown as ErasureSubjects) : undefined;
}

/**
 * Runs a request: an erasure in D1, then in the archive, then the workspace's exports go (they may
 * hold what was erased); or an export's object. Each step may run again, so a run that died in the
 * middle is finished by the next (housekeeping sends it again: requeueStuckPrivacyRequests).
 */
export async function runPrivacyRequest(
  db: Database,
  bucket: ArchiveBucket & ExportBucket & { delete(keys: string | string[]): Promise<void> },
  requestId: string,
  now: number,
) {
  // The queue's message names the request only: its organisation's shard is the one that has it.
  if (!(await enterWhereFound(db, privacyRequests, privacyRequests.id, privacyRequests.workspaceId, requestId))) return;
  const row = await db.select().from(privacyRequests).where(eq(privacyRequests.id, requestId)).get();
  if (row?.status !== 'queued' && row?.status !== 'running') return;
  let result: Record<string, unknown>;
  if (row.kind === 'erasure') {
    const subjects = await takeErasure(db, row, now);
    if (!subjects) return;
    const rows = await eraseInDatabase(db, row.workspaceId, subjects, now);
    const objects = await eraseInArchive(db, bucket, row.workspaceId, subjects);
    const exports = await deleteExports(db, bucket, row.workspaceId, { before: now + 1 });
    result = {
      conversations: subjects.conversationIds.length,
      leads: subjects.leadIds.length,
      rows,
      objects,
      exports_deleted: exports,
    };
  } else {
    const contact = row.targetKind === 'contact' ? row.target : undefined;
    const started = now;
    const { rows, bytes } = await writeExport(exportPages(db, row.workspaceId, contact), bucket, exportKey(row));
    // An erasure that ran while it was read may have come after some of its pages: written again.
    if (await erasureSince(db, row.workspaceId, started)) {
      await bucket.delete(exportKey(row));
      throw new Error('An erasure ran while the export was written: it is written again.');
    }
    result = { rows, bytes };
  }
  await db
    .update(privacyRequests)
    .set({ status: 'done', result, completedAt: now })
    .where(and(eq(privacyRequests.id, row.id), inArray(privacyRequests.status, ['queued', 'running'])));
}

/** Whether an erasure of the workspace was running, or ended, at or after `since`. */
async function erasureSince(db: Database, workspaceId: string, since: number): Promise<boolean> {
  const found = await db
    .select({ id: privacyRequests.id })
    .from(privacyRequests)
    .where(
      and(
        eq(privacyRequests.workspaceId, workspaceId),
        eq(privacyRequests.kind, 'erasure'),
        or(eq(privacyRequests.status, 'running'), gte(privacyRequests.completedAt, since)),
      ),
    )
    .get();
  return Boolean(found);
}

/**
 * Deletes finished exports' objects and marks them `expired`: a workspace's (all finished before
 * `before`: an erasure's), or every workspace's older than EXPORT_KEEP_MS (housekeeping); answers
 * how many went. An export that was being written while an erasure ran is written again after it
 * (runPrivacyRequest).
 */
export async function deleteExports(
  db: Database,
  bucket: { delete(keys: string | string[]): Promise<void> },
  workspaceId: string | null,
  range: { before: number },
  limit = 100,
): Promise<number> {
  const finished = await db
    .select()
    .from(privacyRequests)
    .where(
      and(
        eq(privacyRequests.kind, 'export'),
        eq(privacyRequests.status, 'done'),
        lt(privacyRequests.completedAt, range.before),
        ...(workspaceId ? [eq(privacyRequests.workspaceId, workspaceId)] : []),
      ),
    )
    .limit(limit);
  if (finished.length === 0) return 0;
  await bucket.delete(finished.map(exportKey));
  await db
    .update(privacyRequests)
    .set({ status: 'expired' })
    .where(
      and(
        inArray(
          privacyRequests.id,
          finished.map((row) => row.id),
        ),
        eq(privacyRequests.status, 'done'),
      ),
    );
  return finished.length;
}

/** Housekeeping: exports past EXPORT_KEEP_MS are deleted, on every database that holds them. */
export function expireOldExports(
  db: Database,
  bucket: { delete(keys: string | string[]): Promise<void> },
  now: number,
) {
  return sweepEachDatabase(db, privacyRequests, (each) =>
    deleteExports(each, bucket, null, { before: now - EXPORT_KEEP_MS }),
  );
}

/**
 * Sends the stuck privacy requests of every database that holds them again (below), each within `limit`.
 */
export async function requeueStuckPrivacyRequests(
  db: Database,
  queue: PrivacyQueue,
  now: number,
  limit = 50,
): Promise<number> {
  return sweepEachDatabase(db, schema.privacyRequests, (each) =>
    requeueStuckPrivacyRequestsIn(each, queue, now, limit),
  );
}

/**
 * Housekeeping: requests still queued or running PRIVACY_STUCK_AFTER_MS after they were last sent
 * lost their message (or their run died): sent again, the time noted; one sent PRIVACY_MAX_SENDS
 * times without finishing is given up, with why (asking again starts it anew).
 */
async function requeueStuckPrivacyRequestsIn(db: Database, queue: PrivacyQueue, now: number, limit = 50) {
  const stuck = await db
    .update(privacyRequests)
    .set({ startedAt: now })
    .where(
      sql`${privacyRequests.id} IN (SELECT id FROM ${privacyRequests} WHERE status IN ('queued', 'running')
        AND coalesce(started_at, created_at) < ${now - PRIVACY_STUCK_AFTER_MS} ORDER BY created_at LIMIT ${limit})`,
    )
    .returning({ id: privacyRequests.id, createdAt: privacyRequests.createdAt });
  let sent = 0;
  for (const row of stuck) {
    if (now - row.createdAt > PRIVACY_STUCK_AFTER_MS * PRIVACY_MAX_SENDS) {
      await failPrivacyRequest(db, row.id, 'The request did not finish after several tries: ask again.', now);
      continue;
    }
    await queue.send({ kind: 'privacy.run', request_id: row.id });
    sent += 1;
  }
  return sent;
}
