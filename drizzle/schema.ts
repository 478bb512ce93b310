/**
 * Every table of the platform: the single source of truth.
 * `npm run db:generate` turns changes here into a new SQL file in migrations/.
 *
 * Conventions:
 * - Primary keys are public, prefixed, time-sortable ids (worker/lib/ids.ts).
 * - Times are integer milliseconds since the epoch (UTC).
 * - JSON columns hold text; the TypeScript type says what is inside.
 */
import { sql } from 'drizzle-orm';
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import {
  ATTEMPT_OUTCOMES,
  AVAILABILITIES,
  DISPOSITIONS,
  EMAIL_KINDS,
  EMAIL_STATUSES,
  LEAD_ALERT_MODES,
  LEAD_STATUSES,
  MESSAGE_ROLES,
  PROVIDER_KINDS,
  PROVIDER_STATUSES,
  PROVISIONING_KINDS,
  PROVISIONING_STATUSES,
  ROUTING_POOLS,
  TRIGGERS,
  URGENCIES,
  WORKSPACE_ROLES,
} from '../worker/vocabulary';

const createdAt = () => integer('created_at').notNull();

/**
 * A JSON object column whose shape a zod schema checked before it was written (attribution:
 * conversations/attribution.ts); the module that reads it gives it its type.
 */
type JsonObject = Record<string, unknown>;

export const organizations = sqliteTable('organizations', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  status: text('status', { enum: ['active', 'suspended'] })
    .notNull()
    .default('active'),
  /** Its owners require every member to sign in with a second factor (docs/design/identity-and-access.md). */
  requireSecondFactor: integer('require_second_factor', { mode: 'boolean' }).notNull().default(false),
  createdAt: createdAt(),
});

export const workspaces = sqliteTable(
  'workspaces',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id),
    name: text('name').notNull(),
    status: text('status', { enum: ['active', 'suspended'] })
      .notNull()
      .default('active'),
    /** Words or phrases that hold a demand for review (risk control, docs/design/providers-and-leads.md). */
    blockedTerms: text('blocked_terms', { mode: 'json' }).$type<string[]>().notNull().default(sql`'[]'`),
    /** The domain of a demand that names none and whose words match no domain (docs/design/callers.md). */
    defaultDomain: text('default_domain'),
    /** Days a conversation stays after its last message; then it is archived to R2 (docs/design/data-lifecycle.md). */
    conversationRetentionDays: integer('conversation_retention_days').notNull().default(365),
    createdAt: createdAt(),
  },
  (table) => [index('workspaces_organization_idx').on(table.organizationId)],
);

export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    name: text('name').notNull(),
    /** SHA-256 of the whole token, hex. The token itself is never stored. */
    tokenHash: text('token_hash').notNull().unique(),
    /** The first characters of the token, so a person can tell keys apart. */
    tokenPrefix: text('token_prefix').notNull(),
    scopes: text('scopes', { mode: 'json' }).$type<string[]>().notNull(),
    rateLimitPerMinute: integer('rate_limit_per_minute'),
    monthlyQuota: integer('monthly_quota'),
    expiresAt: integer('expires_at'),
    revokedAt: integer('revoked_at'),
    createdBy: text('created_by').notNull(),
    createdAt: createdAt(),
  },
  (table) => [index('api_keys_workspace_idx').on(table.workspaceId)],
);

export const adminTokens = sqliteTable('admin_tokens', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  tokenHash: text('token_hash').notNull().unique(),
  tokenPrefix: text('token_prefix').notNull(),
  revokedAt: integer('revoked_at'),
  createdBy: text('created_by').notNull(),
  createdAt: createdAt(),
});

/**
 * Counters in fixed windows, one row per subject (worker/platform/core/rate-limit.ts): API keys,
 * intake per channel and client, sign-in attempts. Incremented atomically, so limits are exact.
 * The column keeps its first name, key_id, though it now holds any subject.
 *
 * An execution's increment also carries the guard on the current state of what it runs as (the
 * guard_* columns, read fresh by subqueries in the same statement; null when not involved): a
 * CHECK that fails rolls the whole execution batch back, and its name says which refusal to
 * answer. SQLite checks the proposed row (the guard, and a count of 1) before it resolves the
 * conflict into the increment, so a revoked key over its limit is told it is revoked; the guard
 * CHECKs are also declared first.
 */
export const rateLimitWindows = sqliteTable(
  'rate_limit_windows',
  {
    keyId: text('key_id').primaryKey(),
    windowStart: integer('window_start').notNull(),
    count: integer('count').notNull(),
    /**
     * The most this window may count, when it is enforced by the database: an increment past it
     * fails the CHECK, and with it the whole batch it is part of (nothing else commits).
     */
    maxCount: integer('max_count'),
    /** 1 when the API key is neither revoked nor expired. */
    keyUsable: integer('key_usable'),
    /** 1 when the workspace and its organisation are active. */
    tenantActive: integer('tenant_active'),
    /** 1 when the channel is active and the page origin still on its lists. */
    channelActive: integer('channel_active'),
    /**
     * The key's executions left this month (the agent path checks it before calling out); null when unlimited or not
     * checked.
     */
    quotaLeft: integer('quota_left'),
    /** 1 when the contract in force is still the one the execution charges (docs/design/billing.md). */
    contractCurrent: integer('contract_current'),
    /** 1 when the contract's blocked meters have room and its escrow the funds (checked before an agent call). */
    allowanceLeft: integer('allowance_left'),
  },
  (table) => [
    check('guard_key_usable', sql`${table.keyUsable} IS NULL OR ${table.keyUsable} = 1`),
    check('guard_tenant_active', sql`${table.tenantActive} IS NULL OR ${table.tenantActive} = 1`),
    check('guard_channel_active', sql`${table.channelActive} IS NULL OR ${table.channelActive} = 1`),
    check('within_window_limit', sql`${table.maxCount} IS NULL OR ${table.count} <= ${table.maxCount}`),
    check('guard_quota_left', sql`${table.quotaLeft} IS NULL OR ${table.quotaLeft} > 0`),
    check('guard_contract_current', sql`${table.contractCurrent} IS NULL OR ${table.contractCurrent} = 1`),
    check('guard_allowance_left', sql`${table.allowanceLeft} IS NULL OR ${table.allowanceLeft} = 1`),
  ],
);

