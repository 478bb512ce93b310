/**
 * The data lifecycle (docs/design/data-lifecycle.md): every object the archive wrote to R2 before
 * its rows left D1, with the SHA-256 of its bytes, so an archive can be listed, checked and, for an
 * erasure, rewritten without reading the bucket's listing.
 */
import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { PRIVACY_REQUEST_STATUSES } from '../worker/vocabulary';

export const archiveObjects = sqliteTable(
  'archive_objects',
  {
    /** `archive/{workspace}/{class}/{yyyy-mm-dd}/{first row id}.ndjson.gz` */
    key: text('key').primaryKey(),
    /** The workspace whose rows it holds ('' for the platform's own audit rows). */
    workspaceId: text('workspace_id').notNull(),
    kind: text('kind', { enum: ['events', 'audit', 'executions', 'conversations'] }).notNull(),
    day: text('day').notNull(),
    rows: integer('rows').notNull(),
    bytes: integer('bytes').notNull(),
    sha256: text('sha256').notNull(),
    /**
     * The conversations, leads and requests (demands) its rows name, as a JSON array of ids, so an
     * erasure opens only the objects about its subjects; null for an object written before this was kept.
     */
    subjects: text('subjects'),
    createdAt: integer('created_at').notNull(),
  },
  (table) => [index('archive_objects_workspace_idx').on(table.workspaceId, table.kind, table.day)],
);

/**
 * Where a sweep that keeps rows (it clears their bodies) got to: the last id it passed, so each
 * tick reads on from there instead of over the rows it already cleared.
 */
export const lifecycleCursors = sqliteTable('lifecycle_cursors', {
  kind: text('kind').primaryKey(),
  lastId: text('last_id').notNull(),
});

/**
 * A privacy request of a workspace (docs/design/data-lifecycle.md#erasure): a visitor's erasure
 * (a conversation, or every lead of a contact address) or an export (the workspace, or one
 * contact's), run as a job on the events queue. An erasure's target is kept only as its SHA-256
 * once done, so the request that removed an address does not keep it.
 */
export const privacyRequests = sqliteTable(
  'privacy_requests',
  {
    /** `pvr_…` */
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    kind: text('kind', { enum: ['erasure', 'export'] }).notNull(),
    targetKind: text('target_kind', { enum: ['conversation', 'contact', 'workspace'] }).notNull(),
    /** The conversation id, or the contact address while queued; its SHA-256 once an erasure has started. */
    target: text('target').notNull(),
    /** SHA-256 of kind and target: the same erasure asked while one is pending is that one. */
    targetHash: text('target_hash').notNull(),
    /** `running`: an erasure has taken its subjects and is erasing them; `expired`: an export's object is gone. */
    status: text('status', { enum: PRIVACY_REQUEST_STATUSES }).notNull(),
    /** An erasure's subjects, taken when it starts (ErasureSubjects): what a re-run after a crash erases. */
    subjects: text('subjects', { mode: 'json' }).$type<Record<string, string[]>>(),
    /** When the job last took it (running), so housekeeping can tell a stuck one. */
    startedAt: integer('started_at'),
    /** What it did: counts for an erasure; the object's key, rows and bytes for an export. */
    result: text('result', { mode: 'json' }).$type<Record<string, unknown>>(),
    requestedBy: text('requested_by').notNull(),
    createdAt: integer('created_at').notNull(),
    completedAt: integer('completed_at'),
  },
  (table) => [
    // One pending erasure per target: asked again meanwhile, it is that one; asked after, it runs again.
    uniqueIndex('privacy_requests_pending_erasure_idx')
      .on(table.workspaceId, table.targetHash)
      .where(sql`kind = 'erasure' AND status IN ('queued', 'running')`),
    index('privacy_requests_workspace_idx').on(table.workspaceId, table.createdAt),
  ],
);
