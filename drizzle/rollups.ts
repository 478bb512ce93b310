/**
 * The owner's numbers, kept per day (docs/design/billing.md and insights): counts of what happened
 * in a workspace, by day, channel and API key, rolled up by the cron sweep from the event outbox
 * and the ledger, so that a usage or insights page reads a few hundred rows whatever the history.
 */
import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const dailyRollups = sqliteTable(
  'daily_rollups',
  {
    workspaceId: text('workspace_id').notNull(),
    /** `YYYY-MM-DD`, UTC. */
    day: text('day').notNull(),
    /** What is counted (rollups/metrics.ts): `executions`, `leads`, `charged_minor`… */
    metric: text('metric').notNull(),
    /** The channel that brought it ('' when none: an API call). */
    channelKey: text('channel_key').notNull().default(''),
    /** The API key it ran as ('' when none: a channel's visitor). */
    keyId: text('key_id').notNull().default(''),
    value: integer('value').notNull(),
  },
  (table) => [primaryKey({ columns: [table.workspaceId, table.day, table.metric, table.channelKey, table.keyId] })],
);

/** How far each rollup has read its source (the rowid of the last event or ledger entry counted). */
export const rollupCursors = sqliteTable('rollup_cursors', {
  source: text('source').primaryKey(),
  lastSeq: integer('last_seq').notNull(),
});
