/**
 * The brain core (docs/design/providers-and-leads.md). It takes a
 * plain description of a demand, reads what it needs through its ports, and returns decisions.
 * It never sees Hono, drizzle or HTTP, and it writes no copy: the platform core runs its two
 * phases around admission (core/execute.ts) and turns the plan into rows and words.
 *
 * 1. `assessDemand`: risk control, judgement, and whether agents may answer (reads only).
 * 2. `runAgents`: the domain's agents and robots in a stable order, until one answers (calls).
 * 3. `decide`: the agent path, the lead path, or no answer at all.
 */
import { planAgentPath, type AgentRun } from './agents';
import { type KnowledgeReply, planKnowledgePath } from './knowledge';
import { planLeadPath, type Assessment } from './routing';
import type { BrainInput, BrainPlan } from './types';

export type * from './types';
export { BREAKER_OPEN_MS, BREAKER_THRESHOLD, countsAsFailure, runAgents, type AgentRun } from './agents';
export { assessDemand, demandReference, type Assessment } from './routing';
export type { KnowledgeReply } from './knowledge';
export { type CatalogDomain, chooseDomain, type DomainChoice } from './domain-choice';
export {
  CLAIM_BOUNDS,
  OFFER_RANKING,
  OFFER_WAVES,
  type OfferCriterion,
  ROUTING_DEFAULTS,
  type RoutingSettings,
  settingBounds,
} from './lead-policy';

/**
 * The plan of one execution (docs/design/providers-and-leads.md), after assessment, the workspace's
 * knowledge and any agents: the knowledge's confident answer; else an agent's answer; else the
 * lead path for experts; but with agents tried, all failed, and no `leads:write`, there is no
 * answer to give. A question the knowledge declined goes on exactly as without it, marked so.
 */
export function decide(
  input: BrainInput,
  assessment: Assessment,
  run?: AgentRun,
  knowledge?: { reply: KnowledgeReply | null; writtenIn?: string | undefined },
): BrainPlan {
  if (knowledge?.reply) return planKnowledgePath(input, assessment, knowledge.reply);
  const plan = decideWithoutKnowledge(input, assessment, run);
  if (!knowledge || plan.outcome !== 'executed') return plan;
  return {
    ...plan,
    knowledge: { answered: false, ...(knowledge.writtenIn ? { writtenIn: knowledge.writtenIn } : {}) },
  };
}

function decideWithoutKnowledge(input: BrainInput, assessment: Assessment, run?: AgentRun): BrainPlan {
  if (run?.answered) return planAgentPath(input, assessment, { answered: run.answered, attempts: run.attempts });
  const attempts = run?.attempts ?? [];
  if (run && !input.grantedScopes.includes('leads:write')) return { outcome: 'agent_unavailable', attempts };
  return planLeadPath(input, assessment, attempts);
}
