/**
 * Assessment and the lead path (PRODUCT.md section 6). Every message is first assessed (risk
 * control, then judgement). On the lead path, a routed demand becomes its conversation's one
 * lead for the active experts who cover its domain (and topic), if the execution may write leads
 * (`leads:write`; channels always may). A held or rejected demand is offered to no one. The
 * reply tells the visitor or caller what happens next.
 */
import { newId } from '../lib/ids';
import { MESSAGE_MAX_CHARS } from '../platform/vocabulary';
import { judgeTopic, judgeUrgency } from './judgement';
import { assessRisk, stricter } from './risk';
import type {
  AgentAttempt,
  BrainInput,
  BrainPorts,
  Disposition,
  ExecutedPlan,
  IntakeTrigger,
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

interface ReplyFacts {
  disposition: Disposition;
  reference: string;
  demandId: string;
  topic: string;
  matchedProviders: number;
  lead: boolean;
  trigger?: IntakeTrigger;
  /** Whether to ask the visitor for a way to reach them. */
  askForContact: boolean;
}

function inTopic(topic: string): string {
  return topic === 'general' ? '' : ` in ${topic}`;
}

/** What a widget visitor reads. */
function visitorReply(facts: ReplyFacts): string {
  const { reference, topic } = facts;
  if (facts.disposition === 'rejected') return 'Thanks, we got your message.';
  if (facts.disposition === 'held')
    return `Thanks, your message is in (request ${reference}). Our team checks some messages before passing them on.`;
  if (facts.trigger === 'lead_capture') {
    // No name in the reply: it is stored in the transcript, which every expert in scope reads
    // before anyone claims the lead, and contact details reach the claimer only.
    return `Thanks! An expert${inTopic(topic)} will follow up on request ${reference}.`;
  }
  const who = facts.matchedProviders > 0 ? `an expert${inTopic(topic)}` : 'the right expert';
  const ask = facts.askForContact ? ' Leave your email so they can reach you.' : '';
  if (facts.trigger === 'handoff') return `Got it: we are bringing in ${who} for request ${reference}.${ask}`;
  const next =
    facts.matchedProviders > 0
      ? `An expert${inTopic(topic)} will follow up.`
      : 'We are finding the right expert to follow up.';
  return `Thanks, your request ${reference} is in. ${next}${ask}`;
}

/** What an API caller reads. */
function callerReply(facts: ReplyFacts): string {
  const { demandId, reference } = facts;
  if (facts.disposition === 'rejected')
    return `Your request was recorded as ${demandId} (${reference}) but not passed on.`;
  if (facts.disposition === 'held')
    return `Your request was recorded as ${demandId} (${reference}) and is held for review.`;
  if (!facts.lead) return `Your request was recorded as ${demandId} (${reference}).`;
  const experts = facts.matchedProviders === 1 ? '1 expert' : `${facts.matchedProviders} experts`;
  return facts.matchedProviders > 0
    ? `Your request was recorded as ${demandId} (${reference}) and offered to ${experts}${inTopic(facts.topic)}; one ` +
        `will pick it up.`
    : `Your request was recorded as ${demandId} (${reference}); it waits for an expert who covers ` +
        `${facts.topic === 'general' ? 'this domain' : facts.topic}.`;
}

/** What risk control and judgement decide about a message, whichever path answers it. */
export interface Assessment {
  disposition: Disposition;
  reasons: string[];
  topic: string;
  urgency: Urgency;
  matchedProviders: number;
  demand: PlannedDemand;
}

/** Risk control, then judgement: the same for every message, before routing. */
export async function assessDemand(input: BrainInput, ports: BrainPorts): Promise<Assessment> {
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
  return {
    disposition: stricter(verdict.disposition, conversation?.disposition ?? null),
    reasons: verdict.reasons,
    topic,
    urgency: judgeUrgency(input.text, channel?.trigger),
    matchedProviders: pool.anyTopic + (topic === 'general' ? 0 : (pool.byTopic[topic] ?? 0)),
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
  // A lead keeps the strongest trigger it has seen: a contact form over a handoff over a message.
  const trigger: IntakeTrigger = channel?.trigger ?? 'consultation';
  const reference = demandReference(demand.id);
  const facts: ReplyFacts = {
    disposition,
    reference,
    demandId: demand.id,
    topic,
    matchedProviders,
    lead: lead !== undefined,
    trigger: channel?.trigger,
    askForContact: Boolean(channel?.asksForContact && !channel.contactKnown && disposition === 'routed'),
  };
  const reply = channel ? visitorReply(facts) : callerReply(facts);
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
    trigger,
    reply,
    reportedUsage: [],
    attempts,
    storeTurn: storesTurn(input),
    result: {
      demand_id: demand.id,
      reference,
      ...(lead ? { lead_id: lead.id } : {}),
      disposition,
      reasons,
      topic,
      urgency,
      matched_providers: matchedProviders,
      reply,
    },
    sourceRecord: lead?.id ?? demand.id,
  };
}

/** Memory (PRODUCT.md section 6): a turn is kept as conversation memory with `memory:write` (channels hold it). */
export function storesTurn(input: BrainInput): boolean {
  return input.grantedScopes.includes('memory:write');
}
