/**
 * Statements of a move with numbered parameters (?1, ?2, …), run through a drizzle handle's own
 * D1 handle, which still routes each to its database and counts its round trips.
 */
import type { Database } from '../../lib/db';
import type { Rows } from './plan';

/** Rows the old shard's rollups have yet to count, over their sources. */
export async function uncounted(database: Database): Promise<number> {
  const [row] = await rawAll(
    database,
    `SELECT coalesce(sum(max(0, newest - coalesce(last_seq, 0))), 0) AS remaining FROM (
      SELECT 'events' AS source, (SELECT coalesce(max(rowid), 0) FROM events) AS newest UNION ALL
      SELECT 'lead_events', (SELECT coalesce(max(rowid), 0) FROM lead_events) UNION ALL
      SELECT 'conversations', (SELECT coalesce(max(rowid), 0) FROM conversations) UNION ALL
      SELECT 'agent_attempts', (SELECT coalesce(max(rowid), 0) FROM agent_attempts)) AS s
    LEFT JOIN rollup_cursors c ON c.source = s.source`,
    [],
  );
  return Number(row?.remaining ?? 0);
}

/** The D1 handle under a drizzle handle (still routed to its database): for statements with numbered parameters. */
const clientOf = (database: Database) => (database as unknown as { $client: D1Database }).$client;

/** The rows a statement answers. */
export async function rawAll(database: Database, query: string, values: unknown[]): Promise<Rows> {
  return (
    await clientOf(database)
      .prepare(query)
      .bind(...values)
      .all<Record<string, unknown>>()
  ).results;
}

/** How many rows a statement changed. */
export async function rawRun(database: Database, query: string, values: unknown[]): Promise<number> {
  return (
    await clientOf(database)
      .prepare(query)
      .bind(...values)
      .run()
  ).meta.changes;
}

/** Statements in one batch, on one database. */
export async function rawBatch(database: Database, statements: Array<[string, unknown[]]>): Promise<void> {
  const client = clientOf(database);
  await client.batch(statements.map(([query, values]) => client.prepare(query).bind(...values)));
}
