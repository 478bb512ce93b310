/**
 * The directory's answers (docs/design/scale.md#the-layout): which organisation a workspace, key or
 * channel belongs to, and which shard holds an organisation. Entries never change, so an isolate
 * keeps them; a placement changes only when an organisation moves, so an isolate keeps it a minute
 * and a move refuses the organisation's writes for longer than that before it switches.
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { schema, type Database } from '../../lib/db';
import { databasesHolding } from '../../lib/shards/holding';
import { routedHandleOf } from '../../lib/shards/router';
import { TtlCache } from '../../lib/ttl-cache';

const { organizationShards, directoryEntries } = schema;

/** What names an organisation in a request. */
export type EntryKind = (typeof directoryEntries.$inferSelect)['kind'];

/** How long an isolate trusts a placement it read. */
export const PLACEMENT_CACHE_MS = 60_000;
/** How long it trusts one of an organisation that is moving: the move's switch is seen within this. */
export const MOVING_PLACEMENT_CACHE_MS = 2_000;

const placements = new TtlCache<number>(PLACEMENT_CACHE_MS, 10_000);
const movingPlacements = new TtlCache<number>(MOVING_PLACEMENT_CACHE_MS, 1_000);
const entries = new TtlCache<string>(Number.POSITIVE_INFINITY, 50_000);

/** Keeps a placement this isolate just wrote or read; a moving organisation's only briefly. */
export function rememberPlacement(organizationId: string, shard: number, moving = false): void {
  if (moving) movingPlacements.set(organizationId, shard);
  else {
    movingPlacements.clear(organizationId);
    placements.set(organizationId, shard);
  }
}

/** Forgets the cached placements (tests, and a move in this isolate). */
export function forgetPlacements(): void {
  placements.clear();
  movingPlacements.clear();
}

/** A cached placement: its shard, and whether its organisation is moving (its writes refused). */
function cachedPlacement(organizationId: string): { shard: number; moving: boolean } | undefined {
  const moving = movingPlacements.peek(organizationId);
  if (moving !== undefined) return { shard: moving, moving: true };
  const shard = placements.peek(organizationId);
  return shard === undefined ? undefined : { shard, moving: false };
}

/** Whether a placement row is of a move before its switch: the organisation still on its old shard, frozen. */
const frozenRow = (row: { shard: number; movingTo: number | null }) =>
  row.movingTo !== null && row.movingTo !== row.shard;

/** The statement that writes a map entry: in the directory, before the rows it names. */
export function directoryEntry(db: Database, kind: EntryKind, value: string, organizationId: string) {
  entries.set(`${kind}:${value}`, organizationId);
  return db.insert(directoryEntries).values({ kind, value, organizationId }).onConflictDoNothing();
}

/** The shard that holds an organisation, from the cache or the directory; undefined when it has none. */
export async function shardOfOrganization(db: Database, organizationId: string): Promise<number | undefined> {
  return (await placementOf(db, organizationId))?.shard;
}

async function placementOf(db: Database, organizationId: string) {
  const cached = cachedPlacement(organizationId);
  if (cached) return cached;
  const row = await db
    .select({ shard: organizationShards.shard, movingTo: organizationShards.movingTo })
    .from(organizationShards)
    .where(eq(organizationShards.organizationId, organizationId))
    .get();
  if (!row) return undefined;
  rememberPlacement(organizationId, row.shard, frozenRow(row));
  return { shard: row.shard, moving: frozenRow(row) };
}

/**
 * Enters an organisation's shard: the unit of work's statements on an organisation's tables go
 * there from now on (refused when they write while it moves). An organisation without a
 * placement is a broken map: it throws.
 */
export async function enterOrganization(db: Database, organizationId: string): Promise<number> {
  const handle = routedHandleOf(db);
  if (!handle) throw new Error('This database handle is not routed over the shards.');
  const placement = await placementOf(db, organizationId);
  if (placement === undefined) throw new Error(`The organisation ${organizationId} has no shard in the directory.`);
  handle.route.shard = placement.shard;
  handle.route.frozen = placement.moving;
  return placement.shard;
}

/**
 * The organisation a workspace, key or channel belongs to, with its shard entered; undefined
 * when the directory knows no such thing (the caller answers its 404 or 401). One round trip when
 * neither is cached, none when both are.
 */
