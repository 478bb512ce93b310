/**
 * An agent's or robot's operations (docs/design/agents-and-robots.md and docs/design/identity-and-access.md): the
 * signing secret issued on
 * approval, shown once and rotated with an overlap, and the health view of its last 24 hours.
 */
import { and, desc, eq, gt } from 'drizzle-orm';
import { schema, type Database } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { encryptSecret, SIGNING_SECRET_OVERLAP_MS } from '../../lib/secrets';
import { newWebhookSecret } from '../../lib/standard-webhooks';
import { auditInsert, type AuditContext } from '../audit';
import type { AgentHealth } from './schemas';
import { requireSecretsKey } from './service';
import { iso } from '../../lib/periods';
import { readEveryShard } from '../shards';

const { providers, providerHealth, agentAttempts } = schema;

/**
 * The signing secret an approval issues to an agent or robot that has none yet (docs/design/agents-and-robots.md
 * section 12): the fields to set, and the secret itself, which the approval's answer shows once.
 */
export async function signingSecretOnApproval(
  kind: string | null,
  hasSecret: boolean,
  secretsKey: string | undefined,
  now: number,
): Promise<{ fields: { signingSecret: string; signingSecretShownAt: number }; secret: string } | undefined> {
  if ((kind !== 'agent' && kind !== 'robot') || hasSecret) return undefined;
  const secret = newWebhookSecret();
  return {
    fields: { signingSecret: await encryptSecret(secret, requireSecretsKey(secretsKey)), signingSecretShownAt: now },
    secret,
  };
}

/**
 * A new signing secret, shown once in the answer. The old one keeps signing for 24 hours, so a
 * provider can deploy the new one without missing a call. Only from the secret the caller saw.
 */
export async function rotateSigningSecret(
  db: Database,
  audit: AuditContext,
  providerId: string,
  secretsKey: string | undefined,
  now: number,
) {
  const key = requireSecretsKey(secretsKey);
  const current = await db
    .select({ secret: providers.signingSecret })
    .from(providers)
    .where(eq(providers.id, providerId))
    .get();
  if (!current?.secret)
    throw new ApiError(
      'conflict',
      'There is no signing secret to rotate yet: it is issued when the provider is approved.',
    );
  const fresh = newWebhookSecret();
  const until = now + SIGNING_SECRET_OVERLAP_MS;
  const [updated] = await db.batch([
    db
      .update(providers)
      .set({
        signingSecret: await encryptSecret(fresh, key),
        previousSigningSecret: current.secret,
        previousSigningSecretUntil: until,
        signingSecretShownAt: now,
        updatedAt: now,
      })
      .where(and(eq(providers.id, providerId), eq(providers.signingSecret, current.secret)))
      .returning({ id: providers.id }),
    auditInsert(
      db,
      audit,
      {
        action: 'provider.signing_secret_rotated',
        targetId: providerId,
        metadata: { previous_valid_until: iso(until) },
      },
      now,
    ),
  ]);
  if (updated.length === 0)
    throw new ApiError('conflict', 'The secret was rotated meanwhile. Rotate again if you need a new one.');
  return { signing_secret: fresh, previous_secret_valid_until: iso(until) };
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/** The last 24 hours of one agent or robot: success rate, latency percentiles, breaker, last errors. */
export async function agentHealth(db: Database, providerId: string, now: number): Promise<AgentHealth> {
  const since = now - 24 * 60 * 60 * 1000;
  // Each shard calls the agent for its own organisations and keeps its own breaker: the view is
  // every shard's calls together, and the breaker open where any shard's is.
  const everyShard = await readEveryShard(db, agentAttempts, (shardDb) =>
    shardDb.batch([
      shardDb
        .select({
          executionId: agentAttempts.executionId,
          outcome: agentAttempts.outcome,
          httpStatus: agentAttempts.httpStatus,
          durationMs: agentAttempts.durationMs,
          error: agentAttempts.error,
          createdAt: agentAttempts.createdAt,
        })
        .from(agentAttempts)
        .where(and(eq(agentAttempts.providerId, providerId), gt(agentAttempts.createdAt, since)))
        .orderBy(desc(agentAttempts.createdAt))
        .limit(20_000),
      shardDb.select().from(providerHealth).where(eq(providerHealth.providerId, providerId)).limit(1),
    ]),
  );
  const attempts = everyShard.flatMap(([shardAttempts]) => shardAttempts).sort((a, b) => b.createdAt - a.createdAt);
  const breakers = everyShard.flatMap(([, health]) => health);
  const state = breakers.sort((a, b) => b.openUntil - a.openUntil || b.consecutiveFailures - a.consecutiveFailures)[0];
  const calls = attempts.filter((attempt) => attempt.outcome !== 'circuit_open');
  const successes = calls.filter((attempt) => attempt.outcome === 'success').length;
  const durations = calls.map((attempt) => attempt.durationMs).sort((a, b) => a - b);
  const open = Boolean(state && state.openUntil > now);
  return {
    provider_id: providerId,
    window_hours: 24,
    calls: calls.length,
    successes,
    success_rate: calls.length === 0 ? null : Math.round((successes / calls.length) * 1000) / 1000,
    p50_ms: percentile(durations, 50),
    p95_ms: percentile(durations, 95),
    skipped: attempts.length - calls.length,
    circuit: {
      state: open ? 'open' : 'closed',
      consecutive_failures: state?.consecutiveFailures ?? 0,
      open_until: open ? iso(state!.openUntil) : null,
    },
    last_errors: attempts
      .filter((attempt) => attempt.outcome !== 'success')
      .slice(0, 10)
      .map((attempt) => ({
        at: new Date(attempt.createdAt).toISOString(),
        execution_id: attempt.executionId,
        outcome: attempt.outcome,
        http_status: attempt.httpStatus,
        error: attempt.error,
      })),
  };
}
