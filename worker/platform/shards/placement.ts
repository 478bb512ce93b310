/**
 * Where a new organisation goes (docs/design/scale.md#placement): the shard with the fewest bytes,
 * by D1's own figure for each database, and of those the one with the fewest organisations. The
 * placement is written to the directory before anything of the organisation, so no row of it is
 * ever written without a map to it (a placement whose organisation never came is harmless).
 */
import { sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { schema } from '../../lib/db';
import type { Services } from '../../lib/services';
import { directoryEntry, rememberPlacement } from './directory';

const { organizationShards } = schema;

/** Each shard's size in bytes, as D1 reports it after a trivial statement (0 where it says nothing). */
export async function shardSizes(services: Pick<Services, 'onShard' | 'shardCount'>): Promise<number[]> {
  return Promise.all(
    Array.from({ length: services.shardCount }, async (_, shard) => {
      const probe = await services.onShard(shard).run(sql`SELECT 1`);
      return (probe.meta as { size_after?: number }).size_after ?? 0;
    }),
  );
}

/** The shard a new organisation should go to: the fewest bytes, then the fewest organisations. */
export async function chooseShard(services: Pick<Services, 'db' | 'onShard' | 'shardCount'>): Promise<number> {
  const [sizes, counts] = await Promise.all([
    shardSizes(services),
    services.db.all<{ shard: number; placed: number }>(
      sql`SELECT ${organizationShards.shard} AS shard, count(*) AS placed FROM ${organizationShards}
        GROUP BY ${organizationShards.shard}`,
    ),
  ]);
  const organizations = (shard: number) => counts.find((row) => row.shard === shard)?.placed ?? 0;
  let best = 0;
  for (let shard = 1; shard < sizes.length; shard++) {
    const smaller = sizes[shard]! < sizes[best]!;
    const asSmall = sizes[shard] === sizes[best] && organizations(shard) < organizations(best);
    if (smaller || asSmall) best = shard;
  }
  return best;
}

/**
 * Places a new organisation: writes its placement and its first workspace's entry in the
 * directory and enters its shard, so the rest of the unit of work (the organisation's own rows)
 * is written there.
 */
export async function placeOrganization(
  services: Pick<Services, 'db' | 'onShard' | 'shardCount' | 'shardRoute'>,
  organizationId: string,
  workspaceId: string,
  now: number,
  /** The directory's own rows of the new organisation (its first owner's membership), in the same batch. */
  alsoInDirectory: BatchItem<'sqlite'>[] = [],
): Promise<number> {
  const { db } = services;
  const shard = await chooseShard(services);
  await db.batch([
    db.insert(organizationShards).values({ organizationId, shard, placedAt: now }),
    directoryEntry(db, 'workspace', workspaceId, organizationId),
    ...alsoInDirectory,
  ]);
  rememberPlacement(organizationId, shard);
  services.shardRoute.shard = shard;
  return shard;
}
