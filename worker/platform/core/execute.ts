/**
 * The one execution pipeline of the platform core (PRODUCT.md section 2, steps 4 to 8). Every
 * demand runs through it, whoever brings it: an API key (POST /api/execute) or a channel
 * (widget and hosted-inbox intake). It runs admission, limits, idempotency and the brain, then
 * writes everything in one D1 batch: what the brain planned, the conversation's turn, the
 * execution, its audit record and its usage charge. Routes are thin adapters over it.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { planExecution, type BrainPorts, type ExecutedPlan, type VisitorContact } from '../../brain';
import { sha256Hex } from '../../lib/crypto';
import type { EgressPolicy } from '../../lib/egress';
import { isConstraintViolation, schema, type Database } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { callProvider } from '../agents/invoke';
import { agentSupply, attemptWrites, conversationMemory, type AgentSupply } from '../agents/service';
import type { Attribution, IntakeTrigger } from '../channels/schemas';
import { asksForContact, type ActiveChannel } from '../channels/service';
import {
  conversationTurnWrites,
  findApiConversation,
  findChannelConversation,
  newVisitorToken,
  type ConversationStart,
  type ConversationState,
} from '../conversations/service';
import { EXECUTIONS_METER, quotaPeriod, type KeyContext } from '../identity/credentials';
import { workspaceRiskPolicy } from '../identity/service';
import { planWrites, type DemandOrigin } from '../leads/service';
import { expertPool, type RoutingPool } from '../providers/service';
import { admitChannel, admitKey, type KeyPrincipal } from './admission';
import { releaseIdempotencyKey, reserveIdempotencyKey } from './idempotency';
import { consumeRateLimit, type RateLimitOutcome } from './rate-limit';
import type { ExecuteResponse, UsageApplication } from './schemas';

const { executions, auditLog, usageMeters, idempotencyRecords } = schema;

/** A channel bringing a visitor's message: the channel, and the client it came from. */
export interface ChannelPrincipal {
  kind: 'channel';
  channel: ActiveChannel;
  /** The client's IP address; only a hash of it is kept, as the rate-limit subject. */
  clientIp: string;
  /** The visitor's token, when continuing a conversation. */
  visitorToken?: string;
}

export type Principal = KeyPrincipal | ChannelPrincipal;

/** What is asked: the same fields whoever asks. */
export interface Demand {
  domain: string;
  text?: string;
  structuredInput?: Record<string, unknown>;
  attachments?: unknown[];
  /** `required_scopes` of an API request (empty: all of the key's scopes). */
  requiredScopes?: string[];
  /** Channel demands: what the visitor did, their contact details and where they came from. */
  trigger?: IntakeTrigger;
  contact?: VisitorContact;
  attribution?: Attribution;
  /** The widget's hidden field was filled in. */
  honeypot?: boolean;
}

export interface ExecutionContext {
  /** Our id of this request, for the audit record. */
  requestId: string;
  /** The request id the envelope carries: the caller's `request_id`, else ours. */
  outputRequestId: string;
  traceId: string;
  now: number;
  /** Per-key idempotency: the caller's key and the fingerprint of its request. */
  idempotency?: { key: string; fingerprint: string };
  /** The caller's own correlation fields, stored with the execution; `sessionId` also names its conversation. */
  correlation?: { projectId?: string; userId?: string; sessionId?: string };
  /** The request's exact_bridge, kept for the association it asks for. */
  exactBridge?: Record<string, unknown> & { contract_id?: string; escrow_id?: string };
  limits: { defaultRateLimitPerMinute: number; intakeRateLimitPerMinute: number };
  /** Calls to agents and robots: the egress guard's policy, and the key their secrets are encrypted under. */
  egress: EgressPolicy;
  secretsKey?: string;
}