export async function enterBy(db: Database, kind: EntryKind, value: string): Promise<string | undefined> {
  const known = entries.peek(`${kind}:${value}`);
  if (known !== undefined) {
    await enterOrganization(db, known);
    return known;
  }
  const row = await db
    .select({
      organizationId: directoryEntries.organizationId,
      shard: organizationShards.shard,
      movingTo: organizationShards.movingTo,
    })
    .from(directoryEntries)
    .innerJoin(organizationShards, eq(organizationShards.organizationId, directoryEntries.organizationId))
    .where(and(eq(directoryEntries.kind, kind), eq(directoryEntries.value, value)))
    .get();
  if (!row) return undefined;
  entries.set(`${kind}:${value}`, row.organizationId);
  rememberPlacement(row.organizationId, row.shard, frozenRow(row));
  await enterOrganization(db, row.organizationId);
  return row.organizationId;
}

/** Where some workspaces, keys or channels are: their organisation and shard, for those the directory knows. */
export interface Placed {
  value: string;
  organizationId: string;
  shard: number;
}

/**
 * Places many at once (a user's workspaces, a page of records across tenants): cached entries
 * and placements cost nothing, the rest one directory round trip together.
 */
export async function placeAll(db: Database, kind: EntryKind, values: readonly string[]): Promise<Placed[]> {
  const unknown = [...new Set(values)].filter((value) => {
    const organizationId = entries.peek(`${kind}:${value}`);
    return organizationId === undefined || cachedPlacement(organizationId) === undefined;
  });
  if (unknown.length) {
    const rows = await db
      .select({
        value: directoryEntries.value,
        organizationId: directoryEntries.organizationId,
        shard: organizationShards.shard,
        movingTo: organizationShards.movingTo,
      })
      .from(directoryEntries)
      .innerJoin(organizationShards, eq(organizationShards.organizationId, directoryEntries.organizationId))
      .where(and(eq(directoryEntries.kind, kind), inArray(directoryEntries.value, unknown)));
    for (const row of rows) {
      entries.set(`${kind}:${row.value}`, row.organizationId);
      rememberPlacement(row.organizationId, row.shard, frozenRow(row));
    }
  }
  return values.flatMap((value) => {
    const organizationId = entries.peek(`${kind}:${value}`);
    const shard = organizationId === undefined ? undefined : cachedPlacement(organizationId)?.shard;
    return organizationId === undefined || shard === undefined ? [] : [{ value, organizationId, shard }];
  });
}

/** The shards of some organisations, in one directory round trip (a list across tenants). */
export async function placementsOf(db: Database, organizationIds: readonly string[]): Promise<Map<string, number>> {
  if (organizationIds.length === 0) return new Map();
  const rows = await db
    .select({ organizationId: organizationShards.organizationId, shard: organizationShards.shard })
    .from(organizationShards)
    .where(inArray(organizationShards.organizationId, [...organizationIds]));
  return new Map(rows.map((row) => [row.organizationId, row.shard]));
}

/**
 * Runs a read on each shard that holds some of `placed`, at once, with that shard's database and
 * its part of the list; the answers in one list. For reads that span organisations.
 */
export async function readAcrossShards<T, P extends { shard: number }>(
  db: Database,
  placed: readonly P[],
  read: (shardDb: Database, part: P[]) => Promise<T[]>,
): Promise<T[]> {
  const handle = routedHandleOf(db);
  if (!handle) throw new Error('This database handle is not routed over the shards.');
  const byShard = new Map<number, P[]>();
  for (const entry of placed) byShard.set(entry.shard, [...(byShard.get(entry.shard) ?? []), entry]);
  const answers = await Promise.all([...byShard].map(([shard, part]) => read(handle.onShard(shard), part)));
  return answers.flat();
}

/**
 * Finds which organisation holds a record known only by its id (an admin's path, a queue's
 * message from before it carried its workspace) and enters that organisation's shard: every
 * shard is asked at once for the row's workspace. Undefined when no shard has it.
 */