/**
 * Metered usage per key, meter and calendar month (UTC). The CHECK makes the quota exact:
 * a charge that would pass the quota fails, and with it the whole execution batch.
 */
/**
 * Monthly meters (`period` = `2026-11`): an API key's executions against its quota, and a
 * contract's meters against its allowances (docs/design/billing.md). One table, so an execution
 * counts all of its meters in one statement. `quota` is the hard limit the CHECK enforces (a key's
 * quota; a contract's allowance when the meter has no overage price).
 */
export const usageMeters = sqliteTable(
  'usage_meters',
  {
    /** The API key's id (`kind` = key), or the contract's (`kind` = contract). The column kept its first name. */
    subject: text('key_id').notNull(),
    meter: text('meter').notNull(),
    period: text('period').notNull(),
    used: integer('used').notNull(),
    quota: integer('quota'),
    kind: text('kind', { enum: ['key', 'contract'] })
      .notNull()
      .default('key'),
    /** A contract's meter: the units included this month, the price past them, its escrow and currency. */
    included: integer('included'),
    unitPriceMinor: integer('unit_price_minor'),
    escrowId: text('escrow_id'),
    currency: text('currency'),
    /** The execution that counted last: the ledger's reference for the overage it was charged. */
    lastRef: text('last_ref'),
    /** The highest threshold (80, 100) the owners were told of this month. */
    notifiedPercent: integer('notified_percent').notNull().default(0),
    updatedAt: integer('updated_at'),
  },
  (table) => [
    primaryKey({ columns: [table.subject, table.meter, table.period] }),
    check('usage_within_quota', sql`${table.quota} IS NULL OR ${table.used} <= ${table.quota}`),
    index('usage_meters_contract_period_idx').on(table.kind, table.period, table.notifiedPercent),
  ],
);

export const idempotencyRecords = sqliteTable(
  'idempotency_records',
  {
    keyId: text('key_id').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    /** SHA-256 over the canonical request body without request_id and trace_id. */
    fingerprint: text('fingerprint').notNull(),
    state: text('state', { enum: ['in_progress', 'completed'] }).notNull(),
    responseStatus: integer('response_status'),
    responseBody: text('response_body'),
    createdAt: createdAt(),
    expiresAt: integer('expires_at').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.keyId, table.idempotencyKey] }),
    /**
     * An execution claims its idempotency key in its own batch, with an upsert that may only take
     * over an expired record (or a reservation whose request died). Any other conflict sets the
     * state to 'taken', which this CHECK refuses: the whole batch rolls back, and the platform
     * reads the stored record to replay it, or answers 422 or 409.
     */
    check('idempotency_key_free', sql`${table.state} IN ('in_progress', 'completed')`),
  ],
);

export const executions = sqliteTable(
  'executions',
  {
    id: text('id').primaryKey(),
    /** Its organisation is its workspace's (not copied into every row). */
    workspaceId: text('workspace_id').notNull(),
    /** The API key the execution ran as; null for widget and hosted-inbox intake. */
    keyId: text('key_id'),
    actorKind: text('actor_kind', { enum: ['admin', 'api_key', 'channel'] }).notNull(),
    actorId: text('actor_id').notNull(),
    domain: text('domain').notNull(),
    /** `failed`: no agent answered and it could not become a lead (502 `agent_unavailable`); nothing was charged. */
    status: text('status', { enum: ['completed', 'failed'] }).notNull(),
    requestId: text('request_id').notNull(),
    traceId: text('trace_id').notNull(),
    idempotencyKey: text('idempotency_key'),
    projectId: text('project_id'),
    userId: text('user_id'),
    sessionId: text('session_id'),
    /** The scopes it ran with, as bits of KNOWN_SCOPES (access/schemas.ts: scopeBits). */
    scopeBits: integer('scope_bits').notNull().default(0),
    /** The request's exact_bridge, kept for the association it asks for. */
    exactBridge: text('exact_bridge', { mode: 'json' }).$type<Record<string, unknown>>(),
    sourceRecord: text('source_record').notNull(),
    /** Its audit entry: `aud_` and its own id's body (core/records.ts); older rows name an audit_log row. */
    auditId: text('audit_id').notNull(),
    /** The door it came through other than HTTP (`mcp`, `a2a`), for its audit entry. */
    via: text('via', { enum: ['mcp', 'a2a'] }),
    /** The gateway's own request id, kept only when the caller named the request otherwise. */
    gatewayRequestId: text('gateway_request_id'),
    createdAt: createdAt(),
  },
  // A workspace's executions by time: usage, exports, the audit log's execution entries (audit/service.ts).
  (table) => [index('executions_workspace_idx').on(table.workspaceId, table.createdAt)],
);

