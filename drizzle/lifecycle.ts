/**
 * The data lifecycle (docs/design/data-lifecycle.md): every object the archive wrote to R2 before
 * its rows left D1, with the SHA-256 of its bytes, so an archive can be listed, checked and, for an
 * erasure, rewritten without reading the bucket's listing.
 */
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

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
