/**
 * The one execution pipeline of the platform core (PRODUCT.md section 2, steps 4 to 8). Every
 * demand runs through it, whoever brings it: an API key (POST /api/execute) or a channel
 * (widget and hosted-inbox intake). It admits the demand, runs the brain, then writes everything
 * in one D1 batch: the guard on the key's, tenant's and channel's current state, the rate limit,
 * the usage charge and the idempotency claim (each enforced by a constraint, so a refusal writes
 * nothing), then what the brain planned, the conversation's turn, the execution, its audit record
 * and its events. The lead path is one round trip. Routes are thin adapters over it.
 */
import type { BatchItem } from 'drizzle-orm/batch';
import {
  planExecution,
  type AgentAnswer,
  type AgentAttempt,
  type BrainPorts,
  type ExecutedPlan,
  type MemoryTurn,
  type VisitorContact,
} from '../../brain';
import { sha256Hex } from '../../lib/crypto';
import type { EgressPolicy } from '../../lib/egress';
import { insertRows, isConstraintViolation, schema, type Database } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { callProvider, type CallTarget } from '../agents';
import {
  agentSupplyOf,
  agentSupplyQuery,
  attemptWrites,
  conversationMemoryOf,
  conversationMemoryQuery,
  hasAgentSupply,
  type AgentSupply,
} from '../agents';
import type { IntakeTrigger } from '../channels';
import type { Attribution } from '../attribution';
import { asksForContact, type ActiveChannel } from '../channels';
import {
  conversationTurnWrites,
  findApiConversation,
  findChannelConversation,
  newVisitorToken,
  type ConversationStart,
  type ConversationState,
} from '../conversations';
import type { KeyContext } from '../identity';
import { EXECUTIONS_METER } from '../vocabulary';
import { workspaceRiskPolicy } from '../identity';
import { planWrites, type DemandOrigin } from '../leads';
import { expertPool, type RoutingPool } from '../providers';
import { eventInserts } from '../events';
import { admitChannel, admitKey, type KeyPrincipal } from './admission';
import { BatchAdmission, IdempotentReplay } from './batch-admission';
import { executionEvents } from './events';
import { releaseIdempotencyKey } from './idempotency';
import type { RateLimitOutcome } from '../../lib/rate-limit';
import type { ExecuteResponse, UsageApplication } from './schemas';

const { executions, auditLog } = schema;

/** A channel bringing a visitor's message: the channel, and the client it came from. */
export interface ChannelPrincipal {
  kind: 'channel';
  channel: ActiveChannel;
  /** The client's IP address; only a hash of it is kept, as the rate-limit subject. */
  clientIp: string;
  /** The visitor's token, when continuing a conversation. */
  visitorToken?: string;
  /** The page origin the channel admitted, which the batch's guard re-checks; null for the console's own pages. */
  origin: string | null;
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
  /** The agent chain's total deadline (`agentChainMs`, 20 s by default) is the brain's; see BrainInput. */
  limits: { defaultRateLimitPerMinute: number; intakeRateLimitPerMinute: number; agentChainMs: number };
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
    return {
      ...admitted,
      key: null,
      rateLimitSubject: `intake:${principal.channel.id}:${clientHash}`,
      rateLimitPerMinute: context.limits.intakeRateLimitPerMinute,
    };
  }
  const admitted = await admitKey(db, principal, demand.domain, demand.requiredScopes ?? [], context.now);
  return {
    ...admitted,
    rateLimitSubject: admitted.key.id,
    rateLimitPerMinute: admitted.key.rateLimitPerMinute ?? context.limits.defaultRateLimitPerMinute,
  };
}

/**
 * What one execution learned from agents, kept across its tries (see runExecution): the supply
 * its preflight read, and each agent's answer, so that a retry never commits admission twice or
 * calls an agent a second time.
 */
interface AgentMemo {
  supply?: AgentSupply;
  memory?: MemoryTurn[];
  answers: Map<string, AgentAnswer>;
}

/**
 * The brain's reads over D1 for this workspace and routing pool, and its calls to agents and
 * robots. Before the first call, which has effects outside D1, admission is committed (the guard,
 * the rate limit, the quota check and the idempotency reservation), and the candidates and the
 * conversation's memory are read in the same round trip.
 */
