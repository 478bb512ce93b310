/**
 * The shards' copies of the reference tables (docs/design/scale.md#the-layout): providers,
 * provider_domains, domains and memberships are written in the directory, whose triggers log each
 * changed row's key (`reference_changes`, migration 0052); a copier reads the log past the point
 * each shard has reached and makes each changed row on the shard what it is in the directory now
 * (an upsert, or a delete when it is gone). It runs after a unit of work wrote a reference table
 * (the router calls it) and every minute (what a crash left). One copier at a time (a lease), so
 * an older read never overwrites a newer one.
 */
import type { D1Like } from '../d1-sessions';
import type { DatabaseSet } from './router';

/** Each reference table's key columns, in the order the triggers log them. */
export const REFERENCE_KEYS: Record<string, readonly string[]> = {
  domains: ['slug'],
  providers: ['id'],
  memberships: ['user_id', 'workspace_id'],
  provider_domains: ['provider_id', 'domain'],
};

/** Upserts go parents first (a provider before its domains), deletes children first. */
const UPSERT_ORDER = ['domains', 'providers', 'memberships', 'provider_domains'];

/** How many logged changes one run copies; the next run takes the rest. */
const CHANGES_PER_RUN = 200;
/** How long a copier may hold the lease before another may take it. */
const LEASE_MS = 30_000;

const keyOf = (table: string) => `json_array(${REFERENCE_KEYS[table]!.map((column) => `"${column}"`).join(', ')})`;

/**
 * Copies the logged changes to every shard that has not reached them; answers how many changes it
 * copied (0 when another copier holds the lease or nothing is new).
 */
export async function copyReferenceChanges(databases: DatabaseSet, now: number): Promise<number> {
  const { directory, shards } = databases;
  const lease = await directory
    .prepare(`INSERT INTO reference_copy_lease (id, held_until) VALUES (1, ?1)
      ON CONFLICT (id) DO UPDATE SET held_until = ?1 WHERE held_until < ?2 RETURNING id`)
    .bind(now + LEASE_MS, now)
    .all();
  if (lease.results.length === 0) return 0;
  try {
    return await copyHeld(directory, shards, now);
  } finally {
    await directory.prepare('UPDATE reference_copy_lease SET held_until = 0 WHERE id = 1').run();
  }
}

async function copyHeld(directory: D1Like, shards: readonly D1Like[], now: number): Promise<number> {
  const cursors = await directory.prepare('SELECT shard, last_seq AS lastSeq FROM reference_copies').all<{
    shard: number;
    lastSeq: number;
  }>();
  const reached = shards.map((_, shard) => cursors.results.find((row) => row.shard === shard)?.lastSeq ?? 0);
  const from = Math.min(...reached);
  const changes = (
    await directory
      .prepare(
        `SELECT seq, table_name AS tableName, row_key AS rowKey FROM reference_changes
          WHERE seq > ? ORDER BY seq LIMIT ?`,
      )
      .bind(from, CHANGES_PER_RUN)
      .all<{ seq: number; tableName: string; rowKey: string }>()
  ).results;
  if (changes.length === 0) return 0;
  const last = changes.at(-1)!.seq;
  for (let shard = 0; shard < shards.length; shard++) {
    const since = reached[shard]!;
    const pending = changes.filter((change) => change.seq > since);
    if (pending.length > 0) await copyTo(directory, shards[shard]!, pending);
    await directory
      .prepare(`INSERT INTO reference_copies (shard, last_seq, copied_at) VALUES (?1, ?2, ?3)
        ON CONFLICT (shard) DO UPDATE SET last_seq = max(last_seq, ?2), copied_at = ?3`)
      .bind(shard, last, now)
      .run();
  }
  // What every shard has copied is no longer needed in the log.
  await directory
    .prepare('DELETE FROM reference_changes WHERE seq <= (SELECT min(last_seq) FROM reference_copies)')
    .run();
  return changes.length;
}

/** Makes the changed rows on one shard what they are in the directory now, in one batch. */
async function copyTo(
  directory: D1Like,
  shard: D1Like,
  changes: ReadonlyArray<{ tableName: string; rowKey: string }>,
): Promise<void> {
  const tables = UPSERT_ORDER.filter((table) => changes.some((change) => change.tableName === table));
  const keysOf = (table: string) =>
    JSON.stringify([...new Set(changes.filter((change) => change.tableName === table).map((change) => change.rowKey))]);
  const current = await directory.batch(
    tables.map((table) =>
      directory
        .prepare(`SELECT * FROM "${table}" WHERE ${keyOf(table)} IN (SELECT value FROM json_each(?))`)
        .bind(keysOf(table)),
    ),
  );
  const statements: D1PreparedStatement[] = [];
  // Gone from the directory: deleted here too, children first.
  for (const table of [...tables].reverse())
    statements.push(
      shard
        .prepare(`DELETE FROM "${table}" WHERE ${keyOf(table)} IN (SELECT value FROM json_each(?1))
          AND ${keyOf(table)} NOT IN (SELECT value FROM json_each(?2))`)
        .bind(keysOf(table), JSON.stringify(rowsOf(current, tables, table).map((row) => keyText(table, row)))),
    );
  for (const table of tables) {
    const rows = rowsOf(current, tables, table);
    if (rows.length === 0) continue;
    const columns = Object.keys(rows[0]!);
    const keys = REFERENCE_KEYS[table]!;
    const list = columns.map((column) => `"${column}"`).join(', ');
    const values = columns.map((column) => `value ->> '$.${column}'`).join(', ');
    const updates = columns
      .filter((column) => !keys.includes(column))
      .map((column) => `"${column}" = excluded."${column}"`)
      .join(', ');
    const onConflict = `ON CONFLICT (${keys.map((key) => `"${key}"`).join(', ')})`;
    statements.push(
      shard
        .prepare(`INSERT INTO "${table}" (${list}) SELECT ${values} FROM json_each(?) WHERE true
          ${onConflict} DO ${updates ? `UPDATE SET ${updates}` : 'NOTHING'}`)
        .bind(JSON.stringify(rows)),
    );
  }
  // The shard's own triggers logged these writes too: its log means nothing, it follows the directory's.
  statements.push(shard.prepare('DELETE FROM reference_changes'));
  await shard.batch(statements);
}

const rowsOf = (results: D1Result[], tables: string[], table: string) =>
  (results[tables.indexOf(table)]?.results ?? []) as Array<Record<string, unknown>>;

/** A row's key as the triggers log it (JSON text of its key columns' values). */
const keyText = (table: string, row: Record<string, unknown>) =>
  JSON.stringify(REFERENCE_KEYS[table]!.map((column) => row[column]));
