/**
 * The directory's answers (docs/design/scale.md#the-layout): which shard holds an organisation.
 * A placement changes only when an organisation moves, so each isolate keeps it a minute; a move
 * refuses the organisation's writes for longer than that before it switches (shards/move.ts).
 */
import { eq } from 'drizzle-orm';
import { schema, type Database } from '../../lib/db';
import type { Services } from '../../lib/services';
import { TtlCache } from '../../lib/ttl-cache';

const { organizationShards } = schema;

/** How long an isolate trusts a placement it read. */
export const PLACEMENT_CACHE_MS = 60_000;

const placements = new TtlCache<number>(PLACEMENT_CACHE_MS, 10_000);

/** Keeps a placement this isolate just wrote. */
export function rememberPlacement(organizationId: string, shard: number): void {
  placements.set(organizationId, shard);
}

/** Forgets the cached placements (tests, and a move in this isolate). */
export function forgetPlacements(): void {
  placements.clear();
}

/** The shard that holds an organisation, from the cache or the directory; undefined when it has none. */
export async function shardOfOrganization(db: Database, organizationId: string): Promise<number | undefined> {
  const cached = placements.peek(organizationId);
  if (cached !== undefined) return cached;
  const row = await db
    .select({ shard: organizationShards.shard })
    .from(organizationShards)
    .where(eq(organizationShards.organizationId, organizationId))
    .get();
  if (row) placements.set(organizationId, row.shard);
  return row?.shard;
}

/**
 * Enters an organisation's shard: the unit of work's statements on an organisation's tables go
 * there from now on. An organisation without a placement is a broken map: it throws.
 */
export async function enterOrganization(
  services: Pick<Services, 'db' | 'shardRoute'>,
  organizationId: string,
): Promise<number> {
  const shard = await shardOfOrganization(services.db, organizationId);
  if (shard === undefined) throw new Error(`The organisation ${organizationId} has no shard in the directory.`);
  services.shardRoute.shard = shard;
  return shard;
}
