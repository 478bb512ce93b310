import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { is } from 'drizzle-orm';
import { getTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import * as schema from '../../../drizzle/schema';
import { destinationOfTable, homeOfStatement, homeOfTable, TABLE_GROUPS, writtenTable } from './layout';

const migrations = readdirSync('migrations')
  .filter((name) => name.endsWith('.sql'))
  .map((name) => readFileSync(`migrations/${name}`, 'utf8'))
  .join('\n');
/** The tables the migrations leave, replaying their creates, drops and renames in order. */
function tablesOf(text: string): string[] {
  const tables = new Set<string>();
  const steps = /CREATE (?:VIRTUAL )?TABLE `?(\w+)`?|DROP TABLE `?(\w+)`?|ALTER TABLE `?(\w+)`? RENAME TO `?(\w+)`?/gi;
  for (const [, created, dropped, from, to] of text.matchAll(steps)) {
    if (created) tables.add(created);
    if (dropped) tables.delete(dropped);
    if (from && to) tables.delete(from) && tables.add(to);
  }
  return [...tables];
}
const tables = tablesOf(migrations);

describe('the layout of the tables', () => {
  it('gives every table of the migrations a home, and names no table that is not one', () => {
    expect(tables.filter((table) => !homeOfTable(table))).toEqual([]);
    const listed = Object.values(TABLE_GROUPS).flatMap((group) => [...group.tables]);
    expect(listed.filter((table) => !tables.includes(table))).toEqual([]);
    expect(new Set(listed).size).toBe(listed.length);
  });

  it('keeps each trigger with every table it names, in one database', () => {
    const triggers = [...migrations.matchAll(/CREATE TRIGGER[\s\S]*?\bEND;?/gi)].map((m) => m[0]);
    expect(triggers.length).toBeGreaterThan(10);
    for (const trigger of triggers) {
      const named = tables.filter((table) => new RegExp(`\\b${table}\\b`).test(trigger));
      // A unit's table is on the shard or in the directory with its unit, a reference table in both:
      // only a shard's table beside a directory's has no one database to run on.
      const homes = new Set(named.map((name) => homeOfTable(name)));
      expect(homes.has('shard') && homes.has('directory'), trigger.slice(0, 80)).toBe(false);
    }
  });

  it('calls no column as a table is called, so any word of a statement that names a table is one', () => {
    const schema = readdirSync('drizzle')
      .filter((name) => name.endsWith('.ts'))
      .map((name) => readFileSync(`drizzle/${name}`, 'utf8'))
      .join('\n');
    const columns = [...schema.matchAll(/\b(?:text|integer|real|blob)\('([a-z_0-9]+)'/g)].map((m) => m[1]!);
    expect(columns.filter((column) => homeOfTable(column))).toEqual([]);
  });

  it('has no foreign key from a table to one that will live in another database', () => {
    const crossing = (Object.values(schema) as unknown[])
      .filter((table): table is SQLiteTable => is(table, SQLiteTable))
      .flatMap((table) => {
        const { name, foreignKeys } = getTableConfig(table);
        return foreignKeys
          .map((key) => getTableConfig(key.reference().foreignTable).name)
          .filter((target) => destinationOfTable(target) !== destinationOfTable(name))
          .map((target) => `${name} → ${target}`);
      });
    expect(crossing).toEqual([]);
  });

  it('routes a statement by the tables it names', () => {
    expect(homeOfStatement('select * from users u, "executions" e where e.id = ?')).toBe(
      homeOfTable('executions') === 'directory' ? 'directory' : 'both',
    );
    expect(homeOfStatement("select * from users where kind = 'executions'")).toBe('directory');
    expect(writtenTable('insert or ignore into "lead_offers" (lead_id) select ? from providers')).toBe('lead_offers');
    expect(writtenTable('UPDATE providers SET x = 1')).toBe('providers');
    expect(writtenTable("select 'update users set'")).toBeUndefined();
    expect(homeOfStatement('select "id" from "users" where "email" = ?')).toBe('directory');
    expect(homeOfStatement('SELECT 1')).toBeNull();
    expect(homeOfStatement('WITH picked AS (SELECT value FROM json_each(?)) SELECT * FROM picked')).toBeNull();
    expect(homeOfStatement('select count(*) from sqlite_master')).toBeNull();
  });
});
