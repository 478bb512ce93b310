/**
 * Assessment and the lead path (docs/design/providers-and-leads.md). Every message is first assessed (risk
 * control, then judgement, and whether agents may answer it). On the lead path, a routed demand
 * becomes its conversation's one lead for the active experts who cover its domain (and topic),
 * if the execution may write leads (`leads:write`; channels always may). A held or rejected
 * demand is offered to no one. What the visitor or caller reads is the source's to word.
 */
import { newId } from '../lib/ids';
import { MESSAGE_MAX_CHARS } from '../vocabulary';
import { judgeTopic, judgeUrgency } from './judgement';
import { assessRisk, stricter } from './risk';
import type {
  AgentAttempt,
  AssessPorts,
  BrainInput,
  Disposition,
  ExecutedPlan,
  PlannedDemand,
  PlannedLead,
  Urgency,
} from './types';

/** A short reference a visitor can quote, derived from the demand id. */
export function demandReference(demandId: string): string {
  return `D-${demandId.slice(-6).toUpperCase()}`;
}

/** The longest message a channel takes; API text may be longer (the request schema bounds it). */
const CHANNEL_TEXT_LIMIT = MESSAGE_MAX_CHARS;
const API_TEXT_LIMIT = 100_000;

/**
 * Whether this message goes to agents first: the scope allows it, the visitor did not ask for a
 * person (a handoff or contact form goes to experts), and no person has claimed the conversation's
 * lead. An open lead does not silence the agents: after a decline they still answer what they can.
 */
export function mayCallAgents(input: BrainInput): boolean {
  if (!input.grantedScopes.includes('agents:invoke')) return false;
  if (input.origin.kind === 'channel' && input.origin.trigger !== 'consultation') return false;
  return !input.conversation?.personHasIt;
}

/** What risk control and judgement decide about a message, whichever path answers it. */
export interface Assessment {
  /** Whether the domain's agents are asked first: routed, allowed, and nobody has the conversation yet. */
  tryAgents: boolean;
  disposition: Disposition;
  reasons: string[];
  topic: string;
  urgency: Urgency;
  matchedProviders: number;
  demand: PlannedDemand;
}

/** Risk control, then judgement: the same for every message, before routing. */
export async function assessDemand(input: BrainInput, ports: AssessPorts): Promise<Assessment> {
  const { origin, conversation } = input;
  const channel = origin.kind === 'channel' ? origin : undefined;
  const [policy, pool] = await Promise.all([ports.workspacePolicy(), ports.expertPool(input.domain)]);
  const verdict = assessRisk({
    text: input.text,
    hasStructuredInput: input.structuredInput !== undefined,
    messageOptional: channel?.trigger === 'lead_capture',
    honeypot: channel?.honeypot ?? false,
    blockedTerms: policy.blockedTerms,
    maxLength: channel ? CHANNEL_TEXT_LIMIT : API_TEXT_LIMIT,
  });
  const topic = judgeTopic(input.text, Object.keys(pool.byTopic));
  const disposition = stricter(verdict.disposition, conversation?.disposition ?? null);
  return {
    tryAgents: disposition === 'routed' && mayCallAgents(input),
    disposition,
    reasons: verdict.reasons,
    topic,
    urgency: judgeUrgency(input.text, channel?.trigger),
    // The first wave: at most `offerFirst` of the available experts who match.
    matchedProviders: Math.min(
      input.offerFirst,
      pool.anyTopic + (topic === 'general' ? 0 : (pool.byTopic[topic] ?? 0)),
    ),
    demand: conversation
      ? { action: 'continue', id: conversation.demandId }
      : { action: 'create', id: newId('dem', input.now) },
  };
}

/** Plans one message on the lead path: the demand, the lead and the reply, after any failed agents. */
export function planLeadPath(input: BrainInput, assessment: Assessment, attempts: AgentAttempt[]): ExecutedPlan {
  const { origin, conversation } = input;
  const channel = origin.kind === 'channel' ? origin : undefined;
  const { disposition, reasons, topic, urgency, matchedProviders, demand } = assessment;
  let lead: PlannedLead | undefined;
  if (disposition === 'routed' && input.grantedScopes.includes('leads:write')) {
    lead = conversation?.leadId
      ? { action: 'update', id: conversation.leadId }
      : { action: 'create', id: newId('lead', input.now) };
  }
  return {
    outcome: 'executed',
    path: 'lead',
    disposition,
    reasons,
    topic,
    urgency,
    matchedProviders,
    demand,
    ...(lead ? { lead } : {}),
    trigger: channel?.trigger ?? 'consultation',
    // Asked while nobody has the lead and no contact was left: when it is made, on a hand-off, and
    // on each later question (its reply says the lead waits, and the form is how it can reach them).
    askForContact: Boolean(
      channel?.asksForContact &&
        !channel.contactKnown &&
        disposition === 'routed' &&
        !conversation?.personHasIt &&
        (lead !== undefined || channel.trigger === 'handoff'),
    ),
    toClaimer: Boolean(conversation?.personHasIt),
    reportedUsage: [],
    attempts,
    storeTurn: storesTurn(input),
    sourceRecord: lead?.id ?? demand.id,
  };
}

/**
 * Memory (docs/design/providers-and-leads.md): a turn is kept as conversation memory with `memory:write` (channels
 * hold it).
 */
export function storesTurn(input: BrainInput): boolean {
  return input.grantedScopes.includes('memory:write');
}