export interface ExecutionOutcome {
  status: number;
  /** The JSON text of the envelope; on a replay, exactly the bytes first sent. */
  body: string;
  replayed: boolean;
  rateLimit: RateLimitOutcome;
  /** The brain's plan; a replay has only its bytes. */
  plan?: ExecutedPlan;
  /** Channel executions: the visitor's token, and whether a way to reach them is known. */
  conversation?: { token: string; contactKnown: boolean };
}

/** Who the execution runs as, after admission. */
interface Admitted {
  organizationId: string;
  workspaceId: string;
  key: KeyContext | null;
  actorKind: 'admin' | 'api_key' | 'channel';
  actorId: string;
  grantedScopes: string[];
  rateLimitSubject: string;
  rateLimitPerMinute: number;
}

async function admit(db: Database, principal: Principal, demand: Demand, context: ExecutionContext): Promise<Admitted> {
  if (principal.kind === 'channel') {
    const admitted = await admitChannel(db, principal.channel);
    const clientHash = (await sha256Hex(principal.clientIp)).slice(0, 24);
    return { ...admitted, key: null, rateLimitSubject: `intake:${principal.channel.id}:${clientHash}`, rateLimitPerMinute: context.limits.intakeRateLimitPerMinute };
  }
  const admitted = await admitKey(db, principal, demand.domain, demand.requiredScopes ?? [], context.now);
  return {
    ...admitted,
    rateLimitSubject: admitted.key.id,
    rateLimitPerMinute: admitted.key.rateLimitPerMinute ?? context.limits.defaultRateLimitPerMinute,
  };
}

/** The brain's reads over D1 for this workspace and routing pool, and its calls to agents and robots. */
function brainPorts(db: Database, workspaceId: string, pool: RoutingPool, conversationId: string | undefined, context: ExecutionContext): BrainPorts {
  let supply: AgentSupply | undefined;
  return {
    workspacePolicy: () => workspaceRiskPolicy(db, workspaceId),
    expertPool: (domain) => expertPool(db, domain, pool),
    async agentCandidates(domain) {
      supply = await agentSupply(db, domain, pool, context.secretsKey, context.now);
      return supply.candidates;
    },
    async invokeAgent(providerId, call) {
      let target;
      try {
        target = await supply!.target(providerId);
      } catch (error) {
        // Its secrets cannot be read (SECRETS_KEY unset or changed): skip it, and let the next one or an expert answer.
        console.error(JSON.stringify({ level: 'error', message: 'provider secrets unreadable', provider_id: providerId, error: error instanceof Error ? error.name : 'unknown' }));
        return { ok: false, outcome: 'refused', httpStatus: null, durationMs: 0, error: 'The platform cannot read this provider’s signing secret (SECRETS_KEY).' };
      }
      return callProvider(target, call, context.egress);
    },
    conversationMemory: async () => (conversationId ? conversationMemory(db, conversationId) : []),
  };
}

const quotaExceeded = (quota: number | null) => new ApiError('quota_exceeded', `This key's monthly quota of ${quota} executions is used up.`);

/** The conversation this message continues: a channel's by the visitor's token, an API caller's by its session_id. */
async function existingConversation(db: Database, principal: Principal, admitted: Admitted, context: ExecutionContext): Promise<ConversationState | undefined> {
  if (principal.kind === 'channel') return principal.visitorToken ? findChannelConversation(db, principal.channel.id, principal.visitorToken) : undefined;
  const sessionId = context.correlation?.sessionId;
  return sessionId ? findApiConversation(db, admitted.workspaceId, sessionId) : undefined;
}

