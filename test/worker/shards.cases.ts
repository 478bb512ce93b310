/**
 * Organisations over several databases (docs/design/scale.md#the-layout): the directory and the
 * two test shards share one schema, and a new organisation is placed on a shard in the directory.
 */
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { createTenant } from './helpers';

const schemaOf = async (database: D1Database) =>
  (
    await database
      .prepare(`SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'
        AND name NOT LIKE '_cf_%' AND name NOT LIKE 'd1_%' ORDER BY type, name`)
      .all()
  ).results;

describe('organisations over several databases', () => {
  it('gives the directory and every shard the same schema', async () => {
    const directory = await schemaOf(env.DIRECTORY);
    expect(directory.length).toBeGreaterThan(100);
    expect(await schemaOf(env.DB_0)).toEqual(directory);
    expect(await schemaOf(env.DB_1)).toEqual(directory);
  });

  it('places each new organisation on a shard, spreading them while the shards are alike', async () => {
    const placed = await env.DIRECTORY.prepare('SELECT shard, count(*) AS n FROM organization_shards GROUP BY shard')
      .all<{ shard: number; n: number }>()
      .then((answer) => answer.results);
    const first = await createTenant();
    const second = await createTenant();
    const shardOf = (organizationId: string) =>
      env.DIRECTORY.prepare('SELECT shard FROM organization_shards WHERE organization_id = ?')
        .bind(organizationId)
        .first<number>('shard');
    const shards = [await shardOf(first.organizationId), await shardOf(second.organizationId)];
    for (const shard of shards) expect([0, 1]).toContain(shard);
    // With the shards' sizes equal, the one with fewer organisations gets the next.
    const placedBefore = (shard: number) => placed.find((row) => row.shard === shard)?.n ?? 0;
    if (placedBefore(0) === placedBefore(1)) expect(new Set(shards).size).toBe(2);
  });
});