/** A request for help, produced by an execution (and, later, by widget intake). */
export const demands = sqliteTable(
  'demands',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    executionId: text('execution_id'),
    /** Set for demand captured by a channel (widget or hosted inbox). */
    channelId: integer('channel_id'),
    trigger: text('trigger', { enum: TRIGGERS }),
    attribution: text('attribution', { mode: 'json' }).$type<JsonObject>(),
    domain: text('domain').notNull(),
    text: text('text'),
    structuredInput: text('structured_input', { mode: 'json' }).$type<Record<string, unknown>>(),
    attachments: text('attachments', { mode: 'json' }).$type<unknown[]>(),
    status: text('status', { enum: ['open'] })
      .notNull()
      .default('open'),
    /** The conversation this demand is the subject of (one demand per conversation). */
    conversationId: text('conversation_id'),
    /** Risk control's verdict: offered to providers, held for review, or refused. */
    disposition: text('disposition', { enum: DISPOSITIONS }).notNull().default('routed'),
    reasons: text('reasons', { mode: 'json' }).$type<string[]>().notNull().default(sql`'[]'`),
    topic: text('topic').notNull().default('general'),
    urgency: text('urgency', { enum: URGENCIES }).notNull().default('normal'),
    createdAt: createdAt(),
  },
  (table) => [
    // A workspace's demands by time: the intake list, exports, the request bodies' retention.
    index('demands_workspace_idx').on(table.workspaceId, table.createdAt),
    // Partial indexes below: an index entry only for the rows a query can ask for (an API demand has no channel).
    index('demands_channel_idx').on(table.channelId, table.createdAt).where(sql`channel_id IS NOT NULL`),
    // A conversation has one demand.
    uniqueIndex('demands_conversation_idx').on(table.conversationId).where(sql`conversation_id IS NOT NULL`),
  ],
);

export const auditLog = sqliteTable(
  'audit_log',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id'),
    workspaceId: text('workspace_id'),
    actorKind: text('actor_kind', { enum: ['admin', 'api_key', 'channel', 'user', 'system'] }).notNull(),
    actorId: text('actor_id').notNull(),
    keyId: text('key_id'),
    action: text('action').notNull(),
    targetId: text('target_id'),
    requestId: text('request_id').notNull(),
    traceId: text('trace_id'),
    metadata: text('metadata', { mode: 'json' }).$type<Record<string, unknown>>(),
    createdAt: createdAt(),
  },
  (table) => [
    // The admin API's audit log: a workspace's entries, or one action's, newest first.
    index('audit_log_workspace_idx').on(table.workspaceId, table.id),
    index('audit_log_action_idx').on(table.action, table.id),
  ],
);

/**
 * A demand-side entry point. `id` is the internal management key and never leaves the
 * platform; `channel_key` is the public identifier used by the snippet and hosted inbox.
 */
export const channels = sqliteTable(
  'channels',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    channelKey: text('channel_key').notNull().unique(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    name: text('name').notNull(),
    domain: text('domain').notNull(),
    allowedOrigins: text('allowed_origins', { mode: 'json' }).$type<string[]>().notNull(),
    firstPartyOrigins: text('first_party_origins', { mode: 'json' }).$type<string[]>().notNull(),
    status: text('status', { enum: ['active', 'disabled'] })
      .notNull()
      .default('active'),
    /** Who may see this channel's leads: every matching provider, or only the workspace's members. */
    routingPool: text('routing_pool', { enum: ROUTING_POOLS }).notNull().default('platform'),
    /** WidgetConfig (worker/platform/channels/schemas.ts), validated on write. */
    widgetConfig: text('widget_config', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    /** RoutingSettings (docs/design/lead-operations.md): offer waves, escalation, claim SLA. Null: the defaults. */
    routing: text('routing', { mode: 'json' }).$type<Record<string, number>>(),
    /** The language the widget speaks (docs/design/languages.md): one with a catalog, or `auto` (the visitor's). */
    language: text('language').notNull().default('auto'),
    /**
     * The workspace's knowledge, asked first (docs/design/knowledge.md): `{enabled, min_confidence}`.
     * Null: off.
     */
    knowledge: text('knowledge', { mode: 'json' }).$type<{ enabled: boolean; min_confidence: number }>(),
    createdAt: createdAt(),
    updatedAt: integer('updated_at').notNull(),
  },
  (table) => [index('channels_workspace_idx').on(table.workspaceId)],
);

/**
 * A conversation: one visitor session on one channel (widget or hosted inbox), or the turns of
 * one API `session_id` within a workspace. It has one demand and at most one lead.
 */
export const conversations = sqliteTable(
  'conversations',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    kind: text('kind', { enum: ['channel', 'api'] }).notNull(),
    /** Channel conversations: the channel, and the SHA-256 of the visitor's token. */
    channelId: integer('channel_id'),
    tokenHash: text('token_hash').unique(),
    /** API conversations: the caller's `session_id`. */
    externalSessionId: text('external_session_id'),
    /** First-touch attribution, kept for the whole conversation. */
    attribution: text('attribution', { mode: 'json' }).$type<JsonObject>(),
    /** The language the platform speaks to the visitor in, kept from the first turn (null: English). */
    language: text('language'),
    /** When the workspace's knowledge first answered in it (docs/design/knowledge.md): for the resolution rate. */
    knowledgeAnsweredAt: integer('knowledge_answered_at'),
    demandId: text('demand_id'),
    leadId: text('lead_id'),
    createdAt: createdAt(),
    lastSeenAt: integer('last_seen_at').notNull(),
    /** The last message the visitor has seen (live read mark, thread read, own turn): the continuation email's rule. */
    visitorReadUpTo: text('visitor_read_up_to'),
    /** When its messages went to the archive, its workspace's retention past its last message. */
    archivedAt: integer('archived_at'),
  },
  (table) => [
    uniqueIndex('conversations_external_session_idx')
      .on(table.workspaceId, table.externalSessionId)
      .where(sql`external_session_id IS NOT NULL`),
  ],
);

