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
import { TtlCache } from '../ttl-cache';

/**
 * Where a table's rows are: the directory, the shard of the organisation they belong to, or
 * `reference`: the directory's, copied into every shard (a read goes with the tables beside it); or
 * `unit`: the database of the unit of work that writes them, for tables whose rows are some an
 * organisation's and some nobody's (an owner's audit entries and a sign-up's; a lead's emails and
 * a password reset's; a key's rate limit and a sign-in's): its shard once it has entered an
 * organisation, else the directory. Sweeps of such tables run on every database.
 */
export type Home = 'directory' | 'shard' | 'unit' | 'reference';

/**
 * Where a statement runs: one home; `unit-directory` for a `unit` table with directory tables
 * (the directory's, and refused once the unit has entered an organisation); 'both' when no one
 * database can answer it; null when it names none of our tables.
 */
export type StatementHome = Home | 'unit-directory' | 'both' | null;

interface TableGroup {
  home: Home;
  /** Where the group is going, while it still lives in the directory. */
  bound?: 'shard' | 'unit' | 'reference';
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
      'invitations',
      'email_suppressions',
    ],
  },
  /** The platform's operators, and the providers' history and health. */
  platform: { home: 'directory', tables: ['admin_tokens', 'provider_transitions'] },
  /**
   * The catalog and the providers who work for every organisation: written in the directory, and
   * to be copied into every shard, so that an execution's batch ranks and offers to them on its
   * own shard in its one round trip (docs/design/scale.md#the-layout). A read of them goes with
   * the other tables it names.
   */
  reference: {
    home: 'reference',
    tables: ['domains', 'providers', 'provider_domains', 'memberships'],
  },
  /** Where each organisation is, and what names it: its workspaces, keys and channels. */
  directory: { home: 'directory', tables: ['organization_shards', 'directory_entries'] },
  /** A claim of a lead while it crosses databases: the expert's side, reserved before the lead's shard claims it. */
  claims: { home: 'directory', tables: ['claim_reservations'] },
  /** The reference tables' change log (their triggers write it) and how far each shard's copy follows it. */
  copies: { home: 'directory', tables: ['reference_changes', 'reference_copies', 'reference_copy_lease'] },
  /** Rows of an organisation's or of nobody's, with the unit of work that writes them. */
  followsTheUnit: {
    home: 'unit',
    // Each database archives its own expired rows, with its own manifests of what it archived.
    tables: ['audit_log', 'emails', 'rate_limit_windows', 'archive_objects'],
  },
  /**
   * The books, kept per database: an organisation's escrow, its contracts, its charges and card
   * payments on its shard (a charge stays inside its execution's batch); the experts' escrows and
   * what they pay for leads in the directory, with the providers. Triggers tie these tables together.
   */
  books: {
    home: 'unit',
    tables: [
      'contracts',
      'escrows',
      'ledger_accounts',
      'transfers',
      'ledger_entries',
      'statements',
      'payments',
      'payment_events',
      // An expert's request for a lead's fee back: theirs, beside the escrow that paid it.
      'lead_refund_requests',
    ],
  },
  /** The owner's knowledge: its spaces, sources, crawls, passages and their full-text index. */
  knowledge: {
    home: 'shard',
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
    home: 'shard',
    tables: [
      'organizations',
      'workspaces',
      'api_keys',
      'usage_meters',
      'idempotency_records',
      'executions',
      'demands',
      'agent_attempts',
      'channels',
      'conversations',
      'messages',
      'conversation_keys',
      'events',
      'webhook_endpoints',
      'webhook_deliveries',
      'webhook_attempts',
      'daily_rollups',
      'rollup_cursors',
      'lifecycle_cursors',
      'privacy_requests',
      'a2a_tasks',
      'provisioning_requests',
      // Each shard keeps its own breaker per agent: it opens on the failures that shard's calls saw.
      'provider_health',
      'leads',
      'lead_events',
      'lead_offers',
    ],
  },
} as const satisfies Record<string, TableGroup>;

const homes = new Map<string, Home>(
  Object.values(TABLE_GROUPS as Record<string, TableGroup>).flatMap((group) =>
    group.tables.map((table) => [table, group.home] as const),
  ),
);

/** Where each table is going: its group's `bound`, else its home. */
const destinations = new Map<string, Home>(
  Object.values(TABLE_GROUPS as Record<string, TableGroup>).flatMap((group) =>
    group.tables.map((table) => [table, group.bound ?? group.home] as const),
  ),
);

/** Where a table will live once its group has moved (the strict check routes by it, lib/shards/router.ts). */
export function destinationOfTable(name: string): Home | undefined {
  return destinations.get(name);
}

/** The home of a table by its name, or undefined for a name that is no table of ours (a CTE, `json_each`). */
export function homeOfTable(name: string): Home | undefined {
  return homes.get(name);
}

/** Words of a statement outside its string literals: a table's name is one of them, quoted or not. */
const WORDS = /\b[a-z_][a-z0-9_]*\b/gi;
const STRING_LITERALS = /'(?:[^']|'')*'/g;

/**
 * Where a statement must run: the one home of every table it names; null when it names none of
 * ours (`SELECT 1`); 'both' when it names tables of both homes, which no database can answer.
 * Every word is looked up, not only those after FROM or JOIN: a comma join or a column qualified
 * by its table names a table too, and no column of ours is called as a table is (a unit test).
 */
export function homeOfStatement(
  text: string,
  homeOf: (table: string) => Home | undefined = homeOfTable,
): StatementHome {
  // The statements' texts repeat (drizzle builds the same text for the same query): read each once.
  const cache = homeOf === homeOfTable ? homesByText : homeOf === destinationOfTable ? destinationsByText : undefined;
  const known = cache?.peek(text);
  if (known !== undefined) return known;
  const home = scanForHome(text, homeOf);
  cache?.set(text, home);
  return home;
}

const homesByText = new TtlCache<StatementHome>(Number.POSITIVE_INFINITY, 2_000);
const destinationsByText = new TtlCache<StatementHome>(Number.POSITIVE_INFINITY, 2_000);

function scanForHome(text: string, homeOf: (table: string) => Home | undefined): StatementHome {
  const found = new Set<Home>();
  for (const [word] of text.replace(STRING_LITERALS, "''").matchAll(WORDS)) {
    const home = homeOf(word.toLowerCase());
    if (home) found.add(home);
  }
  if (found.has('directory') && found.has('shard')) return 'both';
  if (found.has('shard')) return 'shard';
  if (found.has('directory')) return found.has('unit') ? 'unit-directory' : 'directory';
  // The unit's database: a reference table's copy is in each.
  return found.has('unit') || found.has('reference') ? 'unit' : null;
}

/** The table a write statement changes (INSERT INTO, UPDATE, DELETE FROM, REPLACE INTO), if any. */
export function writtenTable(text: string): string | undefined {
  return /\b(?:insert(?:\s+or\s+\w+)?\s+into|update(?:\s+or\s+\w+)?|delete\s+from|replace\s+into)\s+[`"]?(\w+)/i
    .exec(text.replace(STRING_LITERALS, "''"))?.[1]
    ?.toLowerCase();
}

/** The tables of ours a statement names (every word outside its string literals that is one). */
export function tablesNamed(text: string): string[] {
  const named = new Set<string>();
  for (const [word] of text.replace(STRING_LITERALS, "''").matchAll(WORDS))
    if (homes.has(word.toLowerCase())) named.add(word.toLowerCase());
  return [...named];
}
