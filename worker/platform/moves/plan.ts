/**
 * What a move copies, table by table (docs/design/scale.md#moves): each table of an organisation's
 * rows, how its rows are found, and how a row is written on the new shard. The order puts a row's
 * parent before it, and keeps the new shard's triggers from doing again what the old shard's did:
 * the outbox's events come before the webhook endpoints (their fan-out finds none to deliver to),
 * and a contract's meter arrives without its price, then gets it (its overage trigger charges
 * nothing twice). Counted rows (the rollups' sources) get rowids below the new shard's cursors, so
 * they are not counted again there: the old shard counted them before the copy.
 *
 * In the statements, ?1 is the organisation's id and ?2 its workspaces' ids (a JSON array).
 */

const WORKSPACES = '(SELECT value FROM json_each(?2))';
const inWorkspaces = `workspace_id IN ${WORKSPACES}`;
const ofTable = (column: string, table: string) =>
  `${column} IN (SELECT id FROM ${table} WHERE workspace_id IN ${WORKSPACES})`;
const ORGANIZATION_ESCROWS = `(SELECT id FROM escrows WHERE owner_kind = 'workspace' AND owner_id IN ${WORKSPACES})`;

/** One table of a move. */
export interface MovedTable {
  table: string;
  /** The organisation's rows, on either shard. */
  where: string;
  /** Its primary key: the copy pages by it. */
  key: readonly string[];
  /** Columns the new shard gives its own value (integer ids it allocates). */
  fresh?: readonly string[];
  /** Columns whose value is an id the new shard gave anew: 'channel' or 'chunk'. */
  remap?: Readonly<Record<string, 'channel' | 'chunk'>>;
  /** A rollup source: its copies get rowids below every rowid the new shard has counted. */
  counted?: boolean;
  /** A contract's meter: copied without its price, then priced, so its trigger charges nothing again. */
  meter?: boolean;
  /** A sweep of the old shard may delete its rows while the move runs: the new shard may hold more. */
  swept?: boolean;
}

/** Every table of an organisation's that a move copies, in the order it copies them. */
export const MOVED_TABLES: readonly MovedTable[] = [
  { table: 'organizations', where: 'id = ?1', key: ['id'] },
  { table: 'workspaces', where: 'organization_id = ?1', key: ['id'] },
  { table: 'api_keys', where: inWorkspaces, key: ['id'] },
  // A channel's id is an integer each database allocates: the new shard gives it a new one.
  { table: 'channels', where: inWorkspaces, key: ['channel_key'], fresh: ['id'] },
  { table: 'knowledge_spaces', where: inWorkspaces, key: ['workspace_id'], fresh: ['ordinal'] },
  { table: 'knowledge_sources', where: inWorkspaces, key: ['id'] },
  { table: 'knowledge_crawls', where: inWorkspaces, key: ['source_id'] },
  // A passage's id is its workspace's ordinal × 2^24 + its number: the ordinal is the new shard's.
  { table: 'knowledge_chunks', where: inWorkspaces, key: ['id'], remap: { id: 'chunk' } },
  { table: 'knowledge_gaps', where: inWorkspaces, key: ['id'] },
  { table: 'conversations', where: inWorkspaces, key: ['id'], counted: true, remap: { channel_id: 'channel' } },
  { table: 'messages', where: ofTable('conversation_id', 'conversations'), key: ['id'] },
  { table: 'conversation_keys', where: ofTable('conversation_id', 'conversations'), key: ['key_hash'] },
  { table: 'executions', where: inWorkspaces, key: ['id'] },
  { table: 'demands', where: inWorkspaces, key: ['id'], remap: { channel_id: 'channel' } },
  { table: 'agent_attempts', where: inWorkspaces, key: ['id'], counted: true },
  {
    table: 'idempotency_records',
    where: ofTable('key_id', 'api_keys'),
    key: ['key_id', 'idempotency_key'],
    swept: true,
  },
  { table: 'leads', where: inWorkspaces, key: ['id'], remap: { channel_id: 'channel' } },
  { table: 'lead_events', where: ofTable('lead_id', 'leads'), key: ['id'], counted: true },
  { table: 'lead_offers', where: ofTable('lead_id', 'leads'), key: ['lead_id', 'provider_id'] },
  { table: 'events', where: inWorkspaces, key: ['id'], counted: true, swept: true },
  { table: 'webhook_endpoints', where: inWorkspaces, key: ['id'] },
  { table: 'webhook_deliveries', where: inWorkspaces, key: ['event_id', 'endpoint_id'], swept: true },
  { table: 'webhook_attempts', where: ofTable('endpoint_id', 'webhook_endpoints'), key: ['id'], swept: true },
  {
    table: 'daily_rollups',
    where: inWorkspaces,
    key: ['workspace_id', 'day', 'metric', 'channel_key', 'key_id'],
  },
  { table: 'privacy_requests', where: inWorkspaces, key: ['id'] },
  { table: 'a2a_tasks', where: inWorkspaces, key: ['id'] },
  { table: 'provisioning_requests', where: inWorkspaces, key: ['id'] },
  { table: 'contracts', where: inWorkspaces, key: ['id'] },
  // Its ledger account opens with it (a trigger); its balance is carried over (move.ts), not its history.
  { table: 'escrows', where: `id IN ${ORGANIZATION_ESCROWS}`, key: ['id'] },
  { table: 'statements', where: `escrow_id IN ${ORGANIZATION_ESCROWS}`, key: ['id'] },
  { table: 'payments', where: inWorkspaces, key: ['id'] },
  { table: 'payment_events', where: ofTable('payment_id', 'payments'), key: ['id'] },
  {
    table: 'usage_meters',
    where: `(key_id IN (SELECT id FROM api_keys WHERE ${inWorkspaces})
      OR key_id IN (SELECT id FROM contracts WHERE ${inWorkspaces}))`,
    key: ['key_id', 'meter', 'period'],
    meter: true,
  },
  { table: 'audit_log', where: `(${inWorkspaces} OR organization_id = ?1)`, key: ['id'], swept: true },
  { table: 'emails', where: inWorkspaces, key: ['id'], swept: true },
  { table: 'archive_objects', where: inWorkspaces, key: ['key'] },
];

