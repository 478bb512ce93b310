/**
 * Agents and robots as the brain's supply (docs/design/agents-and-robots.md): which ones may answer a
 * domain, with their health; what it takes to call one (its card or endpoint, its decrypted
 * signing secrets and bearer token, its timeout); the attempts and circuit-breaker state an
 * execution writes; and the memory of a conversation an agent is given.
 */
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import {
  BREAKER_OPEN_MS,
  BREAKER_THRESHOLD,
  countsAsFailure,
  type AgentAttempt,
  type AgentCandidate,
  type MemoryTurn,
} from '../../brain';
import { insertRows, schema, type Database } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { decryptSecret, signingSecretsInForce } from '../../lib/secrets';
import { TtlCache } from '../../lib/ttl-cache';
import type { CallTarget } from './invoke';
import type { StoredAgentCard } from './schemas';

const { providers, providerDomains, providerHealth, agentAttempts, memberships, messages } = schema;

/** How many agents one execution may try, at most. */
const MAX_CANDIDATES = 8;
/** Memory (docs/design/providers-and-leads.md): the last 20 turns, at most 16 KB. */
export const MEMORY_TURNS = 20;
export const MEMORY_BYTES = 16 * 1024;

/** The routing pool (docs/design/providers-and-leads.md), which bounds agents as it bounds experts. */
export type AgentPool = { kind: 'platform' } | { kind: 'workspace'; workspaceId: string };

interface CandidateRow {
  id: string;
  kind: 'agent' | 'robot';
  name: string | null;
  priority: number;
  endpoint_url: string | null;
  agent_card: string | null;
  signing_secret: string | null;
  previous_signing_secret: string | null;
  previous_signing_secret_until: number | null;
  bearer_token: string | null;
  timeout_ms: number;
  open_until: number;
  failures: number;
}

/** The candidates of a domain, and what it takes to call each (decrypted only when called). */
export interface AgentSupply {
  candidates: AgentCandidate[];
  target(providerId: string): Promise<CallTarget>;
}

/** Failed calls count against the order for an hour. */
const FAILURE_WINDOW_MS = 60 * 60 * 1000;
const NOT_FAILURES = sql.raw(`('success', 'declined', 'circuit_open')`);

/** The active agents and robots of the pool that accept a domain (over provider_domains joined to providers). */
function agentsAccepting(domain: string, pool: AgentPool) {
  const inPool =
    pool.kind === 'workspace'
      ? sql`${providers.userId} IN (SELECT ${memberships.userId} FROM ${memberships} WHERE
        ${memberships.workspaceId} = ${pool.workspaceId})`
      : undefined;
  return and(
    eq(providerDomains.domain, domain),
    eq(providers.status, 'active'),
    inArray(providers.kind, ['agent', 'robot']),
    inPool,
  );
}

/**
 * The active agents and robots of the pool that accept a domain, with their failures in the
 * last hour and their breaker, in one query. Nothing here is cached: a suspension or an
 * opened breaker counts from the next execution on.
 */
export function agentSupplyQuery(db: Database, domain: string, pool: AgentPool, now: number) {
  // The query builder, not raw SQL: drizzle can batch only built queries, and this one travels in the agent path's
  // preflight batch.
  return db
    .select({
      id: sql<string>`${providers.id}`,
      kind: sql<'agent' | 'robot'>`${providers.kind}`,
      name: providers.displayName,
      priority: providers.priority,
      endpoint_url: providers.endpointUrl,
      agent_card: sql<string | null>`${providers.agentCard}`,
      signing_secret: providers.signingSecret,
      previous_signing_secret: providers.previousSigningSecret,
      previous_signing_secret_until: providers.previousSigningSecretUntil,
      bearer_token: providers.bearerToken,
      timeout_ms: providers.timeoutMs,
      open_until: sql<number>`coalesce(${providerHealth.openUntil}, 0)`,
      failures: sql<number>`(SELECT count(*) FROM ${agentAttempts} a WHERE a.provider_id = ${providers.id} AND 
        a.created_at > ${now - FAILURE_WINDOW_MS} AND a.outcome NOT IN ${NOT_FAILURES})`,
    })
    .from(providerDomains)
    .innerJoin(providers, eq(providers.id, providerDomains.providerId))
    .leftJoin(providerHealth, eq(providerHealth.providerId, providers.id))
    .where(agentsAccepting(domain, pool))
    .orderBy(desc(providers.priority), providers.id)
    .limit(MAX_CANDIDATES);
}

/** The supply that `agentSupplyQuery`'s rows describe. */
export function agentSupplyOf(rows: CandidateRow[], secretsKey: string | undefined, now: number): AgentSupply {
  const byId = new Map(rows.map((row) => [row.id, row]));
  return {
    candidates: rows.map((row) => ({
      providerId: row.id,
      kind: row.kind,
      name: row.name ?? (row.kind === 'agent' ? 'An agent' : 'A robot'),
      priority: row.priority,
      failuresLastHour: row.failures,
      openUntil: row.open_until,
    })),
    async target(providerId) {
      const row = byId.get(providerId);
      if (!row) throw new Error(`not a candidate: ${providerId}`);
      return callTarget(row, secretsKey, now);
    },
  };
}

