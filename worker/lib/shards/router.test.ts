import { describe, expect, it } from 'vitest';
import type { D1Like } from '../d1-sessions';
import { homeOfStatement, homeOfTable } from './layout';
import { routedD1, type ShardRoute, ShardRoutingError } from './router';

// The layout as it will be once an organisation's tables have all moved (issue 54).
const bound = (query: string) =>
  homeOfStatement(query, (table) => (['executions', 'leads'].includes(table) ? 'shard' : homeOfTable(table)));

/** A database that answers its own name for every statement, and for every batch. */
function named(name: string): D1Like {
  const statement = (query: string) =>
    ({ bind: () => statement(query), first: async () => ({ name, query }) }) as unknown as D1PreparedStatement;
  return {
    prepare: statement,
    batch: async (statements: D1PreparedStatement[]) => statements.map(() => ({ results: [name] })),
  } as unknown as D1Like;
}

const databases = { directory: named('directory'), shards: [named('shard 0'), named('shard 1')] };
const whereRan = async (database: D1Like, query: string) =>
  ((await database.prepare(query).bind(1).first()) as { name: string }).name;

describe('the shard router', () => {
  it('sends each statement to its tables’ home, a shard’s to the entered organisation’s', async () => {
    const route: ShardRoute = { shard: 1 };
    const database = routedD1(databases, route, { homeOf: bound });
    expect(await whereRan(database, 'select * from "users" where id = ?')).toBe('directory');
    expect(await whereRan(database, 'select * from "executions" where id = ?')).toBe('shard 1');
    expect(await whereRan(database, 'SELECT 1')).toBe('shard 1');
    route.shard = 0;
    expect(await whereRan(database, 'select * from "executions" where id = ?')).toBe('shard 0');
  });

  it('refuses what no one database can answer', async () => {
    const route: ShardRoute = { shard: null };
    const database = routedD1(databases, route, { homeOf: bound });
    expect(() => database.prepare('select * from executions')).toThrow(ShardRoutingError);
    expect(await whereRan(database, 'SELECT 1')).toBe('directory');
    route.shard = 0;
    expect(() => database.prepare('select * from users join executions on 1')).toThrow(/directory and of a shard/);
    const spanning = [database.prepare('select * from users'), database.prepare('select * from executions')];
    await expect(database.batch(spanning)).rejects.toThrow(ShardRoutingError);
    const together = [database.prepare('select * from leads'), database.prepare('select * from executions').bind(2)];
    expect(await database.batch(together)).toEqual([{ results: ['shard 0'] }, { results: ['shard 0'] }]);
  });

  it('strict, checks each statement and batch as the layout’s destinations will have them', async () => {
    const route: ShardRoute = { shard: null };
    const database = routedD1(databases, route, { strict: true });
    // Before an organisation is entered: its tables are refused even while they still live in the directory.
    expect(() => database.prepare('select * from executions')).toThrow(/before its organisation/);
    route.shard = 1;
    // A write to a reference table runs in the directory (its copies follow): not in a shard's batch.
    const together = [
      database.prepare('update providers set x = 1'),
      database.prepare('insert into executions (id) values (1)'),
    ];
    await expect(database.batch(together)).rejects.toThrow(ShardRoutingError);
    expect(() => database.prepare('update providers set x = (select count(*) from leads)')).toThrow(
      /from a shard's rows/,
    );
  });
});
