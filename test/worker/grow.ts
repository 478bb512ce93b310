import { platformDb } from './platform-db';

interface Column {
  name: string;
  type: string;
  notnull: number;
  pk: number;
}
interface ForeignKey {
  table: string;
  from: string;
  to: string | null;
}

/**
 * D1's own tables; the ledger's accounts and entries, which the database writes (via escrows and
 * transfers); the knowledge's chunks and index, grown by their own bench (npm run bench -- knowledge).
 */
const SKIPPED = /^(sqlite_|d1_|_cf_)|^ledger_(accounts|entries)$|^knowledge_(fts|chunks)/;

/**
 * Values the database's own rules ask for (migrations/0027, 0038): a currency is a real one, a
 * transfer moves money from the funding account to a grown escrow, and sources fit their limits.
 */
const RULED: Record<string, string> = {
  currency: "'EUR'",
  'transfers.from_account': "'platform:funding:EUR'",
  'transfers.to_account': "'grown-escrows-' || x",
  'transfers.kind': "'credit'",
  // A workspace's sources stay within its knowledge limits (migrations/0038): grown ones hold nothing.
  'knowledge_sources.bytes': '0',
  'knowledge_sources.chunks': '0',
};

async function all<T>(query: string): Promise<T[]> {
  return (await platformDb.prepare(query).all<T>()).results;
}

/** Adds `rows` rows to every table; answers the tables grown. */
export async function growEveryTable(rows: number): Promise<string[]> {
  const tables = (await all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'"))
    .map((row) => row.name)
    .filter((name) => !SKIPPED.test(name));
  const info = new Map<string, { columns: Column[]; foreignKeys: ForeignKey[]; uniqueColumns: Set<string> }>();
  for (const table of tables) {
    const columns = await all<Column>(`PRAGMA table_info("${table}")`);
    const foreignKeys = await all<ForeignKey>(`PRAGMA foreign_key_list("${table}")`);
    const uniqueColumns = new Set(columns.filter((column) => column.pk > 0).map((column) => column.name));
    for (const index of await all<{ name: string; unique: number }>(`PRAGMA index_list("${table}")`)) {
      if (!index.unique) continue;
      for (const column of await all<{ name: string }>(`PRAGMA index_info("${index.name}")`))
        uniqueColumns.add(column.name);
    }
    info.set(table, { columns, foreignKeys, uniqueColumns });
  }
  // Foreign-key order: a table after those it references (a cycle falls back to any order).
  const ordered: string[] = [];
  const visit = (table: string, path: Set<string>) => {
    if (ordered.includes(table) || path.has(table) || !info.has(table)) return;
    path.add(table);
    for (const key of info.get(table)!.foreignKeys) if (key.table !== table) visit(key.table, path);
    ordered.push(table);
  };
  for (const table of tables) visit(table, new Set());

  for (const table of ordered) {
    const { columns, foreignKeys, uniqueColumns } = info.get(table)!;
    const values = columns.map((column) => {
      const ruled = RULED[`${table}.${column.name}`] ?? (column.notnull ? RULED[column.name] : undefined);
      if (ruled) return ruled;
      const key = foreignKeys.find((foreign) => foreign.from === column.name);
      if (key) {
        const target = key.to ?? 'rowid';
        return `(SELECT "${target}" FROM "${key.table}" WHERE rowid = (SELECT max(rowid) FROM "${key.table}") - x + 1)`;
      }
      const integer = /INT/i.test(column.type);
      if (integer && column.pk === 1 && columns.filter((other) => other.pk > 0).length === 1) return 'NULL';
      if (!column.notnull && !uniqueColumns.has(column.name)) return 'NULL';
      if (table === 'idempotency_records' && column.name === 'state') return "'completed'";
      if (integer || /REAL|NUM/i.test(column.type)) return 'x';
      return uniqueColumns.has(column.name) ? `'grown-${table}-' || x` : "'[]'";
    });
    await platformDb
      .prepare(
        `WITH RECURSIVE seq(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM seq WHERE x < ${rows})
       INSERT INTO "${table}" (${columns.map((column) => `"${column.name}"`).join(', ')}) SELECT ${values.join(', ')}
         FROM seq`,
      )
      .run();
  }
  return ordered;
}
