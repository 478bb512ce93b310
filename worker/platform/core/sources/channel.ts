/**
 * The channel visitor source (widget and hosted-inbox intake): admission by the channel (docs/design/execution.md
 * section 4), a rate limit per channel and client, a guard on the channel's state and the page
 * origin, a conversation keyed by the visitor's token (a new one gets a new token), first-touch
 * attribution, and replies worded for a person. runIntake applies the channel's own rules (the
 * honeypot, the contact fields it requires) and says what the widget shows next. Channel existence
 * and the origin check run before, in the route (gateway/intake.ts).
 */
import { demandReference } from '../../../brain';
import { sha256Hex } from '../../../lib/crypto';
import { chooseLanguage } from '../../../lib/i18n';
import type { Services } from '../../../lib/services';
import { ApiError, type FieldError } from '../../../lib/errors';
import {
  type ActiveChannel,
  asksForContact,
  type ChannelRow,
  type IntakeRequest,
  type IntakeResponse,
  knowledgeOf,
  routingOf,
  widgetConfigOf,
} from '../../channels';
import { findChannelConversation, newVisitorToken } from '../../conversations';
import { admitChannel } from '../admission';
import { runExecution } from '../execute';
import { visitorReply } from '../replies';
import type { Source } from './source';

export interface IntakeCommand {
  channel: ActiveChannel;
  request: IntakeRequest;
  /** The client's IP address; only a hash of it is kept, as the rate-limit subject. */
  clientIp: string;
  /** The page origin the channel admitted (null: the console's own pages), re-checked in the execution batch. */
  origin: string | null;
  /** The visitor's language and country when the request says (`Accept-Language`, `CF-IPCountry`), for offers. */
  visitor?: { acceptLanguage?: string; country?: string };
}

/** A channel's visitor as a source of demand. */
export function channelSource(command: IntakeCommand): Source {
  const { channel, request } = command;
  const visitorToken = request.session_id;
  const contactGiven = Boolean(request.contact?.email || request.contact?.phone);
  return {
    async admit(db, context) {
      const admitted = await admitChannel(db, channel);
      const clientHash = (await sha256Hex(command.clientIp)).slice(0, 24);
      return {
        ...admitted,
        key: null,
        rateLimitSubject: `intake:${channel.id}:${clientHash}`,
        rateLimitPerMinute: context.limits.intakeRateLimitPerMinute,
        channelGuard: { id: channel.id, channelKey: channel.channelKey, origin: command.origin },
        routingPool: { kind: channel.routingPool, workspaceId: channel.workspaceId },
      };
    },
    findConversation: (db) =>
      visitorToken ? findChannelConversation(db, channel.id, visitorToken) : Promise.resolve(undefined),
    async newConversation(admitted) {
      const token = newVisitorToken();
      const start = {
        kind: 'channel' as const,
        workspaceId: admitted.workspaceId,
        channelId: channel.id,
        tokenHash: await sha256Hex(token),
        attribution: request.attribution ?? null,
      };
      return { start, token };
    },
    brainOrigin: (conversation) => ({
      kind: 'channel',
      trigger: request.trigger,
      contactKnown: Boolean(conversation?.contactKnown || contactGiven),
      asksForContact: asksForContact(channel),
      // A filled honeypot is a bot: risk control rejects it (stored for audit, offered to no one),
      // and the answer looks like any other, so it learns nothing.
      honeypot: Boolean(request.website),
    }),
    channelFacts: (conversation) => ({
      channelId: channel.id,
      channelKey: channel.channelKey,
      trigger: request.trigger,
      // Attribution is first touch: the conversation keeps what its first message reported.
      attribution: conversation?.attribution ?? request.attribution ?? null,
      ...(request.contact ? { contact: request.contact } : {}),
    }),
    // Intake's `language` first, then the conversation's, the channel's setting, the browser's.
    language: (conversation) =>
      chooseLanguage({
        requested: request.language,
        conversation: conversation?.language,
        setting: channel.language,
        acceptLanguage: command.visitor?.acceptLanguage,
      }),
    reply: visitorReply,
    holdsOverAllowance: true,
    knowledge: {
      enabled: knowledgeOf(channel).enabled,
      minConfidence: knowledgeOf(channel).min_confidence,
      brand: widgetConfigOf(channel).brand.name,
    },
    leadOperations: {
      routing: routingOf(channel),
      language: primaryLanguage(request.language ?? command.visitor?.acceptLanguage),
      region: countryOf(command.visitor?.country),
    },
  };
}

/** `de-DE,de;q=0.9` or `de-DE` → `de`; anything else → null. */
export function primaryLanguage(value: string | undefined): string | null {
  const match = value?.trim().match(/^([A-Za-z]{2,3})(?:[-_][A-Za-z0-9]+)*(?:[,;]|$)/);
  return match ? match[1]!.toLowerCase() : null;
}

/** A two-letter country code (Cloudflare's `XX` and `T1` mean unknown and Tor). */
function countryOf(value: string | undefined): string | null {
  const code = value?.trim().toUpperCase();
  return code && /^[A-Z]{2}$/.test(code) && code !== 'XX' && code !== 'T1' ? code : null;
}

function missingContactFields(channel: ChannelRow, request: IntakeRequest): FieldError[] {
  const rules = widgetConfigOf(channel).lead_capture;
  return (['name', 'email', 'phone'] as const)
    .filter((field) => rules[field] === 'required' && !request.contact?.[field])
    .map((field) => ({ pointer: `/contact/${field}`, detail: `${field} is required by this channel.` }));
}

/** Runs one visitor message (or handoff, or contact form) and answers what to show next. */
export async function runIntake(services: Services, command: IntakeCommand): Promise<IntakeResponse> {
  const { channel, request } = command;
  if (request.trigger === 'lead_capture' && !request.website) {
    const missing = missingContactFields(channel, request);
    if (missing.length > 0) {
      throw new ApiError('validation_failed', 'Some contact details are required.', { errors: missing });
    }
  }
  const outcome = await runExecution(services, channelSource(command), {
    domain: channel.domain,
    text: request.message?.text,
  });
  const plan = outcome.plan!;
  const next: IntakeResponse['next'] =
    request.trigger === 'lead_capture' ? 'done' : plan.askForContact ? 'collect_contact' : 'continue';
  return {
    // A new conversation's new token, or the one the visitor sent.
    session_id: outcome.conversation?.token ?? request.session_id!,
    reply: outcome.reply!,
    demand_id: plan.demand.id,
    reference: demandReference(plan.demand.id),
    ...(plan.lead ? { lead_id: plan.lead.id } : {}),
    ...(plan.handledBy ? { answered_by: { kind: plan.handledBy.kind, name: plan.handledBy.name } } : {}),
    next,
    messages: (outcome.messages ?? []).map(({ conversation_id: _, ...message }) => message),
  };
}
