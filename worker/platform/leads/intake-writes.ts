/**
 * The writes of an execution's intake (docs/design/providers-and-leads.md): a demand records what a
 * conversation asks; a lead is a routed demand offered to experts. Contact details live only on
 * the lead row, and leave the platform only towards its claimer.
 */
import { eq, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { ExecutedPlan } from '../../brain';
import { demandReference, OFFER_WAVES } from '../../brain';
import { insertRows, schema, type Database } from '../../lib/db';
import { newId } from '../../lib/ids';
import { withoutContactDetails } from '../../lib/redact';
import type { Attribution } from '../attribution';
import type { EventData } from '../events';
import type { RoutingSettings } from '../../brain';
import { URGENCIES, URGENCY_RANK } from '../../vocabulary';
import { LANGUAGES, visitorMessages } from '../../lib/i18n';
import { firstWaveOffers } from './offers';

const { demands, leads, leadEvents } = schema;

/** The contact details a visitor left (a contact form): they live on the lead only. */
export interface VisitorContact {
  name?: string;
  email?: string;
  phone?: string;
}

/** Where a demand came from, and what the platform core knows of it beyond the brain's plan. */
export interface DemandOrigin {
  workspaceId: string;
  executionId: string;
  domain: string;
  /** Null for a one-off API call (no session_id), which forms no conversation. */
  conversationId: string | null;
  actor: { kind: 'channel' | 'api_key' | 'admin'; id: string };
  routingPool: 'platform' | 'workspace';
  channel?: { channelId: number; attribution: Attribution | null; contact?: VisitorContact };
  /** Offer waves and timers (the channel's routing, or the defaults), and what ranks the offers. */
  operations: LeadOperations;
  /** The workspace's allowance is used up: a new lead is held, offered to nobody until the sweep finds room. */
  heldOverAllowance?: boolean;
}

/** What a new lead's offers and timers follow (docs/design/lead-operations.md). */
export interface LeadOperations {
  routing: RoutingSettings;
  /** The visitor's language, primary subtag in lower case (`de`), and country in upper case (`DE`). */
  language: string | null;
  region: string | null;
  /** The console origin of the request: links in the emails sent about the lead later. */
  consoleOrigin: string;
  /** How long a minute of its timers lasts (60,000 ms; local tests shorten it). */
  minuteMs: number;
}

/** What a held lead's history says, and the owner reads. */
export const HELD_NOTE =
  "Held: this month's allowance is used up. It is offered to experts as soon as the allowance or the balance allows.";

/** The content of the message that opens (or continues) a demand. */
export interface DemandContent {
  text?: string;
  structuredInput?: Record<string, unknown>;
  attachments?: unknown[];
  /** What a new lead is about, when not `text` (a handoff's canned words: the visitor's own last question). */
  summaryText?: string;
}

/** The words the widget sends for "Talk to a person", in every language it speaks. */
const HANDOFF_WORDS = new Set(LANGUAGES.map((language) => visitorMessages(language).handoff_words()));

/**
 * What a lead is about, as experts first read it: the message that made it, unless that is only
 * the widget's "I would like to talk to an expert."; then the visitor's own last question.
 */
export function leadSummarySource(text: string | undefined, lastVisitorText: string | null | undefined) {
  if (text !== undefined && HANDOFF_WORDS.has(text.trim()) && lastVisitorText) return lastVisitorText;
  return text;
}

/**
 * The start of the first message, for lists and summaries, without any address or phone number
 * typed into it: experts read it before they claim.
 */
export const summaryOf = (text: string | undefined) =>
  withoutContactDetails(text ?? '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 140);

/** The lead's urgency as its rank (vocabulary's URGENCY_RANK), for "urgency only rises" inside the UPDATE. */
const storedUrgencyRank = sql.join(
  [
    sql`CASE ${leads.urgency}`,
    ...URGENCIES.map((urgency) => sql`WHEN ${urgency} THEN ${URGENCY_RANK[urgency]}`),
    sql`END`,
  ],
  sql` `,
);

/**
 * The rows the brain's plan becomes: the demand (new, or untouched when the conversation
 * continues), and the lead (new, or updated with a stronger trigger, contact details and a
 * higher urgency), with the lead's history.
 */
export function planWrites(
  db: Database,
  plan: ExecutedPlan,
  origin: DemandOrigin,
  content: DemandContent,
  now: number,
): BatchItem<'sqlite'>[] {
  const writes: BatchItem<'sqlite'>[] = [];
  const channel = origin.channel;
  if (plan.demand.action === 'create') {
    writes.push(
      insertRows(db, demands, [
        {
          id: plan.demand.id,
          workspaceId: origin.workspaceId,
          executionId: origin.executionId,
          channelId: channel?.channelId ?? null,
          conversationId: origin.conversationId,
          trigger: channel ? plan.trigger : null,
          attribution: channel?.attribution ?? null,
          domain: origin.domain,
          text: content.text ?? null,
          structuredInput: content.structuredInput ?? null,
          attachments: content.attachments ?? null,
          status: 'open',
          disposition: plan.disposition,
          reasons: plan.reasons,
          topic: plan.topic,
          urgency: plan.urgency,
          createdAt: now,
        },
      ]),
    );
  }
  const lead = plan.lead;
  if (!lead) return writes;
  const contact = channel?.contact;
  const contactFields = {
    ...(contact?.name ? { contactName: contact.name } : {}),
    ...(contact?.email ? { contactEmail: contact.email } : {}),
    ...(contact?.phone ? { contactPhone: contact.phone } : {}),
  };
  if (lead.action === 'create') {
    const { routing, minuteMs } = origin.operations;
    const held = origin.heldOverAllowance === true;
    writes.push(
      insertRows(db, leads, [
        {
          id: lead.id,
          workspaceId: origin.workspaceId,
          demandId: plan.demand.id,
          conversationId: origin.conversationId,
          channelId: channel?.channelId ?? null,
          status: 'open',
          trigger: plan.trigger,
          contactName: contact?.name ?? null,
          contactEmail: contact?.email ?? null,
          contactPhone: contact?.phone ?? null,
          attribution: channel?.attribution ?? null,
          domain: origin.domain,
          topic: plan.topic,
          urgency: plan.urgency,
          routingPool: origin.routingPool,
          summary: summaryOf(content.summaryText ?? content.text),
          // A held lead has no wave and no timers yet: its release (held-leads.ts) starts them.
          wave: held ? OFFER_WAVES.held : OFFER_WAVES.first,
          heldAt: held ? now : null,
          widenAt: held ? null : now + routing.offer_widen_minutes * minuteMs,
          escalateAt: held ? null : now + routing.escalate_minutes * minuteMs,
          claimSlaMs: routing.claim_sla_minutes * minuteMs,
          language: origin.operations.language,
          region: origin.operations.region,
          consoleOrigin: origin.operations.consoleOrigin,
          updatedAt: now,
          createdAt: now,
        },
      ]),
      // The first wave: the best `offer_first` experts (offers.ts).
      ...(held
        ? []
        : [
            firstWaveOffers(
              db,
              lead.id,
              {
                workspaceId: origin.workspaceId,
                domain: origin.domain,
                topic: plan.topic,
                routingPool: origin.routingPool,
                language: origin.operations.language,
                region: origin.operations.region,
              },
              routing.offer_first,
              now,
            ),
          ]),
      insertRows(db, leadEvents, [
        {
          id: newId('lev', now),
          leadId: lead.id,
          fromStatus: null,
          toStatus: 'open',
          actorKind: origin.actor.kind,
          actorId: origin.actor.id,
          note: held
            ? HELD_NOTE
            : routing.offer_first === 1
              ? 'Offered to the best matching expert.'
              : `Offered to the ${routing.offer_first} best matching experts.`,
          createdAt: now,
        },
      ]),
    );
    return writes;
  }
  // An existing lead: contact details fill in, a handoff or contact form outranks a plain message,
  // and urgency only rises.
  writes.push(
    db
      .update(leads)
      .set({
        ...contactFields,
        ...(plan.trigger !== 'consultation'
          ? { trigger: sql`CASE WHEN ${leads.trigger} = 'lead_capture' THEN 'lead_capture' ELSE ${plan.trigger} END` }
          : {}),
        // Concurrent turns may each raise it: decided in the statement, against the stored value.
        urgency: sql`CASE WHEN ${storedUrgencyRank} < ${URGENCY_RANK[plan.urgency]}
          THEN ${plan.urgency} ELSE ${leads.urgency} END`,
        updatedAt: now,
      })
      .where(eq(leads.id, lead.id)),
  );
  return writes;
}

/** A new lead as `lead.created` reports it: its public shape, without contact details. */
export function leadCreatedData(
  plan: ExecutedPlan,
  facts: { domain: string; channelKey: string | null; summaryText?: string; executionId: string; now: number },
): EventData<'lead.created'> {
  return {
    lead_id: plan.lead!.id,
    demand_id: plan.demand.id,
    execution_id: facts.executionId,
    reference: demandReference(plan.demand.id),
    status: 'open' as const,
    trigger: plan.trigger,
    domain: facts.domain,
    topic: plan.topic,
    urgency: plan.urgency,
    channel_key: facts.channelKey,
    summary: summaryOf(facts.summaryText),
    created_at: new Date(facts.now).toISOString(),
  };
}
