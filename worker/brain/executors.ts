/**
 * The brain's executors, one per business domain. An executor decides what an execution
 * produces and returns the rows to write; the platform core commits them in the same D1 batch
 * as the execution, audit and usage records. No HTTP types in here.
 */
import { eq } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Attribution } from '../../drizzle/schema';
import { schema, type Database } from '../lib/db';
import { newId } from '../lib/ids';

export type IntakeTrigger = 'consultation' | 'handoff' | 'lead_capture';

export interface VisitorContact {
  name?: string;
  email?: string;
  phone?: string;
}

/** Present when the demand arrives through a channel (widget or hosted inbox). */
export interface IntakeContext {
  channelId: number;
  visitorSessionId: string;
  trigger: IntakeTrigger;
  attribution?: Attribution;
  contact?: VisitorContact;
  /** The lead this visitor session already produced, if any. */
  existingLeadId: string | null;
}

export interface ExecutionInput {
  executionId: string;
  organizationId: string;
  workspaceId: string;
  domain: string;
  text?: string;
  structuredInput?: Record<string, unknown>;
  attachments?: unknown[];
  grantedScopes: string[];
  sessionId?: string;
  intake?: IntakeContext;
  now: number;
}

export interface ExecutionPlan {
  /** The brain's answer, returned to the caller as `output.result`. */
  result: Record<string, unknown> & { reply: string; demand_id?: string; lead_id?: string };
  /** The id of the record this execution produced (`exact_bridge.source_record`). */
  sourceRecord: string;
  writes: BatchItem<'sqlite'>[];
}

export type Executor = (db: Database, input: ExecutionInput) => Promise<ExecutionPlan> | ExecutionPlan;

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

/**
 * Stores the request as an open demand and answers with its id. Through a channel, a handoff or
 * a lead-capture also produces a lead (the one lead of that visitor session, updated if it exists).
 */
const consultation: Executor = (db, input) => {
  const demandId = newId('dem', input.now);
  const intake = input.intake;
  const writes: BatchItem<'sqlite'>[] = [
    db.insert(schema.demands).values({
      id: demandId,
      workspaceId: input.workspaceId,
      executionId: input.executionId,
      channelId: intake?.channelId ?? null,
      visitorSessionId: intake?.visitorSessionId ?? null,
      trigger: intake?.trigger ?? null,
      attribution: intake?.attribution ?? null,
      domain: input.domain,
      text: input.text ?? null,
      structuredInput: input.structuredInput ?? null,
      attachments: input.attachments ?? null,
      status: 'open',
      createdAt: input.now,
    }),
  ];
  const reference = demandReference(demandId);
  if (!intake) {
    return {
      result: { demand_id: demandId, demand_status: 'open', reply: `Your request was recorded as ${demandId}. An expert will pick it up.` },
      sourceRecord: demandId,
      writes,
    };
  }

  let leadId: string | undefined;
  if (intake.trigger !== 'consultation') {
    const contact = {
      contactName: intake.contact?.name ?? null,
      contactEmail: intake.contact?.email ?? null,
      contactPhone: intake.contact?.phone ?? null,
    };
    if (intake.existingLeadId) {
      leadId = intake.existingLeadId;
      if (intake.contact) writes.push(db.update(schema.leads).set(contact).where(eq(schema.leads.id, leadId)));
    } else {
      leadId = newId('lead', input.now);
      writes.push(
        db.insert(schema.leads).values({
          id: leadId,
          workspaceId: input.workspaceId,
          demandId,
          channelId: intake.channelId,
          visitorSessionId: intake.visitorSessionId,
          status: 'open',
          trigger: intake.trigger,
          ...contact,
          attribution: intake.attribution ?? null,
          createdAt: input.now,
        }),
      );
    }
  }
  return {
    result: {
      demand_id: demandId,
      demand_status: 'open',
      ...(leadId ? { lead_id: leadId } : {}),
      reply: visitorReply(intake.trigger, reference, intake.contact),
    },
    sourceRecord: leadId ?? demandId,
    writes,
  };
};

const executors: ReadonlyMap<string, Executor> = new Map([['consultation', consultation]]);

export function findExecutor(domain: string): Executor | undefined {
  return executors.get(domain);
}

export function knownDomains(): string[] {
  return [...executors.keys()];
}
