/** What the brain and the lead's writes read of one execution: the brain's input, and the lead's operations. */
import { type BrainInput, ROUTING_DEFAULTS } from '../../brain';
import type { ConversationState } from '../conversations';
import type { LeadOperations } from '../leads';
import type { Admitted, Demand, ExecutionContext, Source } from './sources/source';

/** The brain's view of this message. */
export function brainInput(
  source: Source,
  demand: Demand,
  context: ExecutionContext,
  run: { admitted: Admitted; executionId: string },
  origin: BrainInput['origin'],
  conversation: ConversationState | undefined,
): BrainInput {
  const { admitted, executionId } = run;
  return {
    executionId,
    requestId: context.outputRequestId,
    traceId: context.traceId,
    workspaceId: admitted.workspaceId,
    domain: demand.domain,
    text: demand.text,
    structuredInput: demand.structuredInput,
    attachments: demand.attachments,
    grantedScopes: admitted.grantedScopes,
    origin,
    ...(conversation?.demandId
      ? {
          conversation: {
            demandId: conversation.demandId,
            leadId: conversation.leadId,
            disposition: conversation.disposition,
            personHasIt: conversation.leadStatus !== null && conversation.leadStatus !== 'open',
          },
        }
      : {}),
    offerFirst: leadOperationsOf(source, context).routing.offer_first,
    now: context.now,
    agentChainMs: context.limits.agentChainMs,
  };
}

/** The lead's operations: the source's (a channel's routing, the visitor's language), else the defaults. */
export function leadOperationsOf(source: Source, context: ExecutionContext): LeadOperations {
  return {
    routing: source.leadOperations?.routing ?? ROUTING_DEFAULTS,
    language: source.leadOperations?.language ?? null,
    region: source.leadOperations?.region ?? null,
    consoleOrigin: context.mail.linkOrigin,
    minuteMs: context.limits.leadMinuteMs,
  };
}