function brainPorts(
  db: Database,
  admission: BatchAdmission,
  pool: RoutingPool,
  conversationId: string | undefined,
  readsMemory: boolean,
  context: ExecutionContext,
  memo: AgentMemo,
): BrainPorts {
  return {
    workspacePolicy: () => workspaceRiskPolicy(db, admission.workspaceId),
    expertPool: (domain) => expertPool(db, domain, pool),
    async agentCandidates(domain) {
      if (memo.supply) return memo.supply.candidates;
      if (!(await hasAgentSupply(db, domain, pool))) return [];
      const withMemory = readsMemory && conversationId !== undefined;
      const [rows, memoryRows] = await admission.preflight([
        agentSupplyQuery(db, domain, pool, context.now),
        ...(withMemory ? [conversationMemoryQuery(db, conversationId)] : []),
      ]);
      memo.supply = agentSupplyOf(rows as Parameters<typeof agentSupplyOf>[0], context.secretsKey, context.now);
      if (withMemory) memo.memory = conversationMemoryOf(memoryRows as Parameters<typeof conversationMemoryOf>[0]);
      return memo.supply.candidates;
    },
    now: () => Date.now(),
    async invokeAgent(providerId, call, withinMs) {
      const known = memo.answers.get(providerId);
      if (known) return known;
      let target: CallTarget;
      try {
        target = await memo.supply!.target(providerId);
      } catch (error) {
        // Its secrets cannot be read (SECRETS_KEY unset or changed): skip it, and let the next one or an expert answer.
        console.error(
          JSON.stringify({
            level: 'error',
            message: 'provider secrets unreadable',
            provider_id: providerId,
            error: error instanceof Error ? error.name : 'unknown',
          }),
        );
        return {
          ok: false,
          outcome: 'refused',
          httpStatus: null,
          durationMs: 0,
          error: 'The platform cannot read this provider’s signing secret (SECRETS_KEY).',
        };
      }
      // Its own timeout, cut to what is left of the chain's deadline.
      const answer = await callProvider(
        { ...target, timeoutMs: Math.min(target.timeoutMs, Math.max(1, withinMs)) },
        call,
        context.egress,
      );
      memo.answers.set(providerId, answer);
      return answer;
    },
    conversationMemory: async () =>
      memo.memory ?? (conversationId ? conversationMemoryOf(await conversationMemoryQuery(db, conversationId)) : []),
  };
}

/**
 * Whether a batch lost a race for a conversation: another request started the same API session
 * (`session_id`), or made the conversation's demand or its one lead first. The constraints say
 * so; the execution then runs again as a turn of what the other request made.
 */
function lostConversationRace(error: unknown): boolean {
  return ['conversations.workspace_id', 'leads.conversation_id', 'demands.conversation_id'].some((constraint) =>
    isConstraintViolation(error, constraint),
  );
}

/** How many times an execution tries, when concurrent turns of its conversation race (see lostConversationRace). */
const CONVERSATION_TRIES = 3;

/** The conversation this message continues: a channel's by the visitor's token, an API caller's by its session_id. */
async function existingConversation(
  db: Database,
  principal: Principal,
  admitted: Admitted,
  context: ExecutionContext,
): Promise<ConversationState | undefined> {
  if (principal.kind === 'channel')
    return principal.visitorToken
      ? findChannelConversation(db, principal.channel.id, principal.visitorToken)
      : undefined;
  const sessionId = context.correlation?.sessionId;
  return sessionId ? findApiConversation(db, admitted.workspaceId, sessionId) : undefined;
}

/**
 * Runs one execution for any principal, and answers with the envelope. When a concurrent turn of
 * the same conversation commits first (a new `session_id` called twice at once, or two turns that
 * would each make the conversation's lead), the loser's batch is refused by a constraint and
 * nothing of it is written; it runs again as a turn of the conversation the winner made, with the
 * same execution id, without a second admission or a second call to any agent.
 */