export async function enterWhereFound(
  db: Database,
  table: SQLiteTable,
  idColumn: SQLiteColumn,
  workspaceColumn: SQLiteColumn,
  id: string,
): Promise<string | undefined> {
  const handle = routedHandleOf(db);
  if (!handle) throw new Error('This database handle is not routed over the shards.');
  const found = await Promise.all(
    Array.from(
      { length: handle.shardCount },
      (_, shard) =>
        handle
          .onShard(shard)
          .select({ workspaceId: workspaceColumn })
          .from(table)
          .where(eq(idColumn, id))
          .get() as Promise<{ workspaceId: string | null } | undefined>,
    ),
  );
  const workspaceId = found.find((row) => row?.workspaceId)?.workspaceId;
  if (!workspaceId) return undefined;
  await enterBy(db, 'workspace', workspaceId);
  return workspaceId;
}

/**
 * Runs a read on every database that holds `table`'s rows today, at once (databasesHolding): for
 * the reads that span organisations: the workbench's lists, the platform's reports.
 */
export async function readEveryShard<T>(
  db: Database,
  table: SQLiteTable,
  read: (shardDb: Database) => Promise<T>,
): Promise<T[]> {
  return Promise.all(databasesHolding(db, table).map(read));
}

/** A contract is a workspace's: enters its organisation's shard (none when no shard has it). */
export async function enterContractOwner(db: Database, contractId: string): Promise<void> {
  const { contracts } = schema;
  await enterWhereFound(db, contracts, contracts.id, contracts.workspaceId, contractId);
}

/**
 * An escrow is its owner's: a workspace's is on its organisation's shard (entered), an expert's in
 * the directory (where the unit already is). Whichever database has it says which.
 */
export async function enterEscrowOwner(db: Database, escrowId: string): Promise<void> {
  const { escrows } = schema;
  const found = await readEveryShard(db, escrows, (each) =>
    each
      .select({ ownerKind: escrows.ownerKind, ownerId: escrows.ownerId })
      .from(escrows)
      .where(eq(escrows.id, escrowId))
      .get(),
  );
  const owner = found.find((row) => row);
  if (owner?.ownerKind === 'workspace') await enterBy(db, 'workspace', owner.ownerId);
}

/**
 * A handle of the same unit's databases, entered into the organisation of a workspace, while `db`
 * keeps its own route: for a job that visits many organisations in turn. Undefined when the
 * directory knows no such workspace.
 */
export async function handleInWorkspace(db: Database, workspaceId: string): Promise<Database | undefined> {
  const handle = routedHandleOf(db);
  if (!handle) throw new Error('This database handle is not routed over the shards.');
  const own = handle.inDirectory();
  return (await enterBy(own, 'workspace', workspaceId)) ? own : undefined;
}

/** The same unit's databases before any organisation (its `unit` tables in the directory); `db` when not routed. */
export function inDirectory(db: Database): Database {
  return routedHandleOf(db)?.inDirectory() ?? db;
}

/**
 * Runs `work` with the unit of work entered into a workspace's organisation, then puts its route
 * back: for a follow-up on other organisations' shards (a provider's change told to each team).
 * Undefined, without running it, when the directory knows no such workspace.
 */
export async function withinWorkspace<T>(
  db: Database,
  workspaceId: string,
  work: () => Promise<T>,
): Promise<T | undefined> {
  const handle = routedHandleOf(db);
  if (!handle) throw new Error('This database handle is not routed over the shards.');
  const before = { ...handle.route };
  try {
    return (await enterBy(db, 'workspace', workspaceId)) ? await work() : undefined;
  } finally {
    handle.route.shard = before.shard;
    handle.route.frozen = before.frozen;
  }
}

/**
 * Runs `work` on each database that holds `table`'s rows (databasesHolding), one after another,
 * and answers how many rows it did in all: a sweep's tick over every database.
 */
export async function sweepEachDatabase(
  db: Database,
  table: SQLiteTable,
  work: (each: Database) => Promise<number>,
): Promise<number> {
  let done = 0;
  for (const each of databasesHolding(db, table)) done += await work(each);
  return done;
}

/**
 * Whether a handle is on an organisation's shard (or not routed: a test's single database): the
 * directory's handle holds no organisation's rows, so a sweep there writes none of their events.
 */
export function holdsOrganizations(db: Database): boolean {
  const handle = routedHandleOf(db);
  return !handle || handle.route.shard !== null;
}