/**
 * The organisation's tables a move does not copy, and why (a unit test checks every table of an
 * organisation's is in one list or the other).
 */
export const NOT_MOVED: Readonly<Record<string, string>> = {
  knowledge_fts: 'written by the passages’ trigger as each passage is copied',
  knowledge_crawl_pages: 'a crawl’s frontier: the next sync crawls again',
  rate_limit_windows: 'a window of a few seconds: a fresh one opens on the new shard',
  rollup_cursors: 'each database’s own',
  lifecycle_cursors: 'each database’s own',
  provider_health: 'each shard’s own breaker per agent',
  transfers: 'the ledger is append-only: the balance is carried over, the history stays',
  ledger_entries: 'the ledger is append-only: the balance is carried over, the history stays',
  ledger_accounts: 'opened on the new shard by its escrow’s trigger',
  lead_refund_requests: 'an expert’s, in the directory beside their escrow',
};

/**
 * A table's rows of the organisation, as a condition that names both parameters (?1, ?2) whatever
 * its own condition uses, so every statement binds the same two.
 */
export const organizationRows = (spec: MovedTable) => `(${spec.where}) AND coalesce(?1, ?2) IS NOT NULL`;

/** The values of one page of rows, for `json_each` (each row an object by column). */
export type Rows = ReadonlyArray<Record<string, unknown>>;

/**
 * The statement that writes a page of rows on the new shard, once (a row already there is left as
 * it is: a page copied again after a crash changes nothing). Its parameters: ?1 the rows, ?2 the
 * channels' new ids by their old, ?3 the workspaces' new knowledge ordinals.
 */
export function insertStatement(spec: MovedTable, columns: readonly string[]): string {
  const copied = columns.filter((column) => !spec.fresh?.includes(column));
  const value = (column: string) => {
    const old = `v.value ->> '$.${column}'`;
    if (spec.remap?.[column] === 'channel')
      return `(SELECT m.value FROM json_each(?2) m WHERE m.key = CAST(${old} AS TEXT))`;
    if (spec.remap?.[column] === 'chunk')
      return `((SELECT m.value FROM json_each(?3) m WHERE m.key = v.value ->> '$.workspace_id') << 24)
        + (${old} & 16777215)`;
    if (spec.meter && column === 'unit_price_minor') return 'NULL';
    return old;
  };
  const names = copied.map((column) => `"${column}"`);
  const values = copied.map(value);
  if (spec.counted) {
    names.unshift('rowid');
    values.unshift(`(SELECT min(0, coalesce(min(rowid), 0)) FROM "${spec.table}") - 1 - v.key`);
  }
  // Every statement names all three parameters (D1 wants each bound one used).
  return `INSERT OR IGNORE INTO "${spec.table}" (${names.join(', ')}) SELECT ${values.join(', ')} FROM json_each(?1) v
    WHERE coalesce(?2, ?3) IS NOT NULL`;
}

/** A meter's price, set once its row is copied (an UPDATE not of `used` fires no charge). */
export const METER_PRICES = `UPDATE usage_meters SET unit_price_minor = v.value ->> '$.unit_price_minor'
  FROM json_each(?1) v WHERE usage_meters.key_id = v.value ->> '$.key_id'
    AND usage_meters.meter = v.value ->> '$.meter' AND usage_meters.period = v.value ->> '$.period'`;