export async function runExecution(
  db: Database,
  principal: Principal,
  demand: Demand,
  context: ExecutionContext,
): Promise<ExecutionOutcome> {
  const { now } = context;
  const admitted = await admit(db, principal, demand, context);
  const key = admitted.key;
  const idempotency = key ? context.idempotency : undefined;
  // Steps 6 and 7 (rate limit, quota, idempotency) are statements of the execution's own batch.
  const admission = new BatchAdmission(
    db,
    {
      key,
      workspaceId: admitted.workspaceId,
      channel:
        principal.kind === 'channel'
          ? { id: principal.channel.id, channelKey: principal.channel.channelKey, origin: principal.origin }
          : null,
      rateLimit: { subject: admitted.rateLimitSubject, perMinute: admitted.rateLimitPerMinute },
    },
    idempotency,
    now,
  );
  const run: ExecutionRun = {
    admitted,
    admission,
    executionId: newId('exe', now),
    memo: { answers: new Map() },
    earlierAttempts: [],
  };
  try {
    for (let tries = 1; ; tries++) {
      try {
        return await executeOnce(db, principal, demand, context, run);
      } catch (error) {
        if (tries < CONVERSATION_TRIES && lostConversationRace(error)) continue;
        throw error;
      }
    }
  } catch (error) {
    if (error instanceof IdempotentReplay)
      return { status: error.status, body: error.body, replayed: true, rateLimit: error.rateLimit };
    // A reservation taken before an agent call is freed, so a retry can run.
    if (admission.reserved && key && idempotency) await releaseIdempotencyKey(db, key.id, idempotency.key);
    throw error;
  }
}

/** What every try of one execution shares. */
interface ExecutionRun {
  admitted: Admitted;
  admission: BatchAdmission;
  executionId: string;
  memo: AgentMemo;
  /**
   * The agent attempts of an earlier try, kept when a later one no longer calls agents (a person has the conversation
   * now).
   */
  earlierAttempts: AgentAttempt[];
}

