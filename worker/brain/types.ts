/** The brain's input, its ports (the reads it may make) and its plans. Plain data only. */

export type IntakeTrigger = 'consultation' | 'handoff' | 'lead_capture';

export interface VisitorContact {
  name?: string;
  email?: string;
  phone?: string;
}

/** Present when the demand arrives through a channel (widget or hosted inbox). */
export interface ChannelContext {
  trigger: IntakeTrigger;
  contact?: VisitorContact;
  /** The lead this conversation already produced, if any. */
  existingLeadId: string | null;
}

export interface BrainInput {
  executionId: string;
  domain: string;
  text?: string;
  structuredInput?: Record<string, unknown>;
  attachments?: unknown[];
  /** The scopes the execution runs with. */
  grantedScopes: string[];
  channel?: ChannelContext;
  now: number;
}

/**
 * The reads the brain may make; the platform core implements them over D1. The lead path of
 * today reads nothing: judgement, routing to providers and memory add their reads here.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface BrainPorts {}

/** The one lead of a conversation: created now, or the existing one given new contact details. */
export type PlannedLead = { action: 'create'; id: string } | { action: 'update_contact'; id: string };

export interface ExecutedPlan {
  outcome: 'executed';
  /** The demand this execution records (`dem_…`). */
  demandId: string;
  lead?: PlannedLead;
  /** What the visitor or caller reads. */
  reply: string;
  /** The brain's answer, returned to the caller as `output.result`. */
  result: Record<string, unknown> & { reply: string; demand_id: string; lead_id?: string };
  /** The record this execution produced (`exact_bridge.source_record`). */
  sourceRecord: string;
}

export type BrainPlan = ExecutedPlan;
