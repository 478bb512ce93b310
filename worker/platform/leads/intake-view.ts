/**
 * The site owner's view of a channel's intake: recent demands and their leads, without contact details.
 */
import { desc, eq } from 'drizzle-orm';
import { demandReference } from '../../brain';
import { schema, type Database } from '../../lib/db';
import type { Attribution } from '../attribution';

const { demands, leads, conversations, providers } = schema;

export interface IntakeEntry {
  conversation_id: string;
  demand_id: string;
  reference: string;
  trigger: string | null;
  text: string | null;
  disposition: 'routed' | 'held' | 'rejected';
  topic: string;
  attribution: Attribution | null;
  created_at: string;
  lead: {
    lead_id: string;
    status: string;
    claimed_by: string | null;
    contact_fields: string[];
    /** 0: held; 1: offered to the best few experts; 2: to every matching expert. */
    wave: number;
    /** Held past the month's allowance: offered to nobody yet (held-leads.ts). */
    held: boolean;
    /** Seconds from the lead to its first claim, and to its first contact (null: not yet). */
    seconds_to_first_claim: number | null;
    seconds_to_first_contact: number | null;
  } | null;
}

const secondsSince = (from: number, to: number | null) => (to === null ? null : Math.round((to - from) / 1000));

/**
 * Recent conversations of a channel, newest first, each with its demand and its lead's status and
 * claimer. Contact details stay out: only the claimer sees them; here we say which were given.
 */
export async function listChannelIntake(db: Database, channelId: number, limit: number): Promise<IntakeEntry[]> {
  const rows = await db
    .select({ conversationId: conversations.id, demand: demands, lead: leads, claimer: providers.displayName })
    .from(conversations)
    .innerJoin(demands, eq(demands.id, conversations.demandId))
    .leftJoin(leads, eq(leads.id, conversations.leadId))
    .leftJoin(providers, eq(providers.id, leads.claimedBy))
    .where(eq(conversations.channelId, channelId))
    .orderBy(desc(conversations.id))
    .limit(limit);
  return rows.map(({ conversationId, demand, lead, claimer }) => ({
    conversation_id: conversationId,
    demand_id: demand.id,
    reference: demandReference(demand.id),
    trigger: lead?.trigger ?? demand.trigger,
    text: demand.text,
    disposition: demand.disposition,
    topic: demand.topic,
    attribution: demand.attribution,
    created_at: new Date(demand.createdAt).toISOString(),
    lead: lead
      ? {
          lead_id: lead.id,
          status: lead.status,
          claimed_by: lead.claimedBy ? (claimer ?? 'An expert') : null,
          contact_fields: [
            lead.contactName && 'name',
            lead.contactEmail && 'email',
            lead.contactPhone && 'phone',
          ].filter((field): field is string => Boolean(field)),
          wave: lead.wave,
          held: lead.heldAt !== null,
          seconds_to_first_claim: secondsSince(lead.createdAt, lead.firstClaimedAt),
          seconds_to_first_contact: secondsSince(lead.createdAt, lead.firstContactedAt),
        }
      : null,
  }));
}