const supplyPresenceCache = new TtlCache<boolean>(10_000, 500);

/**
 * Whether any active agent or robot of the pool accepts a domain, cached briefly: it guards no
 * security decision (the candidates themselves are read fresh before any call), and it keeps
 * the lead path of a domain without agents at one round trip. A provider change through this
 * isolate clears it; others see it within 10 s.
 */
export async function hasAgentSupply(db: Database, domain: string, pool: AgentPool): Promise<boolean> {
  const key = pool.kind === 'platform' ? `platform:${domain}` : `workspace:${pool.workspaceId}:${domain}`;
  return supplyPresenceCache.get(key, db, async () => {
    const row = await db
      .select({ found: sql<number>`1` })
      .from(providerDomains)
      .innerJoin(providers, eq(providers.id, providerDomains.providerId))
      .where(agentsAccepting(domain, pool))
      .limit(1)
      .get();
    return row !== undefined;
  });
}

/** Forgets which domains have agents (after a provider's change through this isolate). */
export function forgetAgentSupply(): void {
  supplyPresenceCache.clear();
}

async function callTarget(row: CandidateRow, secretsKey: string | undefined, now: number): Promise<CallTarget> {
  const key = requireSecretsKey(secretsKey);
  const signingSecrets = await signingSecretsInForce(
    {
      current: row.signing_secret,
      previous: row.previous_signing_secret,
      previousUntil: row.previous_signing_secret_until,
    },
    key,
    now,
  );
  return {
    providerId: row.id,
    kind: row.kind,
    endpointUrl: row.endpoint_url,
    card: row.agent_card ? (JSON.parse(row.agent_card) as StoredAgentCard) : null,
    signingSecrets,
    bearerToken: row.bearer_token ? await decryptSecret(row.bearer_token, key) : null,
    timeoutMs: row.timeout_ms,
  };
}

/** SECRETS_KEY is required once secrets are stored: without it they cannot be read or made. */
export function requireSecretsKey(secretsKey: string | undefined): string {
  if (!secretsKey)
    throw new ApiError(
      'service_unavailable',
      'Agents and robots need the SECRETS_KEY secret, which is not configured.',
    );
  return secretsKey;
}

/**
 * The rows an execution's attempts become, for its batch: one per attempt, and each call's
 * effect on the breaker (a failure counts up and opens it at the threshold; an answer closes it).
 */
export function attemptWrites(
  db: Database,
  executionId: string,
  workspaceId: string,
  attempts: AgentAttempt[],
  now: number,
): BatchItem<'sqlite'>[] {
  if (attempts.length === 0) return [];
  const writes: BatchItem<'sqlite'>[] = [
    insertRows(
      db,
      agentAttempts,
      attempts.map((attempt) => ({
        id: newId('att', now),
        executionId,
        providerId: attempt.providerId,
        workspaceId,
        outcome: attempt.outcome,
        httpStatus: attempt.httpStatus,
        durationMs: attempt.durationMs,
        error: attempt.error,
        createdAt: now,
      })),
    ),
  ];
  for (const attempt of attempts) {
    if (attempt.outcome === 'circuit_open') continue;
    if (countsAsFailure(attempt.outcome)) {
      writes.push(
        db
          .insert(providerHealth)
          .values({ providerId: attempt.providerId, consecutiveFailures: 1, openUntil: 0, updatedAt: now })
          .onConflictDoUpdate({
            target: providerHealth.providerId,
            set: {
              consecutiveFailures: sql`${providerHealth.consecutiveFailures} + 1`,
              openUntil: sql`CASE WHEN ${providerHealth.consecutiveFailures} + 1 >= ${BREAKER_THRESHOLD} THEN
                ${now + BREAKER_OPEN_MS} ELSE ${providerHealth.openUntil} END`,
              updatedAt: now,
            },
          }),
      );
    } else {
      writes.push(
        db
          .insert(providerHealth)
          .values({ providerId: attempt.providerId, consecutiveFailures: 0, openUntil: 0, updatedAt: now })
          .onConflictDoUpdate({
            target: providerHealth.providerId,
            set: { consecutiveFailures: 0, openUntil: 0, updatedAt: now },
          }),
      );
    }
  }
  return writes;
}

/** The conversation's earlier turns for an agent: the last 20, then the newest that fit in 16 KB, oldest first. */
export function conversationMemoryQuery(db: Database, conversationId: string) {
  return db
    .select({ role: messages.role, text: messages.text, createdAt: messages.createdAt })
    .from(messages)
    .where(eq(messages.conversationId, conversationId))
    .orderBy(desc(messages.id))
    .limit(MEMORY_TURNS);
}

/** The memory that `conversationMemoryQuery`'s rows (newest first) give: oldest first, within MEMORY_BYTES. */
export function conversationMemoryOf(
  rows: Array<{ role: MemoryTurn['role']; text: string; createdAt: number }>,
): MemoryTurn[] {
  const encoder = new TextEncoder();
  const kept: MemoryTurn[] = [];
  let bytes = 0;
  for (const row of rows) {
    bytes += encoder.encode(row.text).length;
    if (bytes > MEMORY_BYTES) break;
    kept.push({ role: row.role, text: row.text, created_at: new Date(row.createdAt).toISOString() });
  }
  return kept.reverse();
}
