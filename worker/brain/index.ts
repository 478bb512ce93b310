/**
 * The brain core (SPEC.md: execution, routing, judgement, risk control, memory). It takes a
 * plain description of a demand, reads what it needs through its ports, and returns a plan.
 * It never sees Hono, drizzle or HTTP: the platform core turns the plan into rows, in one
 * D1 batch with the execution, its audit record and its usage charge.
 */
import { mayCallAgents, planAgentPath, runAgents } from './agents';
import { assessDemand, planLeadPath } from './routing';
import type { AgentAttempt, BrainInput, BrainPlan, BrainPorts } from './types';

export type * from './types';
export { BREAKER_OPEN_MS, BREAKER_THRESHOLD, countsAsFailure } from './agents';
export { demandReference } from './routing';

/**
 * Plans one execution (PRODUCT.md section 6): risk control and judgement, then routing. Agents
 * first when the scopes allow and some accept the domain; experts otherwise, or when every agent
 * failed. Without `leads:write` and with every agent failed, there is no answer to give.
 * The domain has been admitted by the platform core (it is in the catalog).
 */
export async function planExecution(input: BrainInput, ports: BrainPorts): Promise<BrainPlan> {
  const assessment = await assessDemand(input, ports);
  let attempts: AgentAttempt[] = [];
  if (assessment.disposition === 'routed' && mayCallAgents(input)) {
    const candidates = await ports.agentCandidates(input.domain);
    if (candidates.length > 0) {
      const run = await runAgents(input, candidates, ports);
      if (run.answered) return planAgentPath(input, assessment, { answered: run.answered, attempts: run.attempts });
      attempts = run.attempts;
      if (!input.grantedScopes.includes('leads:write')) return { outcome: 'agent_unavailable', attempts };
    }
  }
  return planLeadPath(input, assessment, attempts);
}