/** Every message of a conversation, in order (`msg_` ids sort by time). */
export const messages = sqliteTable(
  'messages',
  {
    id: text('id').primaryKey(),
    conversationId: text('conversation_id').notNull(),
    role: text('role', { enum: MESSAGE_ROLES }).notNull(),
    text: text('text').notNull(),
    /** The provider who wrote it (role provider or agent). */
    authorId: text('author_id'),
    /** The execution that carried it, when one did. */
    executionId: text('execution_id'),
    /** A knowledge answer's sources (docs/design/knowledge.md): `[{title, url}]`; null for any other message. */
    sources: text('sources', { mode: 'json' }).$type<Array<{ title: string; url: string | null }>>(),
    createdAt: createdAt(),
  },
  // A conversation's thread, in order (the widget, the workbench, the console, exports).
  (table) => [index('messages_conversation_idx').on(table.conversationId, table.id)],
);

/** A demand with a way to reach the visitor, offered to experts. Contact details live only here. */
export const leads = sqliteTable(
  'leads',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    demandId: text('demand_id').notNull(),
    channelId: integer('channel_id'),
    status: text('status', { enum: LEAD_STATUSES }).notNull().default('open'),
    trigger: text('trigger', { enum: TRIGGERS }).notNull(),
    contactName: text('contact_name'),
    contactEmail: text('contact_email'),
    contactPhone: text('contact_phone'),
    attribution: text('attribution', { mode: 'json' }).$type<JsonObject>(),
    conversationId: text('conversation_id'),
    domain: text('domain').notNull().default('consultation'),
    topic: text('topic').notNull().default('general'),
    urgency: text('urgency', { enum: URGENCIES }).notNull().default('normal'),
    /** Who may see it while open: every matching provider, or the workspace's members only. */
    routingPool: text('routing_pool', { enum: ROUTING_POOLS }).notNull().default('platform'),
    /** The start of the first message, for lists. */
    summary: text('summary').notNull().default(''),
    claimedBy: text('claimed_by'),
    claimedAt: integer('claimed_at'),
    /**
     * The id of the last change (a claim, a status move, a release): its history, audit and event rows are written only
     * with it.
     */
    changeId: text('change_id'),
    /**
     * Lead operations (docs/design/lead-operations.md): the offer wave (1: the best few experts; 2: every
     * matching expert), when it widens and escalates, the claim SLA and the running claim's deadline.
     */
    wave: integer('wave').notNull().default(1),
    /**
     * A visitor's lead made while the workspace's allowance was used up (docs/design/billing.md):
     * offered to nobody (wave 0, no timers) until the sweep finds room, then charged and offered.
     */
    heldAt: integer('held_at'),
    widenAt: integer('widen_at'),
    escalateAt: integer('escalate_at'),
    escalatedAt: integer('escalated_at'),
    claimSlaMs: integer('claim_sla_ms').notNull().default(3_600_000),
    claimDeadline: integer('claim_deadline'),
    firstClaimedAt: integer('first_claimed_at'),
    firstContactedAt: integer('first_contacted_at'),
    /** The visitor's language (primary subtag, lower case) and country (upper case), when known: offer ranking. */
    language: text('language'),
    region: text('region'),
    /** The console origin of the request that made it: links in the emails the sweep sends about it. */
    consoleOrigin: text('console_origin'),
    updatedAt: integer('updated_at').notNull().default(0),
    createdAt: createdAt(),
  },
  (table) => [
    // The sweep's timers: open leads to widen or escalate, claims past their deadline.
    index('leads_widen_idx').on(table.status, table.wave, table.widenAt),
    index('leads_escalate_idx').on(table.status, table.escalatedAt, table.escalateAt),
    index('leads_deadline_idx').on(table.status, table.claimDeadline).where(sql`claim_deadline IS NOT NULL`),
    // A conversation has at most one lead (docs/design/providers-and-leads.md), however many turns race.
    uniqueIndex('leads_conversation_idx').on(table.conversationId).where(sql`conversation_id IS NOT NULL`),
    index('leads_workspace_idx').on(table.workspaceId, table.createdAt),
    index('leads_channel_idx').on(table.channelId, table.createdAt).where(sql`channel_id IS NOT NULL`),
    // The workbench: open leads of a domain, newest first; a provider's claimed leads.
    index('leads_open_domain_idx').on(table.status, table.domain, table.id),
    index('leads_claimer_idx').on(table.claimedBy, table.id).where(sql`claimed_by IS NOT NULL`),
    // The sweep's release of held leads, oldest first.
    index('leads_held_idx').on(table.heldAt).where(sql`held_at IS NOT NULL`),
  ],
);