/** One try: read the conversation, plan, and write everything in one batch. */
async function executeOnce(
  db: Database,
  principal: Principal,
  demand: Demand,
  context: ExecutionContext,
  run: ExecutionRun,
): Promise<ExecutionOutcome> {
  const { now } = context;
  const { admitted, admission, executionId } = run;
  const conversation = await existingConversation(db, principal, admitted, context);
  const visitor = principal.kind === 'channel' ? principal : undefined;
  const channel = visitor?.channel;
  const pool: RoutingPool =
    channel?.routingPool === 'workspace'
      ? { kind: 'workspace', workspaceId: channel.workspaceId }
      : { kind: 'platform' };
  const contactKnown = Boolean(conversation?.contactKnown || demand.contact?.email || demand.contact?.phone);
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
      ...(conversation?.demandId
        ? {
            conversation: {
              demandId: conversation.demandId,
              leadId: conversation.leadId,
              disposition: conversation.disposition,
            },
          }
        : {}),
      now,
      agentChainMs: context.limits.agentChainMs,
    },
    brainPorts(
      db,
      admission,
      pool,
      conversation?.id,
      admitted.grantedScopes.includes('memory:read'),
      context,
      run.memo,
    ),
  );
  const attempts = plan.attempts.length > 0 ? plan.attempts : run.earlierAttempts;
  run.earlierAttempts = attempts;

  const auditId = newId('aud', now);
  if (plan.outcome === 'agent_unavailable') {
    const [first, ...rest] = [
      ...executionRecordWrites(db, {
        executionId,
        auditId,
        admitted,
        demand,
        context,
        outcome: { status: 'failed', attempts: attempts.length },
      }),
      ...attemptWrites(db, executionId, admitted.workspaceId, attempts, now),
    ];
    await db.batch([first!, ...rest]);
    throw new ApiError(
      'agent_unavailable',
      `No agent or robot for ${demand.domain} answered (${attempts.length} tried), and this execution may not create ` +
        `a lead (it needs leads:write).`,
      {
        extensions: {
          execution_id: executionId,
          attempts: attempts.map((attempt) => ({ provider_id: attempt.providerId, outcome: attempt.outcome })),
        },
      },
    );
  }
  // A channel's visitor, or an API caller's session_id, forms a conversation (PRODUCT.md section
  // 5); a one-off API call without session_id is a demand of its own, with nothing to continue.
  const formsConversation = Boolean(conversation || channel || context.correlation?.sessionId);
  const conversationId = conversation?.id ?? (formsConversation ? newId('cnv', now) : null);
  // A channel's new conversation gets a new token; an API conversation is named by its session_id.
  const token = visitor ? (conversation ? visitor.visitorToken! : newVisitorToken()) : undefined;
  // Attribution is first touch: the conversation keeps what its first message reported.
  const attribution = conversation?.attribution ?? demand.attribution ?? null;
  const start: ConversationStart | undefined =
    conversation || !conversationId
      ? undefined
      : channel
        ? {
            kind: 'channel',
            workspaceId: admitted.workspaceId,
            channelId: channel.id,
            tokenHash: await sha256Hex(token!),
            attribution,
          }
        : { kind: 'api', workspaceId: admitted.workspaceId, externalSessionId: context.correlation?.sessionId ?? null };
  const origin: DemandOrigin = {
    workspaceId: admitted.workspaceId,
    executionId,
    domain: demand.domain,
    conversationId,
    actor: { kind: admitted.actorKind, id: admitted.actorId },
    routingPool: pool.kind,
    ...(channel
      ? { channel: { channelId: channel.id, attribution, ...(demand.contact ? { contact: demand.contact } : {}) } }
      : {}),
  };
  const turn = conversationId
    ? conversationTurnWrites(db, {
        conversationId,
        ...(start ? { start } : {}),
        demandId: plan.demand.id,
        leadId: plan.lead?.id ?? conversation?.leadId ?? null,
        executionId,
        ...(plan.storeTurn
          ? {
              ...(demand.text !== undefined ? { visitorText: demand.text } : {}),
              reply: plan.handledBy
                ? { role: 'agent' as const, text: plan.reply, authorId: plan.handledBy.providerId }
                : { role: 'system' as const, text: plan.reply },
            }
          : {}),
        now,
      })
    : { writes: [], messages: [] };
  const events = executionEvents({
    workspaceId: admitted.workspaceId,
    executionId,
    domain: demand.domain,
    requestId: context.outputRequestId,
    traceId: context.traceId,
    plan,
    ...(channel
      ? { channel: { channelKey: channel.channelKey, trigger: demand.trigger ?? 'consultation', attribution } }
      : {}),
    ...(demand.text !== undefined ? { text: demand.text } : {}),
    messages: turn.messages,
    now,
  });
  const writes: BatchItem<'sqlite'>[] = [
    ...turn.writes,
    ...planWrites(db, plan, origin, demand, now),
    ...executionRecordWrites(db, {
      executionId,
      auditId,
      admitted,
      demand,
      context,
      outcome: { status: 'completed', sourceRecord: plan.sourceRecord },
    }),
    ...attemptWrites(db, executionId, admitted.workspaceId, attempts, now),
    ...eventInserts(db, events, now),
  ];

  const envelope = envelopeOf(executionId, auditId, admitted, demand, context, plan);
  const { body, rateLimit } = await admission.commit(writes, envelope);
  return {
    status: 200,
    body,
    replayed: false,
    rateLimit,
    plan,
    ...(token ? { conversation: { token, contactKnown } } : {}),
  };
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
function executionRecordWrites(
  db: Database,
  { executionId, auditId, admitted, demand, context, outcome }: RecordInput,
): BatchItem<'sqlite'>[] {
  const completed = outcome.status === 'completed';
  const sourceRecord = completed ? outcome.sourceRecord : executionId;
  return [
    insertRows(db, executions, [
      {
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
      },
    ]),
    insertRows(db, auditLog, [
      {
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
      },
    ]),
  ];
}

/** The envelope of PRODUCT.md section 2, step 8. */
function envelopeOf(
  executionId: string,
  auditId: string,
  admitted: Admitted,
  demand: Demand,
  context: ExecutionContext,
  plan: ExecutedPlan,
): ExecuteResponse {
  const usage: UsageApplication = { meter: EXECUTIONS_METER, quantity: 1, unit: 'execution', source: 'platform' };
  // A placeholder keeps `remaining` in its place; the batch fills in the exact value.
  if (admitted.key && admitted.key.monthlyQuota !== null)
    Object.assign(usage, { limit: admitted.key.monthlyQuota, remaining: 0 });
  return {
    output: {
      request_id: context.outputRequestId,
      trace_id: context.traceId,
      status: 'completed',
      execution_id: executionId,
      domain: demand.domain,
      result: plan.result,
    },
    // The execution's own charge first (the batch fills in its `remaining`), then what a robot
    // reported about itself, marked as such.
    usage_applications: [
      usage,
      ...plan.reportedUsage.map((line) => ({
        ...line,
        source: 'provider' as const,
        provider_id: plan.handledBy!.providerId,
      })),
    ],
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
