/**
 * Which databases hold a table's rows today (docs/design/scale.md#the-layout), as handles of one
 * unit of work: for the reads and the sweeps that span organisations.
 */
import { getTableName } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Database } from '../db';
import { destinationOfTable, homeOfTable } from './layout';
import { routedHandleOf } from './router';

/**
 * A handle per database that holds `table`'s rows today, each of the same unit of work (what
 * commits through any is published with it): every shard once the table's group has moved there,
 * and the directory too for a table that follows its unit (emails, rate limits, the books);
 * before it moves, the one database it lives in, once, so a sweep or a count never runs twice.
 * The sweeps and the crons run on each (every shard keeps its own cursor).
 */
export function databasesHolding(db: Database, table: SQLiteTable): Database[] {
  const handle = routedHandleOf(db);
  if (!handle) throw new Error('This database handle is not routed over the shards.');
  const name = getTableName(table);
  const shards = () => Array.from({ length: handle.shardCount }, (_, shard) => handle.onShard(shard));
  if (homeOfTable(name) === 'shard') return shards();
  if (homeOfTable(name) === 'unit') return [handle.inDirectory(), ...shards()];
  // Still in the directory: once, with a shard's route when it is going to the shards (a sweep's
  // statements may name an organisation's tables beside it: the strict check then agrees).
  const destination = destinationOfTable(name);
  return [destination === 'shard' || destination === 'unit' ? handle.onShard(0) : handle.inDirectory()];
}
