/**
 * Which database each table lives in (docs/design/scale.md#the-layout): the directory, which holds
 * what is platform-wide and the maps from a request to its organisation's shard, or the shard of
 * the organisation a row belongs to. Every statement is routed by the tables it names
 * (shards/router.ts), so a table's home is decided here once, and a statement that names tables
 * of both homes is refused instead of quietly reading one database.
 *
 * Tables move to the shards a group at a time: a group moves when every door that reaches its
 * rows knows its organisation. Tables that a trigger ties together (the ledger's, the outbox's and
 * its deliveries', the knowledge's chunks and their full-text index) are always in one group.
 */

/** Where a table's rows are: the directory, or the shard of the organisation they belong to. */
export type Home = 'directory' | 'shard';

interface TableGroup {
  home: Home;
  /** Where the group is going, while it still lives in the directory. */
  bound?: 'shard';
  tables: readonly string[];
}

/** Every table of the migrations, by group. A unit test fails when a new table has no group. */
export const TABLE_GROUPS = {
  /** People and how they sign in: one account works for many organisations. */
  accounts: {
    home: 'directory',
    tables: [
      'users',
      'user_sessions',
      'account_tokens',
      'user_factors',
      'recovery_codes',
      'security_events',
      'user_passkeys',
      'passkey_challenges',
      'memberships',
      'invitations',
      'email_suppressions',
    ],
  },
  /** The platform's operators, catalogs and providers, who work for every organisation. */
  platform: {
    home: 'directory',
    tables: ['admin_tokens', 'domains', 'providers', 'provider_health', 'provider_domains', 'provider_transitions'],
  },
  /** Where each organisation is. */
  directory: { home: 'directory', tables: ['organization_shards'] },
  /** The owner's knowledge: its spaces, sources, crawls, passages and their full-text index. */
  knowledge: {
    home: 'directory',
    bound: 'shard',
    tables: [
      'knowledge_spaces',
      'knowledge_sources',
      'knowledge_crawls',
      'knowledge_crawl_pages',
      'knowledge_chunks',
      'knowledge_fts',
      'knowledge_gaps',
    ],
  },
  /** An organisation's traffic, money and history. */
  organization: {
    home: 'directory',
    bound: 'shard',
    tables: [
      'organizations',
      'workspaces',
      'api_keys',
      'rate_limit_windows',
      'usage_meters',
      'idempotency_records',
      'executions',
      'demands',
      'audit_log',
      'agent_attempts',
      'channels',
      'conversations',
      'messages',
      'conversation_keys',
      'leads',
      'lead_events',
      'lead_offers',
      'lead_refund_requests',
      'events',
      'webhook_endpoints',
      'webhook_deliveries',
      'webhook_attempts',
      'emails',
      'contracts',
      'escrows',
      'ledger_accounts',
      'transfers',
      'ledger_entries',
      'statements',
      'payments',
      'payment_events',
      'daily_rollups',
      'rollup_cursors',
      'lifecycle_cursors',
      'archive_objects',
      'privacy_requests',
      'a2a_tasks',
      'provisioning_requests',
    ],
  },
} as const satisfies Record<string, TableGroup>;

const homes = new Map<string, Home>(
  Object.values(TABLE_GROUPS as Record<string, TableGroup>).flatMap((group) =>
    group.tables.map((table) => [table, group.home] as const),
  ),
);

/** The home of a table by its name, or undefined for a name that is no table of ours (a CTE, `json_each`). */
export function homeOfTable(name: string): Home | undefined {
  return homes.get(name);
}

/** Every name a statement reads or writes as a table: after FROM, JOIN, INTO, UPDATE or TABLE. */
const TABLE_NAMES = /\b(?:from|join|into|update|table)\s+[`"[]?([a-z_][a-z0-9_]*)/gi;

/**
 * Where a statement must run: the one home of every table it names; null when it names none of
 * ours (`SELECT 1`); 'both' when it names tables of both homes, which no database can answer.
 */
export function homeOfStatement(text: string, homeOf: (table: string) => Home | undefined = homeOfTable) {
  let found: Home | null = null;
  for (const match of text.matchAll(TABLE_NAMES)) {
    const home = homeOf(match[1]!.toLowerCase());
    if (!home) continue;
    if (found && home !== found) return 'both';
    found = home;
  }
  return found as Home | 'both' | null;
}
