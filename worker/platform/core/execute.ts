/**
 * The one execution pipeline of the platform core (docs/design/execution.md, steps 4 to 8). Every
 * demand runs through it, whoever brings it; a source (core/sources/) says what differs between
 * callers. It reads as its phases:
 *
 *   admit → assess (the brain, reads only) → preflight (commits admission) → agents (the brain's
 *   chain) → decide (the brain) → plan writes → one batch → respond
 *
 * The batch holds the guard on the key's, tenant's and channel's current state, the rate limit,
 * the usage charge and the idempotency claim (each enforced by a constraint, so a refusal writes
 * nothing), then what the brain planned, the conversation's turn, the execution, its audit record
 * and its events. The lead path is one round trip; the agent path adds the preflight.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { type AgentAttempt, type ExecutedPlan, assessDemand, decide, OFFER_WAVES } from '../../brain';
import { type Database, isConstraintViolation } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { attemptWrites } from '../agents';
import { ContractCharge, contractInForce } from '../billing';
import { conversationTurnWrites, type StoredMessage, visitorReadUpTo } from '../conversations';
import { continuationHold, offerAlertInserts } from '../email';
import { eventInserts } from '../events';
import { workspaceRiskPolicy } from '../identity';
import { type DemandOrigin, leadSummarySource, planWrites } from '../leads';
import { expertPool } from '../providers';
import { AgentPhase, recordRefusedAttempts } from './agent-phase';
import { KnowledgePhase, mayAskKnowledge } from './knowledge-phase';
import { gapWrite } from '../knowledge';
import { brainInput, leadOperationsOf } from './brain-input';
import { BatchAdmission, ContractChanged, IdempotentReplay } from './batch-admission';
import { executionEvents } from './events';
import { releaseIdempotencyKey } from './idempotency';
import { envelopeOf, executionAuditId, executionRecordWrites, meterQuantities } from './records';
import { assertContractNamed } from './admission';
import type { Services } from '../../lib/services';
import {
  type Admitted,
  type Demand,
  type ExecutionCall,
  type ExecutionContext,
  type ExecutionOutcome,
  executionContextOf,
  type Source,
} from './sources/source';

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

/** A refusal by the contract's allowance or its escrow's funds (402), which a visitor's message is held past. */
const isEntitlementRefusal = (error: unknown) => error instanceof ApiError && error.code === 'entitlement_exceeded';

const NOTHING_CHARGED = { executions: 0, leads: 0, agent_calls: 0 } as const;

/** How many times an execution tries, when concurrent turns of its conversation race (see lostConversationRace). */
const CONVERSATION_TRIES = 3;

/** What every try of one execution shares. */
interface ExecutionRun {
  admitted: Admitted;
  admission: BatchAdmission;
  executionId: string;
  agents: AgentPhase;
  /** The channel's knowledge, when it is on (asked first). */
  knowledge: KnowledgePhase | undefined;
  /** An earlier try's agent attempts, kept when a later one calls no agent (a person has the conversation now). */
  earlierAttempts: AgentAttempt[];
  /** Whether a committed batch holds the attempts (else a refusal records them by themselves). */
  attemptsRecorded: boolean;
  /**
   * The workspace's allowance refused a visitor's message: it runs again charging nothing, calling
   * no agent, its new lead held until the allowance allows (Source.holdsOverAllowance).
   */
  overAllowance: boolean;
}

/**
 * Runs one execution for any source, and answers with the envelope. When a concurrent turn of
 * the same conversation commits first (a new `session_id` called twice at once, or two turns that
 * would each make the conversation's lead), the loser's batch is refused by a constraint and
 * nothing of it is written; it runs again as a turn of the conversation the winner made, with the
 * same execution id, without a second admission or a second call to any agent.
 */
