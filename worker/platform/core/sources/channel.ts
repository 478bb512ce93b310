/**
 * Widget and hosted-inbox intake: a thin adapter over the execution core. It applies the
 * channel's own rules (the honeypot, the contact fields it requires), runs the visitor's message
 * through the same pipeline as /api/execute, and says what the widget should show next.
 * Channel existence and the origin check run before, in the route.
 */
import type { Database } from '../../../lib/db';
import { ApiError, type FieldError } from '../../../lib/errors';
import { runExecution, type ExecutionContext } from '../execute';
import type { IntakeRequest, IntakeResponse } from '../../channels';
import { asksForContact, widgetConfigOf, type ActiveChannel, type ChannelRow } from '../../channels';

export interface IntakeCommand {
  channel: ActiveChannel;
  request: IntakeRequest;
  /** The client's IP address; only a hash of it is kept, as the rate-limit subject. */
  clientIp: string;
  /** The page origin the channel admitted (null: the console's own pages), re-checked in the execution batch. */
  origin: string | null;
  context: Omit<ExecutionContext, 'outputRequestId' | 'idempotency' | 'correlation' | 'exactBridge'>;
}

function missingContactFields(channel: ChannelRow, request: IntakeRequest): FieldError[] {
  const rules = widgetConfigOf(channel).lead_capture;
  return (['name', 'email', 'phone'] as const)
    .filter((field) => rules[field] === 'required' && !request.contact?.[field])
    .map((field) => ({ pointer: `/contact/${field}`, detail: `${field} is required by this channel.` }));
}

/** Runs one visitor message (or handoff, or contact form) and answers what to show next. */
export async function runIntake(db: Database, command: IntakeCommand): Promise<IntakeResponse> {
  const { channel, request } = command;
  if (request.trigger === 'lead_capture' && !request.website) {
    const missing = missingContactFields(channel, request);
    if (missing.length > 0)
      throw new ApiError('validation_failed', 'Some contact details are required.', { errors: missing });
  }

  const outcome = await runExecution(
    db,
    {
      kind: 'channel',
      channel,
      clientIp: command.clientIp,
      origin: command.origin,
      ...(request.session_id ? { visitorToken: request.session_id } : {}),
    },
    {
      domain: channel.domain,
      text: request.message?.text,
      trigger: request.trigger,
      ...(request.contact ? { contact: request.contact } : {}),
      ...(request.attribution ? { attribution: request.attribution } : {}),
      // A filled honeypot is a bot: risk control rejects it (stored for audit, offered to no one),
      // and the answer looks like any other, so it learns nothing.
      honeypot: Boolean(request.website),
    },
    { ...command.context, outputRequestId: command.context.requestId },
  );
  const plan = outcome.plan!;
  const next: IntakeResponse['next'] =
    request.trigger === 'lead_capture'
      ? 'done'
      : plan.path === 'lead' &&
          plan.disposition === 'routed' &&
          asksForContact(channel) &&
          !outcome.conversation!.contactKnown
        ? 'collect_contact'
        : 'continue';
  return {
    session_id: outcome.conversation!.token,
    reply: plan.reply,
    demand_id: plan.demand.id,
    reference: plan.result.reference as string,
    ...(plan.lead ? { lead_id: plan.lead.id } : {}),
    ...(plan.handledBy ? { answered_by: { kind: plan.handledBy.kind, name: plan.handledBy.name } } : {}),
    next,
  };
}
