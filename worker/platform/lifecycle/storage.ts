/**
 * How big the database is (docs/design/scale.md): each table's rows, and its bytes estimated from
 * the average stored size of a sample of its rows (SQLite's own page statistics are not open to
 * D1), with the database's size as D1 reports it. For the platform's operators: it counts every
 * row, so it is an admin's occasional question, not a dashboard's.
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../../lib/db';

/** Rows sampled per table for the average row size. */
const SAMPLE_ROWS = 500;

/** A table's rows and estimated bytes. */
export interface TableSize {
  table: string;
  rows: number;
  estimated_bytes: number;
}

/** One database's tables and size. */
export interface DatabaseSize {
  database: string;
  tables: TableSize[];
  database_bytes: number | null;
}

/**
 * Every database's tables and size (the directory's and each shard's: each is read whole, with
 * a handle of its own that no layout routes), and every table's rows and bytes summed over them,
 * largest first: the platform's size.
 */
export async function storageView(databases: ReadonlyArray<{ name: string; db: Database }>) {
  const each = await Promise.all(databases.map(async ({ name, db }) => ({ database: name, ...(await sizeOf(db)) })));
  const summed = new Map<string, TableSize>();
  for (const table of each.flatMap((database) => database.tables)) {
    const sum = summed.get(table.table) ?? { table: table.table, rows: 0, estimated_bytes: 0 };
    summed.set(table.table, {
      ...sum,
      rows: sum.rows + table.rows,
      estimated_bytes: sum.estimated_bytes + table.estimated_bytes,
    });
  }
  const sizes = each.map((database) => database.database_bytes);
  return {
    tables: largestFirst([...summed.values()]),
    database_bytes: sizes.every((size) => size === null) ? null : sizes.reduce<number>((a, b) => a + (b ?? 0), 0),
    databases: each satisfies DatabaseSize[],
  };
}

const largestFirst = (sizes: TableSize[]) =>
  sizes.sort((a, b) => b.estimated_bytes - a.estimated_bytes || a.table.localeCompare(b.table));

/** One database's tables, largest first, and its size. */
async function sizeOf(db: Database): Promise<{ tables: TableSize[]; database_bytes: number | null }> {
  const tables = await db.all<{ name: string }>(sql`SELECT name FROM sqlite_master WHERE type = 'table'
    AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'd1_%'
    AND name NOT LIKE '%_fts%' AND name NOT LIKE '__drizzle%' ORDER BY name`);
  const sizes: TableSize[] = [];
  for (const { name } of tables) {
    const columns = await db.all<{ name: string }>(sql`SELECT name FROM pragma_table_info(${name})`);
    const quoted = (identifier: string) => `"${identifier.replaceAll('"', '""')}"`;
    const rowSize = columns.map((column) => `coalesce(length(${quoted(column.name)}), 0)`).join(' + ') || '0';
    const [stats] = await db.all<{ rows: number; average: number | null }>(
      sql.raw(`SELECT (SELECT count(*) FROM ${quoted(name)}) AS rows,
        (SELECT avg(size) FROM (SELECT ${rowSize} AS size FROM ${quoted(name)} LIMIT ${SAMPLE_ROWS})) AS average`),
    );
    const rows = stats?.rows ?? 0;
    sizes.push({ table: name, rows, estimated_bytes: Math.round(rows * (stats?.average ?? 0)) });
  }
  largestFirst(sizes);
  const probe = await db.run(sql`SELECT 1`);
  const size = (probe.meta as { size_after?: number }).size_after;
  return { tables: sizes, database_bytes: typeof size === 'number' ? size : null };
}
