/**
 * The rollups' sweep (docs/design/billing.md): each cron tick counts what the outbox's events and
 * the ledger's charges added since the last tick into `daily_rollups`, by workspace, day, channel
 * and key, and moves each source's cursor in the same batch, so every event and entry is counted
 * exactly once. A tick reads at most 5,000 rows of each source; a backlog drains over ticks.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { type Database, schema } from '../../lib/db';
import { EVENT_METRICS, ROLLED_UP_EVENTS } from './metrics';

const { dailyRollups, rollupCursors, events, ledgerEntries, executions } = schema;

/** The most rows of one source a tick counts. */
export const ROLLUP_BATCH = 5_000;

/** A source's rows of this tick: after its cursor, at most ROLLUP_BATCH, never past its last row. */
function window(source: 'events' | 'ledger', table: SQL) {
  const last = sql`(SELECT last_seq FROM ${rollupCursors} WHERE source = ${source})`;
  const newest = sql`(SELECT coalesce(max(rowid), 0) FROM ${table})`;
  // A table emptied by the purge numbers its next rows from 1 again: the cursor starts over.
  const from = sql`(CASE WHEN ${newest} < ${last} THEN 0 ELSE ${last} END)`;
  const to = sql`min(${from} + ${ROLLUP_BATCH}, ${newest})`;
  return {
    ensure: sql`INSERT INTO ${rollupCursors} (source, last_seq) VALUES (${source}, 0) ON CONFLICT DO NOTHING`,
    range: (rowid: SQL) => sql`${rowid} > ${from} AND ${rowid} <= ${to}`,
    advance: sql`UPDATE ${rollupCursors} SET last_seq = ${to} WHERE source = ${source}`,
  };
}

const UPSERT = sql`ON CONFLICT (workspace_id, day, metric, channel_key, key_id) DO UPDATE SET
  value = value + excluded.value`;

const dayOf = (millis: SQL) => sql`strftime('%Y-%m-%d', ${millis} / 1000, 'unixepoch')`;

/** The events' counts: one row per event and metric it meets, grouped. */
function eventCounts(db: Database): BatchItem<'sqlite'>[] {
  const cursor = window('events', sql`${events}`);
  // The metrics as rows of a JSON array (D1 caps compound SELECTs at a few terms).
  const metrics = sql`SELECT value AS metric FROM json_each(${JSON.stringify(Object.keys(EVENT_METRICS))})`;
  const matches = sql.join(
    Object.entries(EVENT_METRICS).map(([metric, condition]) => sql`WHEN ${metric} THEN ${condition}`),
    sql` `,
  );
  const types = sql.join(
    ROLLED_UP_EVENTS.map((type) => sql`${type}`),
    sql`, `,
  );
  return [
    db.run(cursor.ensure),
    db.run(sql`INSERT INTO ${dailyRollups} (workspace_id, day, metric, channel_key, key_id, value)
      SELECT f.workspace_id, f.day, m.metric, f.channel_key, f.key_id, count(*)
      FROM (
        SELECT ev.workspace_id, ${dayOf(sql`ev.created_at`)} AS day, ev.type,
          json_extract(ev.data, '$.handled_by.kind') AS handled_kind,
          json_extract(ev.data, '$.disposition') AS disposition,
          coalesce(json_extract(ev.data, '$.channel_key'),
            CASE WHEN ex.actor_kind = 'channel' THEN ex.actor_id END, '') AS channel_key,
          coalesce(ex.key_id, '') AS key_id
        FROM ${events} ev
        LEFT JOIN ${executions} ex ON ex.id = json_extract(ev.data, '$.execution_id')
        WHERE ${cursor.range(sql`ev.rowid`)} AND ev.type IN (${types})
      ) AS f
      JOIN (${metrics}) AS m ON (CASE m.metric ${matches} ELSE 0 END)
      WHERE true
      GROUP BY f.workspace_id, f.day, m.metric, f.channel_key, f.key_id
      ${UPSERT}`),
    db.run(cursor.advance),
  ];
}

/** The ledger's charges of contracts, in minor units, by meter. */
function chargeSums(db: Database): BatchItem<'sqlite'>[] {
  const cursor = window('ledger', sql`${ledgerEntries}`);
  return [
    db.run(cursor.ensure),
    db.run(sql`INSERT INTO ${dailyRollups} (workspace_id, day, metric, channel_key, key_id, value)
      SELECT le.workspace_id, ${dayOf(sql`le.created_at`)}, 'charged_minor.' || le.meter,
        coalesce(CASE WHEN ex.actor_kind = 'channel' THEN ex.actor_id END, ''), coalesce(ex.key_id, ''),
        sum(-le.amount_minor)
      FROM ${ledgerEntries} le
      LEFT JOIN ${executions} ex ON ex.id = le.ref
      WHERE ${cursor.range(sql`le.seq`)} AND le.kind = 'charge' AND le.account_kind = 'escrow'
        AND le.workspace_id IS NOT NULL
      GROUP BY 1, 2, 3, 4, 5
      ${UPSERT}`),
    db.run(cursor.advance),
  ];
}

/** One tick: both sources, in one batch. */
export async function rollUp(db: Database): Promise<void> {
  const [first, ...rest] = [...eventCounts(db), ...chargeSums(db)];
  await db.batch([first!, ...rest]);
}