/** The history of a lead: every status change, who made it, and an optional note. */
export const leadEvents = sqliteTable(
  'lead_events',
  {
    id: text('id').primaryKey(),
    leadId: text('lead_id').notNull(),
    fromStatus: text('from_status', { enum: LEAD_STATUSES }),
    toStatus: text('to_status', { enum: LEAD_STATUSES }).notNull(),
    actorKind: text('actor_kind', { enum: ['provider', 'channel', 'api_key', 'admin', 'system'] }).notNull(),
    actorId: text('actor_id'),
    note: text('note'),
    /** A move to `won` may say what it was worth (minor units of `value_currency`). */
    valueMinor: integer('value_minor'),
    valueCurrency: text('value_currency'),
    createdAt: createdAt(),
  },
  (table) => [
    // A lead's history, in order.
    index('lead_events_lead_idx').on(table.leadId, table.id),
    // An expert's own numbers: their claims, replies and outcomes of the last days.
    index('lead_events_actor_idx').on(table.actorId, table.createdAt).where(sql`actor_kind = 'provider'`),
  ],
);

/** A person who signs in at {auth_url}: a site owner (business) or an expert (provider). */
export const users = sqliteTable('users', {
  id: text('id').primaryKey(),
  /** Lower-cased and trimmed; one account per address. */
  email: text('email').notNull().unique(),
  /** `pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>` (worker/lib/passwords.ts). */
  passwordHash: text('password_hash').notNull(),
  role: text('role', { enum: ['business', 'provider'] }).notNull(),
  /** A platform administrator reviews providers in the console; granted through the admin API. */
  isPlatformAdmin: integer('is_platform_admin', { mode: 'boolean' }).notNull().default(false),
  /** When the address was confirmed by following a link sent to it; null until then, and again after a change. */
  emailVerifiedAt: integer('email_verified_at'),
  createdAt: createdAt(),
  updatedAt: integer('updated_at').notNull(),
});

/** Console sessions (the Lucia pattern): the cookie holds a random token, D1 its SHA-256. */
export const userSessions = sqliteTable(
  'user_sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    createdAt: createdAt(),
    expiresAt: integer('expires_at').notNull(),
    /** What its owner sees of it on /account/security: the browser and system, coarsely ("Chrome on Linux"). */
    device: text('device'),
    /** The country the sign-in came from (Cloudflare's CF-IPCountry), when known. */
    place: text('place'),
    /** When it was last used, to within 10 minutes (written at most that often). */
    lastSeenAt: integer('last_seen_at'),
    /**
     * When its owner last proved who they are in it (typed the password again); the sign-in counts
     * too. Adding a passkey or an authenticator app asks for this within 5 minutes (identity/step-up.ts).
     */
    confirmedAt: integer('confirmed_at'),
  },
  (table) => [index('user_sessions_user_idx').on(table.userId)],
);

export const memberships = sqliteTable(
  'memberships',
  {
    // No foreign keys: a membership is copied to its organisation's shard, where the users are not,
    // and the workspace is there, not in the directory.
    userId: text('user_id').notNull(),
    workspaceId: text('workspace_id').notNull(),
    role: text('role', { enum: WORKSPACE_ROLES }).notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    primaryKey({ columns: [table.userId, table.workspaceId] }),
    index('memberships_workspace_idx').on(table.workspaceId),
  ],
);

