/**
 * The rollups' sweep (docs/design/insights.md): each cron tick counts what each source added since
 * the last tick into `daily_rollups`, by workspace, day, channel and key, and moves each source's
 * cursor (the rowid of the last row counted) in the same batch, so every row is counted exactly
 * once. A tick reads at most 5,000 rows of each source; a backlog drains over ticks. The sources
 * are append-only: the outbox's events, the ledger, new conversations, the leads' history and the
 * agents' attempts. Leads' numbers (status, response times, won value) count on the day the lead
 * was created, so a range's leads are one cohort.
 */
import { databasesHolding } from '../../lib/shards/holding';
import { type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { type Database, schema } from '../../lib/db';
import { API_LEADS, bucketOf, EVENT_METRICS, FUNNEL, ROLLED_UP_EVENTS } from './metrics';

const { dailyRollups, rollupCursors, events, ledgerEntries, executions, conversations, channels, leadEvents, leads } =
  schema;
const { agentAttempts, messages, webhookDeliveries } = schema;

/** The most rows of one source a tick counts. */
export const ROLLUP_BATCH = 5_000;

type Source = 'events' | 'ledger' | 'conversations' | 'lead_events' | 'agent_attempts';

/** A source's rows of this tick: after its cursor, at most ROLLUP_BATCH, never past its last row. */
function window(source: Source, table: SQL) {
  const last = sql`(SELECT last_seq FROM ${rollupCursors} WHERE source = ${source})`;
  const newest = sql`(SELECT coalesce(max(rowid), 0) FROM ${table})`;
  // A table emptied by the purge numbers its next rows from 1 again: the cursor starts over.
  const from = sql`(CASE WHEN ${newest} < ${last} THEN 0 ELSE ${last} END)`;
  const to = sql`min(${from} + ${ROLLUP_BATCH}, ${newest})`;
  return {
    ensure: sql`INSERT INTO ${rollupCursors} (source, last_seq) VALUES (${source}, 0) ON CONFLICT DO NOTHING`,
    range: (rowid: SQL) => sql`${rowid} > ${from} AND ${rowid} <= ${to}`,
    /** The range without its last row, which stays so that the next rowid follows it. */
    rangeBeforeLast: (rowid: SQL) => sql`${rowid} > ${from} AND ${rowid} < ${to}`,
    advance: sql`UPDATE ${rollupCursors} SET last_seq = ${to} WHERE source = ${source}`,
  };
}

/**
 * Counts into the rollups: `rows` is a SELECT of (workspace_id, day, metric, channel_key, key_id,
 * value) rows, summed per key, once under their day (`2026-11-26`) and once under their month
 * (`2026-11`), so that a long range reads its whole months as one row each (read.ts).
 */
const rollInto = (db: Database, rows: SQL) =>
  [sql`day`, sql`substr(day, 1, 7)`].map((period) =>
    db.run(sql`INSERT INTO ${dailyRollups} (workspace_id, day, metric, channel_key, key_id, value)
      SELECT workspace_id, ${period}, metric, channel_key, key_id, sum(value) FROM (${rows}) WHERE metric IS NOT NULL
      GROUP BY workspace_id, ${period}, metric, channel_key, key_id
      ON CONFLICT (workspace_id, day, metric, channel_key, key_id) DO UPDATE SET value = value + excluded.value`),
  );

const dayOf = (millis: SQL) => sql`strftime('%Y-%m-%d', ${millis} / 1000, 'unixepoch')`;
const channelOf = (channelId: SQL) => sql`coalesce((SELECT channel_key FROM ${channels} WHERE id = ${channelId}), '')`;

/** The outbox's events: the counts of EVENT_METRICS, and each new lead's topic. */
function fromEvents(db: Database): BatchItem<'sqlite'>[] {
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
  const facts = sql`SELECT ev.workspace_id, ${dayOf(sql`ev.created_at`)} AS day, ev.type,
      json_extract(ev.data, '$.handled_by.kind') AS handled_kind,
      json_extract(ev.data, '$.knowledge') AS knowledge,
      json_extract(ev.data, '$.knowledge_first') AS knowledge_first,
      json_extract(ev.data, '$.after_knowledge') AS after_knowledge,
      json_extract(ev.data, '$.disposition') AS disposition,
      json_extract(ev.data, '$.reason') AS reason,
      json_extract(ev.data, '$.topic') AS topic,
      coalesce(json_extract(ev.data, '$.channel_key'),
        CASE WHEN ex.actor_kind = 'channel' THEN ex.actor_id END, '') AS channel_key,
      coalesce(ex.key_id, '') AS key_id
    FROM ${events} ev
    LEFT JOIN ${executions} ex ON ex.id = json_extract(ev.data, '$.execution_id')
    WHERE ${cursor.range(sql`ev.rowid`)} AND ev.type IN (${types})`;
  return [
    db.run(cursor.ensure),
    ...rollInto(
      db,
      sql`SELECT f.workspace_id, f.day, m.metric, f.channel_key, f.key_id, 1 AS value
        FROM (${facts}) AS f JOIN (${metrics}) AS m ON (CASE m.metric ${matches} ELSE 0 END)`,
    ),
    ...rollInto(
      db,
      sql`SELECT f.workspace_id, f.day, 'topic.' || f.topic AS metric, f.channel_key, f.key_id, 1 AS value
        FROM (${facts}) AS f WHERE f.type = 'lead.created' AND f.topic IS NOT NULL`,
    ),
    // Counted, an event no webhook endpoint receives has no reader left: it leaves the outbox
    // (docs/design/scale.md#what-a-record-costs). The range's last row stays, so rowids keep
    // rising past the cursor.
    db.run(sql`DELETE FROM ${events} WHERE ${cursor.rangeBeforeLast(sql`rowid`)}
      AND NOT EXISTS (SELECT 1 FROM ${webhookDeliveries} d WHERE d.event_id = ${events}.id)`),
    db.run(cursor.advance),
  ];
}

/** The ledger's charges of contracts, in minor units, by meter and currency. */
function fromLedger(db: Database): BatchItem<'sqlite'>[] {
  const cursor = window('ledger', sql`${ledgerEntries}`);
  return [
    db.run(cursor.ensure),
    ...rollInto(
      db,
      sql`SELECT le.workspace_id, ${dayOf(sql`le.created_at`)} AS day,
        'charged_minor.' || le.meter || '.' || le.currency AS metric,
        coalesce(CASE WHEN ex.actor_kind = 'channel' THEN ex.actor_id END, '') AS channel_key,
        coalesce(ex.key_id, '') AS key_id, -le.amount_minor AS value
      FROM ${ledgerEntries} le LEFT JOIN ${executions} ex ON ex.id = le.ref
      WHERE ${cursor.range(sql`le.seq`)} AND le.kind = 'charge' AND le.account_kind = 'escrow'
        AND le.workspace_id IS NOT NULL`,
    ),
    db.run(cursor.advance),
  ];
}

/** New conversations, by the channel that brought them (an API session's: none). */
function fromConversations(db: Database): BatchItem<'sqlite'>[] {
  const cursor = window('conversations', sql`${conversations}`);
  return [
    db.run(cursor.ensure),
    ...rollInto(
      db,
      sql`SELECT c.workspace_id, ${dayOf(sql`c.created_at`)} AS day, 'conversations' AS metric,
        ${channelOf(sql`c.channel_id`)} AS channel_key, '' AS key_id, 1 AS value
      FROM ${conversations} c WHERE ${cursor.range(sql`c.rowid`)}`,
    ),
    // The funnel's first step: a visitor's conversations (an API session is none).
    ...rollInto(
      db,
      sql`SELECT c.workspace_id, ${dayOf(sql`c.created_at`)} AS day, ${FUNNEL.conversations} AS metric,
        ${channelOf(sql`c.channel_id`)} AS channel_key, '' AS key_id, 1 AS value
      FROM ${conversations} c WHERE ${cursor.range(sql`c.rowid`)} AND c.channel_id IS NOT NULL`,
    ),
    db.run(cursor.advance),
  ];
}

/**
 * The leads' history: each move takes a lead out of one status and into another (its creation
 * into `open`); the first claim and the first reply count their time since the lead was created,
 * in buckets; a move to `won` adds its value. All on the lead's own creation day.
 */
function fromLeadHistory(db: Database): BatchItem<'sqlite'>[] {
  const cursor = window('lead_events', sql`${leadEvents}`);
  const moves = sql`SELECT l.workspace_id, ${dayOf(sql`l.created_at`)} AS day, ${channelOf(sql`l.channel_id`)}
      AS channel_key, l.channel_id, l.conversation_id, le.from_status, le.to_status, le.created_at AS at,
      l.created_at AS lead_at,
      l.first_claimed_at, l.first_contacted_at, le.value_minor, le.value_currency
    FROM ${leadEvents} le JOIN ${leads} l ON l.id = le.lead_id WHERE ${cursor.range(sql`le.rowid`)}`;
  const row = (metric: SQL, value: SQL, where: SQL) =>
    sql`SELECT m.workspace_id, m.day, ${metric} AS metric, m.channel_key, '' AS key_id, ${value} AS value
      FROM (${moves}) AS m WHERE ${where}`;
  return [
    db.run(cursor.ensure),
    ...rollInto(db, row(sql`'lead_status.' || m.to_status`, sql`1`, sql`m.from_status IS NOT m.to_status`)),
    ...rollInto(
      db,
      row(
        sql`'lead_status.' || m.from_status`,
        sql`-1`,
        sql`m.from_status IS NOT NULL AND m.from_status <> m.to_status`,
      ),
    ),
    // Times to the first claim and the first reply: a count per bucket, and the seconds they sum to
    // (so a percentile reads the mean of its bucket: one lead's own time when it is alone there).
    ...[
      { name: 'first_claim', when: sql`m.to_status = 'claimed' AND m.at = m.first_claimed_at` },
      { name: 'first_reply', when: sql`m.to_status = 'contacted' AND m.at = m.first_contacted_at` },
    ].flatMap(({ name, when }) => {
      const seconds = sql`((m.at - m.lead_at) / 1000)`;
      return [
        ...rollInto(db, row(sql`${`${name}_s.`} || ${bucketOf(seconds)}`, sql`1`, when)),
        ...rollInto(db, row(sql`${`${name}_sum.`} || ${bucketOf(seconds)}`, seconds, when)),
      ];
    }),
    ...rollInto(
      db,
      row(
        sql`'won_value.' || m.value_currency`,
        sql`m.value_minor`,
        sql`m.to_status = 'won' AND m.value_minor IS NOT NULL`,
      ),
    ),
    // Leads an API call made (no visitor's conversation), apart from the funnel.
    ...rollInto(db, row(sql`${API_LEADS}`, sql`1`, sql`m.from_status IS NULL AND m.channel_id IS NULL`)),
    // The funnel's later steps, each once per conversation, on the day its conversation began, so
    // that each step is part of the one before over any range.
    ...rollInto(
      db,
      sql`SELECT f.workspace_id, f.day, f.metric, f.channel_key, '' AS key_id, 1 AS value FROM (
        SELECT c.workspace_id, ${dayOf(sql`c.created_at`)} AS day, ${channelOf(sql`c.channel_id`)} AS channel_key,
          CASE WHEN m.from_status IS NULL THEN ${FUNNEL.leads}
            WHEN m.to_status = 'claimed' AND m.at = m.first_claimed_at THEN ${FUNNEL.claimed}
            WHEN m.to_status = 'contacted' AND m.at = m.first_contacted_at THEN ${FUNNEL.replied}
            WHEN m.to_status = 'won' AND m.from_status <> 'won' THEN ${FUNNEL.won} END AS metric
        FROM (${moves}) AS m JOIN ${conversations} c ON c.id = m.conversation_id AND c.channel_id IS NOT NULL
      ) AS f`,
    ),
    db.run(cursor.advance),
  ];
}

/** The agents' and robots' attempts: tried, answered, declined, and refused by their open circuit. */
function fromAgentAttempts(db: Database): BatchItem<'sqlite'>[] {
  const cursor = window('agent_attempts', sql`${agentAttempts}`);
  const outcome = sql`CASE a.outcome WHEN 'success' THEN 'agent_answered.' WHEN 'declined' THEN 'agent_declined.'
    WHEN 'circuit_open' THEN 'agent_circuit_open.' END`;
  const attempts = sql`SELECT a.workspace_id, ${dayOf(sql`a.created_at`)} AS day, a.provider_id, a.outcome,
      coalesce(CASE WHEN ex.actor_kind = 'channel' THEN ex.actor_id END, '') AS channel_key,
      coalesce(ex.key_id, '') AS key_id
    FROM ${agentAttempts} a LEFT JOIN ${executions} ex ON ex.id = a.execution_id
    WHERE ${cursor.range(sql`a.rowid`)}`;
  return [
    db.run(cursor.ensure),
    ...rollInto(
      db,
      sql`SELECT workspace_id, day, 'agent_attempts.' || provider_id AS metric, channel_key, key_id, 1 AS value
        FROM (${attempts})`,
    ),
    ...rollInto(
      db,
      sql`SELECT a.workspace_id, a.day, ${outcome} || a.provider_id AS metric, a.channel_key, a.key_id, 1 AS value
        FROM (${attempts}) AS a`,
    ),
    // The funnel's answered step: a visitor's conversation the first time an agent or robot answers
    // in it (its first agent message is this attempt's), on the day the conversation began.
    ...rollInto(
      db,
      sql`SELECT c.workspace_id, ${dayOf(sql`c.created_at`)} AS day, ${FUNNEL.answered} AS metric,
        ${channelOf(sql`c.channel_id`)} AS channel_key, '' AS key_id, 1 AS value
      FROM ${agentAttempts} a JOIN ${messages} msg ON msg.execution_id = a.execution_id AND msg.role = 'agent'
        JOIN ${conversations} c ON c.id = msg.conversation_id AND c.channel_id IS NOT NULL
      WHERE ${cursor.range(sql`a.rowid`)} AND a.outcome = 'success' AND NOT EXISTS (SELECT 1 FROM ${messages} earlier
        WHERE earlier.conversation_id = msg.conversation_id AND earlier.role = 'agent' AND earlier.id < msg.id)`,
    ),
    db.run(cursor.advance),
  ];
}

/** One tick: every source, in one batch. */
export async function rollUp(db: Database): Promise<void> {
  for (const each of databasesHolding(db, schema.rollupCursors)) await rollUpIn(each);
}

/** One database's rollups, from its own cursors, in one batch. */
async function rollUpIn(db: Database): Promise<void> {
  const [first, ...rest] = [
    ...fromEvents(db),
    ...fromLedger(db),
    ...fromConversations(db),
    ...fromLeadHistory(db),
    ...fromAgentAttempts(db),
  ];
  await db.batch([first!, ...rest]);
}
