/**
 * The owner's numbers, kept per day (docs/design/insights.md): counts of what happened in a
 * workspace, by day, channel and API key, rolled up by the cron sweep from append-only sources, so
 * that a usage or insights page reads rows in proportion to its days, whatever the history.
 */
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

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
  (table) => [
    primaryKey({ columns: [table.workspaceId, table.day, table.metric, table.channelKey, table.keyId] }),
    // A chart's few metrics day by day, without reading the day's other metrics.
    index('daily_rollups_metric_idx').on(table.workspaceId, table.metric, table.day),
  ],
);

/** How far each rollup has read its source (the rowid of the last event or ledger entry counted). */
export const rollupCursors = sqliteTable('rollup_cursors', {
  source: text('source').primaryKey(),
  lastSeq: integer('last_seq').notNull(),
});