export async function runExecution(
  services: Services,
  source: Source,
  demand: Demand,
  call: ExecutionCall = {},
): Promise<ExecutionOutcome> {
  const { db } = services;
  const context = executionContextOf(services, call);
  // Admit: who runs it, with which scopes and limits (nothing written yet).
  const admitted = await source.admit(db, context);
  const idempotency = admitted.key ? source.idempotency : undefined;
  const contract = await contractInForce(db, admitted.workspaceId, context.now);
  assertContractNamed(contract, context);
  // Steps 6 and 7 (rate limit, quota, idempotency) are statements of the execution's own batch.
  const admission = new BatchAdmission(
    db,
    {
      key: admitted.key,
      workspaceId: admitted.workspaceId,
      channel: admitted.channelGuard,
      rateLimit: { subject: admitted.rateLimitSubject, perMinute: admitted.rateLimitPerMinute },
    },
    idempotency,
    context.now,
    contract ? new ContractCharge(contract, context.now) : null,
  );
  const run: ExecutionRun = {
    admitted,
    admission,
    executionId: newId('exe', context.now),
    agents: new AgentPhase(db, admission, admitted, context),
    knowledge: source.knowledge?.enabled
      ? // The question's passages decide nothing the batch does not check again: a replica's read.
        new KnowledgePhase(services.reads, admitted.workspaceId, source.knowledge, services.answerModel)
      : undefined,
    earlierAttempts: [],
    attemptsRecorded: false,
    overAllowance: false,
  };
  try {
    for (let tries = 1; ; tries++) {
      try {
        return await executeOnce(db, source, demand, context, run);
      } catch (error) {
        if (tries < CONVERSATION_TRIES && lostConversationRace(error)) continue;
        if (source.holdsOverAllowance && !run.overAllowance && isEntitlementRefusal(error)) {
          run.overAllowance = true;
          continue;
        }
        // The contract in force changed since it was cached: run again under the fresh one.
        if (tries < CONVERSATION_TRIES && error instanceof ContractChanged) {
          const fresh = await contractInForce(db, admitted.workspaceId, context.now);
          assertContractNamed(fresh, context);
          admission.charge = fresh ? new ContractCharge(fresh, context.now) : null;
          continue;
        }
        throw error;
      }
    }
  } catch (error) {
    if (error instanceof IdempotentReplay) {
      return { status: error.status, body: error.body, replayed: true, rateLimit: error.rateLimit };
    }
    // A reservation taken before an agent call is freed, so a retry can run.
    if (admission.reserved && admitted.key && idempotency)
      await releaseIdempotencyKey(db, admitted.key.id, idempotency.key);
    if (!run.attemptsRecorded)
      await recordRefusedAttempts(db, run.executionId, admitted.workspaceId, run.earlierAttempts, context.now);
    throw error;
  }
}

