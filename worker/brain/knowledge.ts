/**
 * The workspace's own knowledge as the first agent (docs/design/knowledge.md): a confident answer
 * is the reply on the agent path, with its sources; a declined question goes on as without it.
 * Pure: the platform asks the knowledge, the brain decides with the answer.
 */
import { storesTurn, type Assessment } from './routing';
import type { BrainInput, ExecutedPlan } from './types';

/** A knowledge answer the brain may give: its text, its citations and confidence, and its sources. */
export interface KnowledgeReply {
  answer: string;
  output: Record<string, unknown>;
  sources: Array<{ title: string; url: string | null }>;
  /** Who the visitor reads it from: the channel's brand. */
  brand: string;
}

/** The plan when the knowledge answered: the demand is recorded, no lead is made, nobody else is asked. */
export function planKnowledgePath(input: BrainInput, assessment: Assessment, reply: KnowledgeReply): ExecutedPlan {
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
    handledBy: { kind: 'knowledge', providerId: null, name: reply.brand },
    agentAnswer: { reply: reply.answer, output: reply.output },
    knowledge: { answered: true, sources: reply.sources },
    reportedUsage: [],
    attempts: [],
    storeTurn: storesTurn(input),
    sourceRecord: demand.id,
  };
}