/** Runs one execution for any principal, and answers with the envelope. */
export async function runExecution(db: Database, principal: Principal, demand: Demand, context: ExecutionContext): Promise<ExecutionOutcome> {
  const { now } = context;
  const admitted = await admit(db, principal, demand, context);

  // Step 6: rate limit, then a quick quota check (the exact one is the CHECK in the batch).
  const rateLimit = await consumeRateLimit(db, admitted.rateLimitSubject, admitted.rateLimitPerMinute, now);
  if (!rateLimit.allowed) {
    const detail = principal.kind === 'channel' ? 'Too many messages from this connection. Try again in a minute.' : `This key allows ${rateLimit.limit} requests per minute.`;
    throw new ApiError('rate_limited', detail, { headers: { 'Retry-After': String(rateLimit.resetSeconds) } });
  }
  const key = admitted.key;
  if (key && key.monthlyQuota !== null && key.executionsThisPeriod >= key.monthlyQuota) throw quotaExceeded(key.monthlyQuota);

  // Step 7: idempotency (API keys).
  const idempotency = key ? context.idempotency : undefined;
  if (key && idempotency) {
    const reservation = await reserveIdempotencyKey(db, key.id, idempotency.key, idempotency.fingerprint, now);
    if (reservation.kind === 'replay') return { status: reservation.status, body: reservation.body, replayed: true, rateLimit };
  }

  try {
    const conversation = await existingConversation(db, principal, admitted, context);
    const visitor = principal.kind === 'channel' ? principal : undefined;
    const channel = visitor?.channel;
    const pool: RoutingPool = channel?.routingPool === 'workspace' ? { kind: 'workspace', workspaceId: channel.workspaceId } : { kind: 'platform' };
    const contactKnown = Boolean(conversation?.contactKnown || demand.contact?.email || demand.contact?.phone);
    const executionId = newId('exe', now);
    const plan = await planExecution(
      {
        executionId,
        requestId: context.outputRequestId,
        traceId: context.traceId,
        workspaceId: admitted.workspaceId,
        domain: demand.domain,
        text: demand.text,
        structuredInput: demand.structuredInput,
        attachments: demand.attachments,
        grantedScopes: admitted.grantedScopes,
        origin: channel
          ? {
              kind: 'channel',
              trigger: demand.trigger ?? 'consultation',
              ...(demand.contact ? { contact: demand.contact } : {}),
              contactKnown,
              asksForContact: asksForContact(channel),
              honeypot: demand.honeypot ?? false,
            }
          : { kind: 'api' },
        ...(conversation?.demandId ? { conversation: { demandId: conversation.demandId, leadId: conversation.leadId, disposition: conversation.disposition } } : {}),
        now,
      },
      brainPorts(db, admitted.workspaceId, pool, conversation?.id, context),
    );

    const auditId = newId('aud', now);
    if (plan.outcome === 'agent_unavailable') {
      const [first, ...rest] = [
        ...executionRecordWrites(db, { executionId, auditId, admitted, demand, context, outcome: { status: 'failed', attempts: plan.attempts.length } }),
        ...attemptWrites(db, executionId, admitted.workspaceId, plan.attempts, now),
      ];
      await db.batch([first!, ...rest]);
      throw new ApiError('agent_unavailable', `No agent or robot for ${demand.domain} answered (${plan.attempts.length} tried), and this execution may not create a lead (it needs leads:write).`, {
        extensions: { execution_id: executionId, attempts: plan.attempts.map((attempt) => ({ provider_id: attempt.providerId, outcome: attempt.outcome })) },
      });
    }
    const conversationId = conversation?.id ?? newId('cnv', now);
    // A channel's new conversation gets a new token; an API conversation is named by its session_id.
    const token = visitor ? (conversation ? visitor.visitorToken! : newVisitorToken()) : undefined;
    // Attribution is first touch: the conversation keeps what its first message reported.
    const attribution = conversation?.attribution ?? demand.attribution ?? null;
    const start: ConversationStart | undefined = conversation
      ? undefined
      : channel
        ? { kind: 'channel', workspaceId: admitted.workspaceId, channelId: channel.id, tokenHash: await sha256Hex(token!), attribution }
        : { kind: 'api', workspaceId: admitted.workspaceId, externalSessionId: context.correlation?.sessionId ?? null };
    const origin: DemandOrigin = {
      workspaceId: admitted.workspaceId,
      executionId,
      domain: demand.domain,
      conversationId,
      actor: { kind: admitted.actorKind, id: admitted.actorId },
      routingPool: pool.kind,
      ...(channel ? { channel: { channelId: channel.id, attribution, ...(demand.contact ? { contact: demand.contact } : {}) } } : {}),
    };
    const writes: BatchItem<'sqlite'>[] = [
      ...conversationTurnWrites(db, {
        conversationId,
        ...(start ? { start } : {}),
        demandId: plan.demand.id,
        leadId: plan.lead?.id ?? conversation?.leadId ?? null,
        executionId,
        ...(plan.storeTurn
          ? {
              ...(demand.text !== undefined ? { visitorText: demand.text } : {}),
              reply: plan.handledBy ? { role: 'agent' as const, text: plan.reply, authorId: plan.handledBy.providerId } : { role: 'system' as const, text: plan.reply },
            }
          : {}),
        now,
      }),
      ...planWrites(db, plan, origin, demand, now),
      ...executionRecordWrites(db, { executionId, auditId, admitted, demand, context, outcome: { status: 'completed', sourceRecord: plan.sourceRecord } }),
      ...attemptWrites(db, executionId, admitted.workspaceId, plan.attempts, now),
    ];

    const envelope = envelopeOf(executionId, auditId, admitted, demand, context, plan);
    const body = await commit(db, writes, envelope, key, idempotency, now);
    return { status: 200, body, replayed: false, rateLimit, plan, ...(token ? { conversation: { token, contactKnown } } : {}) };
  } catch (error) {
    if (key && idempotency) await releaseIdempotencyKey(db, key.id, idempotency.key);
    if (key && isConstraintViolation(error, 'usage_within_quota')) throw quotaExceeded(key.monthlyQuota);
    throw error;
  }
}