/** The supply side: one provider record per provider user, moving through SPEC's states. */
export const providers = sqliteTable('providers', {
  id: text('id').primaryKey(),
  // No foreign key: the providers are copied into every shard, where the users are not.
  userId: text('user_id').notNull().unique(),
  status: text('status', { enum: PROVIDER_STATUSES }).notNull().default('registered'),
  /** The channel whose "Become an expert" link brought them, if any. */
  referredByChannelKey: text('referred_by_channel_key'),
  kind: text('kind', { enum: PROVIDER_KINDS }),
  displayName: text('display_name'),
  headline: text('headline'),
  bio: text('bio'),
  /** Accepted scope: catalog domains (also in provider_domains, for routing) and free topics. */
  acceptedDomains: text('accepted_domains', { mode: 'json' }).$type<string[]>().notNull().default(sql`'[]'`),
  acceptedTopics: text('accepted_topics', { mode: 'json' }).$type<string[]>().notNull().default(sql`'[]'`),
  languages: text('languages', { mode: 'json' }).$type<string[]>().notNull().default(sql`'[]'`),
  regions: text('regions', { mode: 'json' }).$type<string[]>().notNull().default(sql`'[]'`),
  endpointUrl: text('endpoint_url'),
  agentCardUrl: text('agent_card_url'),
  priority: integer('priority').notNull().default(0),
  /** The note of the last rejection or suspension, shown to the provider. */
  reviewNote: text('review_note'),
  submittedAt: integer('submitted_at'),
  /**
   * Agents and robots: the `whsec_` secret that signs every call to them, encrypted (AES-GCM under
   * SECRETS_KEY); during a rotation the previous one still signs until `previous_signing_secret_until`.
   */
  signingSecret: text('signing_secret'),
  previousSigningSecret: text('previous_signing_secret'),
  previousSigningSecretUntil: integer('previous_signing_secret_until'),
  /** When the provider was shown the secret issued at approval (it is shown once). */
  signingSecretShownAt: integer('signing_secret_shown_at'),
  /** Agents that need one: the bearer token sent to them, encrypted, never in plain text. */
  bearerToken: text('bearer_token'),
  /** Agents: the card fetched and validated at onboarding (name, skills, endpoint, protocol version). */
  agentCard: text('agent_card', { mode: 'json' }).$type<Record<string, unknown>>(),
  /** How long a call to this agent or robot may take (10 s by default, 25 s at most). */
  timeoutMs: integer('timeout_ms').notNull().default(10_000),
  /** Counts every change of the profile; an approval names the version it approves (a stale one fails). */
  profileVersion: integer('profile_version').notNull().default(1),
  /** Experts' lead preferences (docs/design/email.md and docs/design/lead-operations.md). */
  availability: text('availability', { enum: AVAILABILITIES }).notNull().default('available'),
  leadAlerts: text('lead_alerts', { enum: LEAD_ALERT_MODES }).notNull().default('instant'),
  /** CLAIM_BOUNDS.maxOpenClaims.default (brain/lead-policy.ts; its unit test checks they agree). */
  maxOpenClaims: integer('max_open_claims').notNull().default(20),
  /** When they last claimed a lead (the offer ranking's round robin), and how many contacts they have revealed. */
  lastClaimedAt: integer('last_claimed_at'),
  contactReveals: integer('contact_reveals').notNull().default(0),
  /**
   * Whether their account has a second factor, kept by triggers on the factors (migration 0049):
   * an organisation that requires one of its members reads it beside the provider, on its shard,
   * where the factors themselves (secrets) never go.
   */
  secondFactor: integer('second_factor', { mode: 'boolean' }).notNull().default(false),
  /** The id of the last state change: its history, audit and event rows are written only with it. */
  changeId: text('change_id'),
  createdAt: createdAt(),
  updatedAt: integer('updated_at').notNull(),
});

/** The circuit breaker of each agent and robot: failures in a row, and until when it is skipped. */
export const providerHealth = sqliteTable('provider_health', {
  providerId: text('provider_id').primaryKey(),
  consecutiveFailures: integer('consecutive_failures').notNull().default(0),
  openUntil: integer('open_until').notNull().default(0),
  updatedAt: integer('updated_at').notNull(),
});

/** Every call made (or skipped) to an agent or robot for an execution: provider, outcome, status, duration. */
export const agentAttempts = sqliteTable(
  'agent_attempts',
  {
    id: text('id').primaryKey(),
    executionId: text('execution_id').notNull(),
    providerId: text('provider_id').notNull(),
    workspaceId: text('workspace_id').notNull(),
    outcome: text('outcome', { enum: ATTEMPT_OUTCOMES }).notNull(),
    httpStatus: integer('http_status'),
    durationMs: integer('duration_ms').notNull(),
    /** A short, secret-free description of what went wrong. */
    error: text('error'),
    createdAt: createdAt(),
  },
  (table) => [
    // An agent's health and its operations page (its attempts by time); an execution's attempts.
    index('agent_attempts_provider_idx').on(table.providerId, table.createdAt),
    index('agent_attempts_execution_idx').on(table.executionId),
  ],
);

/** A provider's accepted domains, one row each, so routing finds a domain's providers by index. */
export const providerDomains = sqliteTable(
  'provider_domains',
  {
    providerId: text('provider_id').notNull(),
    domain: text('domain').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.providerId, table.domain] }),
    index('provider_domains_domain_idx').on(table.domain),
  ],
);

/** Every change of a provider's state: from, to, who, when, and the note. */
export const providerTransitions = sqliteTable(
  'provider_transitions',
  {
    id: text('id').primaryKey(),
    providerId: text('provider_id').notNull(),
    fromStatus: text('from_status', {
      enum: PROVIDER_STATUSES,
    }),
    toStatus: text('to_status', {
      enum: PROVIDER_STATUSES,
    }).notNull(),
    actorKind: text('actor_kind', { enum: ['provider', 'admin', 'user', 'system'] }).notNull(),
    actorId: text('actor_id'),
    note: text('note'),
    createdAt: createdAt(),
  },
  (table) => [index('provider_transitions_provider_idx').on(table.providerId, table.id)],
);

/** The domain catalog (docs/design/providers-and-leads.md), kept by admins. */
export const domains = sqliteTable('domains', {
  slug: text('slug').primaryKey(),
  name: text('name').notNull(),
  description: text('description'),
  /** What an expert pays to claim a lead of this domain, in minor units of `lead_price_currency`; null: free. */
  leadPriceMinor: integer('lead_price_minor'),
  /** ISO 4217: the lead price's currency; an expert whose escrow is in another cannot claim a priced lead. */
  leadPriceCurrency: text('lead_price_currency'),
  createdAt: createdAt(),
});

/**
 * An invitation to join a workspace. It waits until the invitee, signed in with this email,
 * accepts or declines it in the console; an owner may revoke it; after 7 days it expires.
 */
