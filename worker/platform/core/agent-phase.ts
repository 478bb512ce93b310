/**
 * The agent phase of an execution: before the first call to an agent or robot, which has effects
 * outside D1, admission commits (the guard, the rate limit, the quota check and the idempotency
 * reservation) and the candidates and the conversation's memory are read in the same round trip;
 * then the brain runs the chain. What it learns is kept across the execution's tries (see
 * runExecution), so a retry never commits admission twice or calls an agent a second time.
 */
import {
  type AgentAnswer,
  type AgentAttempt,
  type AgentPorts,
  type AgentRun,
  type BrainInput,
  type MemoryTurn,
  runAgents,
} from '../../brain';
import type { Database } from '../../lib/db';
import { logLine } from '../../lib/request-context';
import {
  type AgentSupply,
  agentSupplyOf,
  attemptWrites,
  agentSupplyQuery,
  type CallTarget,
  callProvider,
  conversationMemoryOf,
  conversationMemoryQuery,
  hasAgentSupply,
} from '../agents';
import type { BatchAdmission } from './batch-admission';
import type { Admitted, ExecutionContext } from './sources/source';
import { clock } from '../../lib/clock';

/** One execution's agents: its preflight, its supply and memory, and every answer it got. */
export class AgentPhase {
  private supply: AgentSupply | undefined;
  private memory: MemoryTurn[] | undefined;
  private readonly answers = new Map<string, AgentAnswer>();

  constructor(
    private readonly db: Database,
    private readonly admission: BatchAdmission,
    private readonly admitted: Admitted,
    private readonly context: ExecutionContext,
  ) {}

  /**
   * The agents of the domain, asked in the brain's order until one answers; undefined when the
   * domain has none for this routing pool.
   */
  async run(input: BrainInput, conversationId: string | undefined): Promise<AgentRun | undefined> {
    const supply = this.supply ?? (await this.preflight(input.domain, conversationId));
    if (!supply || supply.candidates.length === 0) return undefined;
    return runAgents(input, supply.candidates, this.ports(supply, conversationId));
  }

  /** Commits admission, and reads the candidates (and memory, with `memory:read`) in the same round trip. */
  private async preflight(domain: string, conversationId: string | undefined): Promise<AgentSupply | undefined> {
    const { db, admitted, context } = this;
    const pool = admitted.routingPool;
    if (!(await hasAgentSupply(db, domain, pool))) return undefined;
    const withMemory = admitted.grantedScopes.includes('memory:read') && conversationId !== undefined;
    const [rows, memoryRows] = await this.admission.preflight([
      agentSupplyQuery(db, domain, pool, context.now),
      ...(withMemory ? [conversationMemoryQuery(db, conversationId)] : []),
    ]);
    this.supply = agentSupplyOf(rows as Parameters<typeof agentSupplyOf>[0], context.secretsKey, context.now);
    if (withMemory) this.memory = conversationMemoryOf(memoryRows as Parameters<typeof conversationMemoryOf>[0]);
    return this.supply;
  }

  private ports(supply: AgentSupply, conversationId: string | undefined): AgentPorts {
    const { db, context } = this;
    return {
      now: () => clock.now(),
      conversationMemory: async () =>
        this.memory ?? (conversationId ? conversationMemoryOf(await conversationMemoryQuery(db, conversationId)) : []),
      invokeAgent: async (providerId, call, withinMs) => {
        const known = this.answers.get(providerId);
        if (known) return known;
        let target: CallTarget;
        try {
          target = await supply.target(providerId);
        } catch (error) {
          // Its secrets cannot be read (SECRETS_KEY unset or changed): skip it; the next one or an expert answers.
          logLine({
            level: 'error',
            message: 'provider_secrets_unreadable',
            request_id: context.requestId,
            provider_id: providerId,
            error: error instanceof Error ? error.name : 'unknown',
          });
          return {
            ok: false,
            outcome: 'refused',
            httpStatus: null,
            durationMs: 0,
            error: 'The platform cannot read this provider’s signing secret (SECRETS_KEY).',
          };
        }
        // Its own timeout, cut to what is left of the chain's deadline.
        const timeoutMs = Math.min(target.timeoutMs, Math.max(1, withinMs));
        const answer = await callProvider({ ...target, timeoutMs }, call, context.egress);
        this.answers.set(providerId, answer);
        return answer;
      },
    };
  }
}

/**
 * The agents were called, but the execution's batch was refused (the funds ran out meanwhile, the
 * key was revoked): the calls still happened, so they are recorded, with their effect on each
 * agent's health, though no execution is.
 */
export async function recordRefusedAttempts(
  db: Database,
  executionId: string,
  workspaceId: string,
  attempts: AgentAttempt[],
  now: number,
): Promise<void> {
  if (attempts.length === 0) return;
  const [first, ...rest] = attemptWrites(db, executionId, workspaceId, attempts, now);
  try {
    await db.batch([first!, ...rest]);
  } catch (error) {
    logLine({
      level: 'error',
      message: 'agent attempts of a refused execution not recorded',
      execution_id: executionId,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}
