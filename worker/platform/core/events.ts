/**
 * The events an execution writes to the outbox (docs/design/webhooks.md), in its own batch:
 * `execution.completed` always; for a channel's visitor, `intake.received`; each message the
 * turn stores, `conversation.message_created`; and a new lead, `lead.created`. Each carries the
 * public shape of its record: never the visitor's contact details.
 */
import { demandReference, type ExecutedPlan, type HandledBy } from '../../brain';
import type { StoredMessage } from '../conversations';
import { leadCreatedData } from '../leads';
import { type NewEvent, newEvent } from '../events';
import type { Attribution } from '../attribution';
import type { IntakeTrigger } from '../../brain';

export interface ExecutionFacts {
  workspaceId: string;
  executionId: string;
  domain: string;
  requestId: string;
  traceId: string;
  plan: ExecutedPlan;
  /** The channel that brought the message, and what the visitor did. */
  channel?: { channelKey: string; trigger: IntakeTrigger; attribution: Attribution | null };
  text?: string;
  messages: StoredMessage[];
  /** Whether the workspace's knowledge had answered in the conversation before this turn. */
  knowledgeAnsweredBefore?: boolean;
  now: number;
}

/** Who answered, on the wire: a provider by id and name, the workspace's knowledge by its kind alone. */
export function handledByOf(handledBy: HandledBy) {
  return handledBy.kind === 'knowledge'
    ? { kind: 'knowledge' as const }
    : { kind: handledBy.kind, provider_id: handledBy.providerId, name: handledBy.name };
}

/** The events of one completed execution. */
export function executionEvents(facts: ExecutionFacts): NewEvent[] {
  const { workspaceId, plan } = facts;
  const at = new Date(facts.now).toISOString();
  const handledBy = plan.handledBy;
  const list: NewEvent[] = [
    newEvent('execution.completed', workspaceId, {
      execution_id: facts.executionId,
      domain: facts.domain,
      status: 'completed',
      request_id: facts.requestId,
      trace_id: facts.traceId,
      source_record: plan.sourceRecord,
      demand_id: plan.demand.id,
      disposition: plan.disposition,
      path: plan.path,
      ...(handledBy ? { handled_by: handledByOf(handledBy) } : {}),
      ...(plan.knowledge ? { knowledge: plan.knowledge.answered ? ('answered' as const) : ('declined' as const) } : {}),
      ...(plan.knowledge?.answered && !facts.knowledgeAnsweredBefore ? { knowledge_first: true } : {}),
      ...(plan.lead ? { lead_id: plan.lead.id } : {}),
      created_at: at,
    }),
  ];
  if (facts.channel) {
    list.push(
      newEvent('intake.received', workspaceId, {
        channel_key: facts.channel.channelKey,
        demand_id: plan.demand.id,
        reference: demandReference(plan.demand.id),
        trigger: facts.channel.trigger,
        disposition: plan.disposition,
        reasons: plan.reasons,
        text: facts.text ?? null,
        attribution: facts.channel.attribution,
        ...(plan.lead ? { lead_id: plan.lead.id } : {}),
        created_at: at,
      }),
    );
  }
  for (const message of facts.messages)
    list.push(newEvent('conversation.message_created', workspaceId, { ...message }));
  if (plan.lead?.action === 'create') {
    const data = leadCreatedData(plan, {
      domain: facts.domain,
      channelKey: facts.channel?.channelKey ?? null,
      summaryText: facts.text,
      executionId: facts.executionId,
      now: facts.now,
    });
    list.push(
      newEvent('lead.created', workspaceId, facts.knowledgeAnsweredBefore ? { ...data, after_knowledge: true } : data),
    );
  }
  return list;
}