export const invitations = sqliteTable(
  'invitations',
  {
    id: text('id').primaryKey(),
    // No foreign key: the workspace is on its organisation's shard, the invitation in the directory.
    workspaceId: text('workspace_id').notNull(),
    /** Lower-cased and trimmed, as users.email. */
    email: text('email').notNull(),
    role: text('role', { enum: WORKSPACE_ROLES }).notNull(),
    status: text('status', { enum: ['pending', 'accepted', 'declined', 'revoked'] }).notNull(),
    invitedBy: text('invited_by').notNull(),
    createdAt: createdAt(),
    expiresAt: integer('expires_at').notNull(),
    respondedAt: integer('responded_at'),
  },
  (table) => [
    // One open invitation per address and workspace; inviting again refreshes it.
    uniqueIndex('invitations_pending_idx').on(table.workspaceId, table.email).where(sql`status = 'pending'`),
    index('invitations_email_idx').on(table.email, table.status),
  ],
);

/**
 * A customer's webhook endpoint (docs/design/webhooks.md and docs/design/identity-and-access.md), provisioned by an
 * admin per
 * workspace. Its `whsec_` secret is stored encrypted; during a rotation the previous one also signs.
 */
export const webhookEndpoints = sqliteTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    url: text('url').notNull(),
    description: text('description'),
    eventTypes: text('event_types', { mode: 'json' }).notNull().$type<string[]>(),
    status: text('status', { enum: ['active', 'disabled'] }).notNull(),
    /** Why it is disabled: an admin, a 410 Gone, or 3 days of failures. */
    disabledReason: text('disabled_reason', { enum: ['admin', 'gone', 'failing'] }),
    disabledAt: integer('disabled_at'),
    signingSecret: text('signing_secret').notNull(),
    previousSigningSecret: text('previous_signing_secret'),
    previousSigningSecretUntil: integer('previous_signing_secret_until'),
    /** Since when every delivery to it has failed (null: its last delivery succeeded). */
    failingSince: integer('failing_since'),
    /** The id of the last change of its state: the audit row of a disable is written only with it. */
    changeId: text('change_id'),
    createdAt: createdAt(),
    updatedAt: integer('updated_at').notNull(),
  },
  (table) => [index('webhook_endpoints_workspace_idx').on(table.workspaceId, table.status)],
);

/**
 * The outbox: one row per event, written in the same D1 batch as the change it reports. A
 * trigger (migrations/0010) fans each new event out to its workspace's matching endpoints as
 * deliveries, in the same statement, so neither can exist without the other.
 */
export const events = sqliteTable(
  'events',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    type: text('type').notNull(),
    /** The public shape of the record: never contact details. */
    data: text('data', { mode: 'json' }).notNull().$type<Record<string, unknown>>(),
    createdAt: createdAt(),
  },
  // An erasure's search of a workspace's payloads (lifecycle/erasure.ts).
  (table) => [index('events_workspace_idx').on(table.workspaceId, table.id)],
);

/** One event for one endpoint: delivered at least once, retried with backoff for about 3 days. */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    eventId: text('event_id').notNull(),
    endpointId: text('endpoint_id').notNull(),
    workspaceId: text('workspace_id').notNull(),
    /** `paused` while its endpoint is disabled: delivered on re-enable, if still within the retry window. */
    status: text('status', { enum: ['pending', 'paused', 'delivered', 'failed', 'cancelled'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    /** When the next attempt is due; an attempt in flight pushes it out (a lease). */
    nextAttemptAt: integer('next_attempt_at').notNull(),
    /**
     * Leases taken since the last recorded outcome: more than one means a runner stopped mid-attempt
     * (its send may have arrived), and the resend says so in the delivery log.
     */
    unrecordedLeases: integer('unrecorded_leases').notNull().default(0),
    lastStatus: integer('last_status'),
    lastError: text('last_error'),
    deliveredAt: integer('delivered_at'),
    createdAt: createdAt(),
    updatedAt: integer('updated_at').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.eventId, table.endpointId] }),
    index('webhook_deliveries_due_idx').on(table.status, table.nextAttemptAt),
    index('webhook_deliveries_endpoint_idx').on(table.endpointId, table.createdAt),
    // An endpoint's outbox takes its due deliveries in the order they fall due.
    index('webhook_deliveries_endpoint_due_idx').on(table.endpointId, table.status, table.nextAttemptAt),
  ],
);

/** The delivery log: every attempt, with its HTTP status, duration and error. */
export const webhookAttempts = sqliteTable(
  'webhook_attempts',
  {
    id: text('id').primaryKey(),
    eventId: text('event_id').notNull(),
    endpointId: text('endpoint_id').notNull(),
    attempt: integer('attempt').notNull(),
    statusCode: integer('status_code'),
    durationMs: integer('duration_ms').notNull(),
    error: text('error'),
    createdAt: createdAt(),
  },
  (table) => [index('webhook_attempts_endpoint_idx').on(table.endpointId, table.id)],
);

/**
 * The email outbox (docs/design/email.md): one row per email, written in the batch of the change
 * that causes it (digests: by the cron sweep), sent from the queue and retried for 24 hours. It
 * holds no address and no body: both are resolved when it is sent, so nothing stale or personal
 * is kept here, and the log shows the recipient masked.
 */