interface RecordInput {
  executionId: string;
  auditId: string;
  admitted: Admitted;
  demand: Demand;
  context: ExecutionContext;
  /**
   * `completed`, with the record it produced; or `failed`: no agent answered and it could not
   * become a lead, so only the execution, its audit record and its attempts are kept (the caller's
   * execution id leads somewhere), and nothing is charged.
   */
  outcome: { status: 'completed'; sourceRecord: string } | { status: 'failed'; attempts: number };
}

/** The execution row and its one audit record. */
function executionRecordWrites(db: Database, { executionId, auditId, admitted, demand, context, outcome }: RecordInput): BatchItem<'sqlite'>[] {
  const completed = outcome.status === 'completed';
  const sourceRecord = completed ? outcome.sourceRecord : executionId;
  return [
    db.insert(executions).values({
      id: executionId,
      organizationId: admitted.organizationId,
      workspaceId: admitted.workspaceId,
      keyId: admitted.key?.id ?? null,
      actorKind: admitted.actorKind,
      actorId: admitted.actorId,
      domain: demand.domain,
      status: outcome.status,
      requestId: context.outputRequestId,
      traceId: context.traceId,
      // A failed execution frees its idempotency key, so it does not name it.
      idempotencyKey: completed ? (context.idempotency?.key ?? null) : null,
      projectId: context.correlation?.projectId ?? null,
      userId: context.correlation?.userId ?? null,
      sessionId: context.correlation?.sessionId ?? null,
      grantedScopes: admitted.grantedScopes,
      exactBridge: context.exactBridge ?? null,
      sourceRecord,
      auditId,
      createdAt: context.now,
    }),
    db.insert(auditLog).values({
      id: auditId,
      organizationId: admitted.organizationId,
      workspaceId: admitted.workspaceId,
      actorKind: admitted.actorKind,
      actorId: admitted.actorId,
      keyId: admitted.key?.id ?? null,
      action: `execution.${outcome.status}`,
      targetId: executionId,
      requestId: context.requestId,
      traceId: context.traceId,
      metadata: completed
        ? { domain: demand.domain, source_record: sourceRecord, scopes: admitted.grantedScopes }
        : { domain: demand.domain, reason: 'agent_unavailable', attempts: outcome.attempts },
      createdAt: context.now,
    }),
  ];
}

