import { describe, expect, it } from 'vitest';
import { homeOfTable, TABLE_GROUPS } from '../../lib/shards/layout';
import { insertStatement, MOVED_TABLES, NOT_MOVED } from './plan';

describe('the move’s plan', () => {
  it('names every table an organisation’s rows are in: copied, or said why not', () => {
    const organizations = Object.values(TABLE_GROUPS)
      .flatMap((group) => [...group.tables] as string[])
      .filter((table) => homeOfTable(table) === 'shard' || homeOfTable(table) === 'unit');
    const planned = [...MOVED_TABLES.map((spec) => spec.table), ...Object.keys(NOT_MOVED)];
    expect(organizations.filter((table) => !planned.includes(table))).toEqual([]);
    expect(planned.filter((table) => !organizations.includes(table))).toEqual([]);
    expect(new Set(planned).size).toBe(planned.length);
  });

  it('copies a parent before its rows, and the outbox before the endpoints its trigger fans out to', () => {
    const order = MOVED_TABLES.map((spec) => spec.table);
    const precedes = (first: string, then: string) =>
      expect(order.indexOf(first), `${first} before ${then}`).toBeLessThan(order.indexOf(then));
    precedes('organizations', 'workspaces');
    precedes('workspaces', 'api_keys');
    precedes('channels', 'conversations');
    precedes('knowledge_spaces', 'knowledge_chunks');
    precedes('conversations', 'messages');
    precedes('leads', 'lead_events');
    precedes('events', 'webhook_endpoints');
    precedes('escrows', 'usage_meters');
  });

  it('writes a contract’s meter without its price, and a counted row below the new shard’s rowids', () => {
    const meters = MOVED_TABLES.find((spec) => spec.table === 'usage_meters')!;
    expect(insertStatement(meters, ['key_id', 'unit_price_minor'])).toContain('NULL');
    const events = MOVED_TABLES.find((spec) => spec.table === 'events')!;
    expect(insertStatement(events, ['id'])).toMatch(/\(rowid, "id"\) SELECT \(SELECT min\(0/);
    const channels = MOVED_TABLES.find((spec) => spec.table === 'channels')!;
    expect(insertStatement(channels, ['id', 'channel_key'])).not.toContain('"id"');
  });
});