export const emails = sqliteTable(
  'emails',
  {
    id: text('id').primaryKey(),
    /** The workspace whose lead or conversation it is about: its owners read the log. */
    workspaceId: text('workspace_id').notNull(),
    kind: text('kind', { enum: EMAIL_KINDS }).notNull(),
    status: text('status', { enum: EMAIL_STATUSES }).notNull(),
    /** Alerts and digests: the expert it goes to. */
    providerId: text('provider_id'),
    /** Escalations: the workspace owner it goes to. */
    userId: text('user_id'),
    leadId: text('lead_id'),
    /** Continuations: the conversation (the visitor's address is its lead's). */
    conversationId: text('conversation_id'),
    subject: text('subject').notNull(),
    /** The console origin its links use (CONSOLE_URL, else the origin of the request that caused it). */
    linkOrigin: text('link_origin').notNull(),
    /** A held alert that went into a digest: that digest. */
    digestId: text('digest_id'),
    /** Continuations: the last reply it carries (the next email carries the replies after it). */
    upToMessageId: text('up_to_message_id'),
    /** Notices: the console page its link opens (a path, under the link origin). */
    linkPath: text('link_path'),
    /** Account emails to an address the account no longer has (the old one, told of a change). */
    toAddress: text('to_address'),
    attempts: integer('attempts').notNull().default(0),
    /** When it is due (held: when the sweep looks at it again); a send in flight pushes it out (a lease). */
    nextAttemptAt: integer('next_attempt_at').notNull(),
    /** Why it failed or was skipped; never an address. */
    lastError: text('last_error'),
    sentAt: integer('sent_at'),
    createdAt: createdAt(),
    updatedAt: integer('updated_at').notNull(),
  },
  (table) => [
    // The sender's due emails; an expert's recent alerts and digests of a kind; a conversation's notices of
    // a kind; the console's email log.
    index('emails_due_idx').on(table.status, table.nextAttemptAt),
    index('emails_provider_idx').on(table.providerId, table.kind, table.createdAt),
    index('emails_conversation_idx')
      .on(table.conversationId, table.kind, table.createdAt)
      .where(sql`conversation_id IS NOT NULL`),
    index('emails_workspace_idx').on(table.workspaceId, table.id),
  ],
);

/**
 * Keys into one conversation that an email carries (docs/design/email.md): `resume` opens it in
 * the hosted inbox (a visitor bearer, `egv_…`), `reply` is the local part of its Reply-To address.
 * 256 random bits each, stored as SHA-256, for 30 days.
 */
export const conversationKeys = sqliteTable(
  'conversation_keys',
  {
    keyHash: text('key_hash').primaryKey(),
    conversationId: text('conversation_id').notNull(),
    purpose: text('purpose', { enum: ['resume', 'reply'] }).notNull(),
    expiresAt: integer('expires_at').notNull(),
    createdAt: createdAt(),
  },
  (table) => [index('conversation_keys_conversation_idx').on(table.conversationId)],
);

/** Addresses that unsubscribed from visitor emails (SHA-256 of the lower-cased address). */
export const emailSuppressions = sqliteTable('email_suppressions', {
  addressHash: text('address_hash').primaryKey(),
  createdAt: createdAt(),
});

/**
 * Who a lead is offered to (docs/design/lead-operations.md), wave by wave: only they see it in Available
 * and may claim it. An expert who released it, or let it lapse, keeps the row with a cooldown.
 */
export const leadOffers = sqliteTable(
  'lead_offers',
  {
    leadId: text('lead_id').notNull(),
    providerId: text('provider_id').notNull(),
    wave: integer('wave').notNull(),
    offeredAt: integer('offered_at').notNull(),
    /** Until when this expert may not claim it again (24 hours after a release or a lapse). */
    cooldownUntil: integer('cooldown_until'),
  },
  (table) => [
    primaryKey({ columns: [table.leadId, table.providerId] }),
    index('lead_offers_provider_idx').on(table.providerId, table.leadId),
  ],
);

// The ledger's tables (contracts, escrows, entries, meters, statements, refund requests).
export * from './billing';
export * from './payments';
// The owner's numbers per day, rolled up by the sweep.
export * from './rollups';
// A2A tasks: threads of executions that an agent reads back.
export * from './tasks';
// The owner's knowledge: sources, their chunks (indexed by FTS5), and the questions it declined.
export * from './knowledge';
export * from './accounts';

/**
 * A workspace owner's request for an API key or a webhook endpoint (docs/design/identity-and-access.md):
 * the platform provisions them, so a platform admin approves or declines it. An approval makes the
 * key or endpoint; its one secret waits here, encrypted, until an owner has seen it once.
 */
export const provisioningRequests = sqliteTable(
  'provisioning_requests',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    kind: text('kind', { enum: PROVISIONING_KINDS }).notNull(),
    status: text('status', { enum: PROVISIONING_STATUSES }).notNull().default('pending'),
    /** What was asked: a key's name, scopes and purpose; an endpoint's URL, events and purpose. */
    details: text('details', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    requestedBy: text('requested_by').notNull(),
    decidedBy: text('decided_by'),
    decidedAt: integer('decided_at'),
    decisionNote: text('decision_note'),
    /** The key's or endpoint's id, once approved. */
    resultId: text('result_id'),
    /** The key's token or the endpoint's signing secret, encrypted (SECRETS_KEY), until an owner saw it. */
    sealedSecret: text('sealed_secret'),
    secretShownAt: integer('secret_shown_at'),
    createdAt: createdAt(),
    updatedAt: integer('updated_at').notNull(),
  },
  (table) => [
    index('provisioning_requests_status_idx').on(table.status, table.createdAt),
    index('provisioning_requests_workspace_idx').on(table.workspaceId, table.createdAt),
  ],
);
export * from './lifecycle';
// Where each organisation's rows are: the directory's map to the shards.
export * from './shards';