/** One try: the conversation, the brain's phases, and everything written in one batch. */
async function executeOnce(
  db: Database,
  source: Source,
  demand: Demand,
  context: ExecutionContext,
  run: ExecutionRun,
): Promise<ExecutionOutcome> {
  const { now } = context;
  const { admitted, admission, executionId } = run;
  const conversation = await source.findConversation(db, admitted);
  const origin = source.brainOrigin(conversation);
  const input = brainInput(source, demand, context, run, origin, conversation);

  // Assess: risk control and judgement (reads only).
  const assessment = await assessDemand(input, {
    workspacePolicy: () => workspaceRiskPolicy(db, admitted.workspaceId),
    expertPool: (domain) => expertPool(db, domain, admitted.routingPool),
  });
  // The workspace's knowledge first (one read), then agents: admission commits before an agent's call.
  const language = source.language?.(conversation);
  const asked =
    run.knowledge && !run.overAllowance && mayAskKnowledge(input, assessment)
      ? await run.knowledge.ask(input.text!, language ?? 'en')
      : undefined;
  const knowledgeReply = asked && run.knowledge ? run.knowledge.replyOf(asked) : null;
  const callAgents = assessment.tryAgents && !run.overAllowance && !knowledgeReply;
  const agentRun = callAgents ? await run.agents.run(input, conversation?.id) : undefined;
  // Decide: the knowledge's answer, an agent's, the lead path, or no answer at all.
  const plan = decide(
    input,
    assessment,
    agentRun,
    asked ? { reply: knowledgeReply, writtenIn: run.knowledge?.otherLanguageOf(asked, language ?? 'en') } : undefined,
  );
  const attempts = plan.attempts.length > 0 ? plan.attempts : run.earlierAttempts;
  run.earlierAttempts = attempts;

  const auditId = executionAuditId(executionId);
  const records = {
    executionId,
    auditId,
    admitted,
    demand,
    context,
    idempotencyKey: idempotencyKeyOf(source, admitted),
  };
  if (plan.outcome === 'agent_unavailable') {
    const [first, ...rest] = [
      ...executionRecordWrites(db, { ...records, outcome: { status: 'failed', attempts: attempts.length } }),
      ...attemptWrites(db, executionId, admitted.workspaceId, attempts, now),
    ];
    await db.batch([first!, ...rest]);
    run.attemptsRecorded = true;
    throw new ApiError(
      'agent_unavailable',
      `No agent or robot for ${demand.domain} answered (${attempts.length} tried), and this execution may not create ` +
        'a lead (it needs leads:write).',
      {
        extensions: {
          execution_id: executionId,
          attempts: attempts.map((attempt) => ({ provider_id: attempt.providerId, outcome: attempt.outcome })),
        },
      },
    );
  }

  // Plan writes: the conversation's turn, the demand and lead, the records, the attempts, the events.
  const reply = source.reply(plan, language ?? 'en');
  const startedId = conversation ? undefined : newId('cnv', now);
  const newConversation = startedId ? await source.newConversation(admitted, startedId) : null;
  // A one-off API call (no session_id) forms no conversation (docs/design/providers-and-leads.md).
  const conversationId = conversation?.id ?? (newConversation ? startedId! : null);
  const channel = source.channelFacts(conversation);
  const turn = conversationId
    ? conversationTurnWrites(db, {
        conversationId,
        ...(newConversation ? { start: newConversation.start } : {}),
        demandId: plan.demand.id,
        leadId: plan.lead?.id ?? conversation?.leadId ?? null,
        executionId,
        ...(language ? { language } : {}),
        ...(plan.storeTurn ? storedTurn(plan, demand, reply) : {}),
        now,
      })
    : { writes: [], messages: [] };
  // What a new lead is about: a handoff's canned words give way to the visitor's own last question.
  const summaryText = leadSummarySource(demand.text, conversation?.lastVisitorText);
  const demandOrigin: DemandOrigin = {
    workspaceId: admitted.workspaceId,
    executionId,
    domain: demand.domain,
    conversationId,
    actor: { kind: admitted.actorKind, id: admitted.actorId },
    routingPool: admitted.routingPool.kind,
    operations: leadOperationsOf(source, context),
    ...(run.overAllowance ? { heldOverAllowance: true } : {}),
    ...(channel
      ? {
          channel: {
            channelId: channel.channelId,
            attribution: channel.attribution,
            ...(channel.contact ? { contact: channel.contact } : {}),
          },
        }
      : {}),
  };
  const events = executionEvents({
    workspaceId: admitted.workspaceId,
    executionId,
    domain: demand.domain,
    requestId: context.outputRequestId,
    traceId: context.traceId,
    plan,
    ...(channel
      ? { channel: { channelKey: channel.channelKey, trigger: channel.trigger, attribution: channel.attribution } }
      : {}),
    ...(summaryText !== undefined ? { text: summaryText } : {}),
    messages: turn.messages,
    knowledgeAnsweredBefore: conversation?.knowledgeAnswered ?? false,
    now,
  });
  const writes: BatchItem<'sqlite'>[] = [
    ...turn.writes,
    ...planWrites(db, plan, demandOrigin, { ...demand, ...(summaryText !== undefined ? { summaryText } : {}) }, now),
    ...executionRecordWrites(db, { ...records, outcome: { status: 'completed', sourceRecord: plan.sourceRecord } }),
    ...attemptWrites(db, executionId, admitted.workspaceId, attempts, now),
    ...eventInserts(db, events, now),
    // A question the knowledge declined is a gap the owner may fill.
    ...(plan.knowledge && !plan.knowledge.answered && demand.text
      ? [gapWrite(db, { workspaceId: admitted.workspaceId, question: demand.text, conversationId }, now)]
      : []),
    ...newLeadAlerts(db, plan, now),
    ...(conversationId && channel ? visitorReadWrites(db, source, conversationId, turn.messages, context) : []),
  ];

  // One batch, and the answer. Over the allowance nothing is charged now; a held lead is charged when offered.
  const quantities = run.overAllowance ? NOTHING_CHARGED : meterQuantities(plan);
  const envelope = envelopeOf({ executionId, auditId }, admitted, demand, context, plan, reply, {
    charge: admission.charge,
    quantities,
  });
  // The caller's protocol record of the answer (an A2A task), in the same batch.
  const record = context.recordWith
    ? (envelopeJson: SQL) =>
        context.recordWith!(db, { executionId, workspaceId: admitted.workspaceId, envelopeJson, reply, now })
    : undefined;
  const committed = await admission.commit(writes, envelope, quantities, record);
  const contactKnown = origin.kind === 'channel' && origin.contactKnown;
  return {
    status: 200,
    body: committed.body,
    envelope: committed.envelope,
    replayed: false,
    rateLimit: committed.rateLimit,
    plan,
    reply,
    messages: turn.messages,
    ...(conversationId
      ? { conversation: { ...(newConversation?.token ? { token: newConversation.token } : {}), contactKnown } }
      : {}),
  };
}