/** The envelope of PRODUCT.md section 2, step 8. */
function envelopeOf(executionId: string, auditId: string, admitted: Admitted, demand: Demand, context: ExecutionContext, plan: ExecutedPlan): ExecuteResponse {
  const usage: UsageApplication = { meter: EXECUTIONS_METER, quantity: 1, unit: 'execution' };
  // A placeholder keeps `remaining` in its place; the batch fills in the exact value.
  if (admitted.key && admitted.key.monthlyQuota !== null) Object.assign(usage, { limit: admitted.key.monthlyQuota, remaining: 0 });
  return {
    output: {
      request_id: context.outputRequestId,
      trace_id: context.traceId,
      status: 'completed',
      execution_id: executionId,
      domain: demand.domain,
      result: plan.result,
    },
    // The execution's own charge first (the batch fills in its `remaining`), then what a robot reported.
    usage_applications: [usage, ...plan.reportedUsage],
    exact_bridge: {
      contract_id: context.exactBridge?.contract_id ?? '',
      escrow_id: context.exactBridge?.escrow_id ?? '',
      org_id: admitted.organizationId,
      organization_id: admitted.organizationId,
      workspace_id: admitted.workspaceId,
      audit_id: auditId,
      source_layer: 'brain',
      source_record: plan.sourceRecord,
    },
  };
}

/**
 * One batch: the usage charge (an API key's; its CHECK makes the quota exact), every write of
 * the execution, and the stored response when the request is idempotent. The stored response is
 * computed inside the batch, after the charge, so it carries the exact remaining quota;
 * RETURNING hands back the very bytes a replay will send.
 */
async function commit(
  db: Database,
  writes: BatchItem<'sqlite'>[],
  envelope: ExecuteResponse,
  key: KeyContext | null,
  idempotency: ExecutionContext['idempotency'],
  now: number,
): Promise<string> {
  const [first, ...rest] = writes;
  if (!key) {
    await db.batch([first!, ...rest]);
    return JSON.stringify(envelope);
  }
  const period = quotaPeriod(now);
  const template = JSON.stringify(envelope);
  const chargeUsage = db
    .insert(usageMeters)
    .values({ keyId: key.id, meter: EXECUTIONS_METER, period, used: 1, quota: key.monthlyQuota })
    .onConflictDoUpdate({
      target: [usageMeters.keyId, usageMeters.meter, usageMeters.period],
      set: { used: sql`${usageMeters.used} + 1`, quota: key.monthlyQuota },
    })
    .returning({ used: usageMeters.used, quota: usageMeters.quota });
  if (!idempotency) {
    const [charged] = await db.batch([chargeUsage, ...writes]);
    const row = charged[0];
    const usage = envelope.usage_applications[0];
    if (row && row.quota !== null && usage) usage.remaining = row.quota - row.used;
    return JSON.stringify(envelope);
  }
  const remainingAfterCharge = sql`(SELECT ${usageMeters.quota} - ${usageMeters.used} FROM ${usageMeters} WHERE ${usageMeters.keyId} = ${key.id} AND ${usageMeters.meter} = ${EXECUTIONS_METER} AND ${usageMeters.period} = ${period})`;
  const responseBody = key.monthlyQuota === null ? sql`${template}` : sql`json_set(${template}, '$.usage_applications[0].remaining', ${remainingAfterCharge})`;
  const storeResponse = db
    .update(idempotencyRecords)
    .set({ state: 'completed', responseStatus: 200, responseBody: sql`${responseBody}` })
    .where(and(eq(idempotencyRecords.keyId, key.id), eq(idempotencyRecords.idempotencyKey, idempotency.key)))
    .returning({ body: idempotencyRecords.responseBody });
  const results = await db.batch([chargeUsage, ...writes, storeResponse]);
  const stored = results[results.length - 1] as Array<{ body: string | null }>;
  return stored[0]?.body ?? template;
}
