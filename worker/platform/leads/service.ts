/**
 * Demands and leads. A demand records what was asked; a lead is a demand with a way to reach
 * the visitor, offered to experts. Contact details live only on the lead row, and leave the
 * platform only towards the expert who claims it.
 */
import { desc, eq } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { PlannedLead, VisitorContact } from '../../brain';
import type { Attribution, IntakeTrigger } from '../channels/schemas';
import { schema, type Database } from '../../lib/db';

const { demands, leads } = schema;

/** Where a demand came from: an API key's execution, or a channel's conversation. */
export interface DemandOrigin {
  workspaceId: string;
  executionId: string;
  domain: string;
  channel?: { channelId: number; conversationId: string; trigger: IntakeTrigger; attribution: Attribution | null; contact?: VisitorContact };
}

/** The row of a new demand. */
export function demandInsert(
  db: Database,
  demandId: string,
  origin: DemandOrigin,
  content: { text?: string; structuredInput?: Record<string, unknown>; attachments?: unknown[] },
  now: number,
) {
  return db.insert(demands).values({
    id: demandId,
    workspaceId: origin.workspaceId,
    executionId: origin.executionId,
    channelId: origin.channel?.channelId ?? null,
    visitorSessionId: origin.channel?.conversationId ?? null,
    trigger: origin.channel?.trigger ?? null,
    attribution: origin.channel?.attribution ?? null,
    domain: origin.domain,
    text: content.text ?? null,
    structuredInput: content.structuredInput ?? null,
    attachments: content.attachments ?? null,
    status: 'open',
    createdAt: now,
  });
}

/** The writes that carry out the brain's lead plan: a new lead, or new contact details on the conversation's lead. */
export function leadWrites(db: Database, lead: PlannedLead | undefined, demandId: string, origin: DemandOrigin, now: number): BatchItem<'sqlite'>[] {
  const channel = origin.channel;
  if (!lead || !channel) return [];
  const contact = {
    contactName: channel.contact?.name ?? null,
    contactEmail: channel.contact?.email ?? null,
    contactPhone: channel.contact?.phone ?? null,
  };
  if (lead.action === 'update_contact') {
    return channel.contact ? [db.update(leads).set(contact).where(eq(leads.id, lead.id))] : [];
  }
  return [
    db.insert(leads).values({
      id: lead.id,
      workspaceId: origin.workspaceId,
      demandId,
      channelId: channel.channelId,
      visitorSessionId: channel.conversationId,
      status: 'open',
      trigger: channel.trigger,
      ...contact,
      attribution: channel.attribution,
      createdAt: now,
    }),
  ];
}

export interface IntakeEntry {
  demand_id: string;
  trigger: string | null;
  text: string | null;
  attribution: Attribution | null;
  created_at: string;
  lead: { lead_id: string; status: string; contact_fields: string[] } | null;
}

/**
 * Recent demand captured by a channel, newest first, with the lead each produced. Contact
 * details stay out: only the expert who claims a lead sees them; here we say which were given.
 */
export async function listChannelIntake(db: Database, channelId: number, limit: number): Promise<IntakeEntry[]> {
  const rows = await db
    .select({ demand: demands, lead: leads })
    .from(demands)
    .leftJoin(leads, eq(leads.demandId, demands.id))
    .where(eq(demands.channelId, channelId))
    .orderBy(desc(demands.id))
    .limit(limit);
  return rows.map(({ demand, lead }) => ({
    demand_id: demand.id,
    trigger: demand.trigger,
    text: demand.text,
    attribution: demand.attribution,
    created_at: new Date(demand.createdAt).toISOString(),
    lead: lead
      ? {
          lead_id: lead.id,
          status: lead.status,
          contact_fields: [lead.contactName && 'name', lead.contactEmail && 'email', lead.contactPhone && 'phone'].filter((field): field is string => Boolean(field)),
        }
      : null,
  }));
}
