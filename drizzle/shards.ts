/**
 * Where each organisation's rows are (docs/design/scale.md#the-layout): a directory table, read
 * through the isolate's cache by every request that names an organisation, key or channel.
 */
import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const organizationShards = sqliteTable(
  'organization_shards',
  {
    organizationId: text('organization_id').primaryKey(),
    /** The index of the shard binding (`DB_0`, `DB_1`, …) that holds the organisation's rows. */
    shard: integer('shard').notNull(),
    placedAt: integer('placed_at').notNull(),
    /** While a move runs: the shard it copies to, and the last step it finished (shards/move.ts). */
    movingTo: integer('moving_to'),
    moveStep: text('move_step'),
    moveUpdatedAt: integer('move_updated_at'),
  },
  // The moves still running, for `npm run admin -- move-organization` to resume after a crash.
  (table) => [index('organization_shards_moving_idx').on(table.movingTo).where(sql`${table.movingTo} IS NOT NULL`)],
);

/**
 * The directory's maps from what names a request to its organisation (then to its shard through
 * `organization_shards`): a workspace's id, an API key's id and its token's hash, a channel's key.
 * An entry never changes once written (a move changes the organisation's shard, not its entries),
 * so each isolate caches it beside the key context.
 */
export const directoryEntries = sqliteTable(
  'directory_entries',
  {
    kind: text('kind', { enum: ['workspace', 'key', 'key_hash', 'channel'] }).notNull(),
    value: text('value').notNull(),
    organizationId: text('organization_id').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.kind, table.value] }),
    // An organisation's entries, for a move's checks and an erasure.
    index('directory_entries_organization_idx').on(table.organizationId),
  ],
);

/**
 * An expert's claim of a lead while it crosses databases (docs/design/scale.md#the-layout): the
 * expert's side (their fee, their claim limits) is the directory's, the lead the organisation's
 * shard's. A claim reserves here first (holding the fee), claims on the shard, then settles here
 * (paying it) or gives the reservation back; a sweep finishes a reservation whose claimer stopped
 * between the steps, by whether the lead's shard has the claim.
 */
export const claimReservations = sqliteTable(
  'claim_reservations',
  {
    /** The claim's id: the lead event it writes on the shard when it wins. */
    changeId: text('change_id').primaryKey(),
    leadId: text('lead_id').notNull(),
    providerId: text('provider_id').notNull(),
    /** The lead's workspace, to enter its shard again when a sweep finishes the claim. */
    workspaceId: text('workspace_id').notNull(),
    /**
     * The fee the reservation holds (0 for a free lead, or one paid for before): counted out of
     * the expert's balance while reserved, so two claims at once cannot spend it twice; paid when
     * the claim settles, as the transfer `fee_transfer_id`.
     */
    feeMinor: integer('fee_minor').notNull(),
    feeCurrency: text('fee_currency'),
    feeTransferId: text('fee_transfer_id').notNull(),
    /** The claims window the reservation counted in, to give its count back when the claim lost. */
    windowStart: integer('window_start').notNull(),
    state: text('state', { enum: ['reserved', 'settled', 'returned'] }).notNull(),
    createdAt: integer('created_at').notNull(),
    settledAt: integer('settled_at'),
  },
  (table) => [
    // One claim of a lead at a time: of two experts claiming at once, the second is refused here,
    // before any fee.
    uniqueIndex('claim_reservations_one_per_lead').on(table.leadId).where(sql`state = 'reserved'`),
    // What the sweep finishes: the reservations left open, oldest first.
    index('claim_reservations_open_idx').on(table.createdAt).where(sql`state = 'reserved'`),
    // What an expert's open reservations hold of their balance.
    index('claim_reservations_provider_idx').on(table.providerId).where(sql`state = 'reserved'`),
  ],
);

/**
 * What changed in the reference tables (providers, provider_domains, domains, memberships), one
 * row per change, written by their triggers: the log each shard's copy follows
 * (lib/shards/copies.ts). A change names the row's key; the copy reads the row as it is now.
 */
export const referenceChanges = sqliteTable('reference_changes', {
  seq: integer('seq').primaryKey({ autoIncrement: true }),
  tableName: text('table_name').notNull(),
  /** The row's key, as a JSON array of its key columns' values. */
  rowKey: text('row_key').notNull(),
});

/** How far each shard's copy of the reference tables has followed the log. */
export const referenceCopies = sqliteTable('reference_copies', {
  shard: integer('shard').primaryKey(),
  lastSeq: integer('last_seq').notNull(),
  copiedAt: integer('copied_at').notNull(),
});

/** One copier at a time: the lease of the one running (a copier that died lets it lapse). */
export const referenceCopyLease = sqliteTable('reference_copy_lease', {
  id: integer('id').primaryKey(),
  heldUntil: integer('held_until').notNull(),
});
