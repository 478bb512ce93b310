/**
 * Routing on the lead path: the demand is recorded for experts, and a channel's handoff or
 * contact form makes (or updates) the conversation's one lead.
 */
import { newId } from '../lib/ids';
import type { BrainInput, ExecutedPlan, IntakeTrigger, PlannedLead, VisitorContact } from './types';

/** A short reference a visitor can quote, derived from the demand id. */
export function demandReference(demandId: string): string {
  return `D-${demandId.slice(-6).toUpperCase()}`;
}

function visitorReply(trigger: IntakeTrigger, reference: string, contact: VisitorContact | undefined): string {
  if (trigger === 'lead_capture') {
    const greeting = contact?.name ? `Thanks, ${contact.name}!` : 'Thanks!';
    return `${greeting} An expert will follow up on request ${reference}.`;
  }
  if (trigger === 'handoff') return `Got it: we are bringing in an expert for request ${reference}.`;
  return `Thanks, your request ${reference} is in. An expert will look at it.`;
}

/** Records the demand; through a channel, a handoff or a contact form also plans the conversation's lead. */
export function routeDemand(input: BrainInput): ExecutedPlan {
  const demandId = newId('dem', input.now);
  const channel = input.channel;
  if (!channel) {
    const reply = `Your request was recorded as ${demandId}. An expert will pick it up.`;
    return { outcome: 'executed', demandId, reply, result: { demand_id: demandId, demand_status: 'open', reply }, sourceRecord: demandId };
  }
  let lead: PlannedLead | undefined;
  if (channel.trigger !== 'consultation') {
    lead = channel.existingLeadId ? { action: 'update_contact', id: channel.existingLeadId } : { action: 'create', id: newId('lead', input.now) };
  }
  const reply = visitorReply(channel.trigger, demandReference(demandId), channel.contact);
  return {
    outcome: 'executed',
    demandId,
    ...(lead ? { lead } : {}),
    reply,
    result: { demand_id: demandId, demand_status: 'open', ...(lead ? { lead_id: lead.id } : {}), reply },
    sourceRecord: lead?.id ?? demandId,
  };
}