/** A new lead's email alerts to the experts of its first wave (docs/design/email.md), in its batch. */
function newLeadAlerts(db: Database, plan: ExecutedPlan, now: number) {
  if (plan.lead?.action !== 'create') return [];
  return [offerAlertInserts(db, sql`o.lead_id = ${plan.lead.id} AND o.wave = ${OFFER_WAVES.first}`, now)];
}

/**
 * A visitor sees this turn's messages (theirs and the reply) in the answer: they are read. A
 * visitor who wrote by email does not: the reply waits for the continuation email instead.
 */
function visitorReadWrites(
  db: Database,
  source: Source,
  conversationId: string,
  messages: StoredMessage[],
  context: ExecutionContext,
): BatchItem<'sqlite'>[] {
  const last = messages.at(-1);
  if (!last) return [];
  if (!source.visitorAway) return [visitorReadUpTo(db, conversationId, last.message_id)];
  const reply = messages.find((message) => message.role === 'agent' || message.role === 'provider');
  const visitor = messages.find((message) => message.role === 'visitor');
  return [
    ...(visitor ? [visitorReadUpTo(db, conversationId, visitor.message_id)] : []),
    ...(reply
      ? [continuationHold(db, { conversationId, messageId: reply.message_id }, context.mail, context.now)]
      : []),
  ];
}

/** The turn kept as memory: the message and the answer its caller read (and who gave it). */
function storedTurn(plan: ExecutedPlan, demand: Demand, reply: string) {
  return {
    ...(demand.text !== undefined ? { visitorText: demand.text } : {}),
    // An empty reply (the claimer answers) is not a message.
    ...(reply === ''
      ? {}
      : {
          reply: plan.handledBy
            ? {
                role: 'agent' as const,
                text: reply,
                authorId: plan.handledBy.providerId,
                // A knowledge answer is the brand's help, shown with its sources, not a named agent.
                authorName: plan.handledBy.kind === 'knowledge' ? null : plan.handledBy.name,
                ...(plan.knowledge?.answered ? { sources: plan.knowledge.sources } : {}),
              }
            : { role: 'system' as const, text: reply },
        }),
    ...(plan.knowledge?.answered ? { knowledgeAnswered: true } : {}),
  };
}

const idempotencyKeyOf = (source: Source, admitted: Admitted) =>
  admitted.key ? (source.idempotency?.key ?? null) : null;
