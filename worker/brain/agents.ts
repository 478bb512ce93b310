/**
 * The agent path (docs/design/providers-and-leads.md and docs/design/agents-and-robots.md): with `agents:invoke`, the
 * active agents and
 * robots that accept the domain are called one after another, in a stable order, until one
 * gives a valid answer. A provider that failed too often in a row is skipped for a while (the
 * circuit breaker). Every call, and every skip, is an attempt recorded on the execution. The
 * whole chain ends at its deadline (BrainInput.agentChainMs), after which no agent is called.
 */
import { storesTurn, type Assessment } from './routing';
import type {
  AgentAnswer,
  AgentAttempt,
  AgentCall,
  AgentCandidate,
  BrainInput,
  AgentPorts,
  ExecutedPlan,
  MemoryTurn,
} from './types';

/** The circuit breaker: this many failures in a row open it… */
export const BREAKER_THRESHOLD = 5;
/** …and an open breaker skips the provider for this long. */
export const BREAKER_OPEN_MS = 60_000;

/** The stable order: highest priority first, then the fewest failures in the last hour, then the id. */
export function orderCandidates(candidates: AgentCandidate[]): AgentCandidate[] {
  return [...candidates].sort(
    (a, b) =>
      b.priority - a.priority ||
      a.failuresLastHour - b.failuresLastHour ||
      (a.providerId < b.providerId ? -1 : a.providerId > b.providerId ? 1 : 0),
  );
}

/** Whether an attempt counts against the breaker. A decline proves the agent is up; a skip is no call. */
export function countsAsFailure(outcome: AgentAttempt['outcome']): boolean {
  return outcome !== 'success' && outcome !== 'declined' && outcome !== 'circuit_open';
}

export interface AgentRun {
  answered?: { candidate: AgentCandidate; answer: Extract<AgentAnswer, { ok: true }> };
  attempts: AgentAttempt[];
}

/** The request every agent of this execution receives. */
function agentCall(input: BrainInput, memory: MemoryTurn[] | undefined): AgentCall {
  return {
    execution_id: input.executionId,
    domain: input.domain,
    ...(input.text !== undefined ? { text: input.text } : {}),
    ...(input.structuredInput !== undefined ? { structured_input: input.structuredInput } : {}),
    ...(input.attachments !== undefined ? { attachments: input.attachments } : {}),
    request_id: input.requestId,
    trace_id: input.traceId,
    workspace_id: input.workspaceId,
    ...(memory ? { memory } : {}),
  };
}

/** Calls the candidates in order until one answers; a widget visitor needs a text reply to read. */
export async function runAgents(input: BrainInput, candidates: AgentCandidate[], ports: AgentPorts): Promise<AgentRun> {
  const memory =
    input.conversation && input.grantedScopes.includes('memory:read') ? await ports.conversationMemory() : undefined;
  const call = agentCall(input, memory);
  const attempts: AgentAttempt[] = [];
  // The chain as a whole has a deadline: a caller never waits for every agent's full timeout in turn.
  const deadline = ports.now() + input.agentChainMs;
  for (const candidate of orderCandidates(candidates)) {
    if (candidate.openUntil > input.now) {
      attempts.push({
        providerId: candidate.providerId,
        outcome: 'circuit_open',
        httpStatus: null,
        durationMs: 0,
        error: 'Skipped: too many failures in a row.',
      });
      continue;
    }
    const remaining = deadline - ports.now();
    if (remaining <= 0) break;
    const answer = await ports.invokeAgent(candidate.providerId, call, remaining);
    if (answer.ok && input.origin.kind === 'channel' && !answer.reply) {
      attempts.push({
        providerId: candidate.providerId,
        outcome: 'invalid_answer',
        httpStatus: answer.httpStatus,
        durationMs: answer.durationMs,
        error: 'The answer has no text for the visitor.',
      });
      continue;
    }
    if (answer.ok) {
      attempts.push({
        providerId: candidate.providerId,
        outcome: 'success',
        httpStatus: answer.httpStatus,
        durationMs: answer.durationMs,
        error: null,
      });
      return { answered: { candidate, answer }, attempts };
    }
    attempts.push({
      providerId: candidate.providerId,
      outcome: answer.outcome,
      httpStatus: answer.httpStatus,
      durationMs: answer.durationMs,
      error: answer.error,
    });
  }
  return { attempts };
}

/** The plan when an agent or robot answered: the demand is recorded, no lead is made. */
export function planAgentPath(input: BrainInput, assessment: Assessment, run: Required<AgentRun>): ExecutedPlan {
  const { candidate, answer } = run.answered;
  const { demand, topic, urgency } = assessment;
  return {
    outcome: 'executed',
    path: 'agent',
    disposition: 'routed',
    reasons: [],
    topic,
    urgency,
    matchedProviders: assessment.matchedProviders,
    demand,
    trigger: input.origin.kind === 'channel' ? input.origin.trigger : 'consultation',
    askForContact: false,
    toClaimer: false,
    handledBy: { kind: candidate.kind, providerId: candidate.providerId, name: candidate.name },
    agentAnswer: { reply: answer.reply, output: answer.output },
    reportedUsage: answer.usage,
    attempts: run.attempts,
    storeTurn: storesTurn(input),
    sourceRecord: demand.id,
  };
}
