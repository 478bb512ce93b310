/** The brain's input, its ports (the reads it may make) and its plans. Plain data only. */

export type IntakeTrigger = 'consultation' | 'handoff' | 'lead_capture';
export type Disposition = 'routed' | 'held' | 'rejected';
export type Urgency = 'low' | 'normal' | 'high';

export interface VisitorContact {
  name?: string;
  email?: string;
  phone?: string;
}

/** Where the demand comes from. */
export type DemandOrigin =
  | {
      kind: 'channel';
      trigger: IntakeTrigger;
      /** Contact details sent with this message (a contact form). */
      contact?: VisitorContact;
      /** Whether the conversation already has a way to reach the visitor (or this message gives one). */
      contactKnown: boolean;
      /** Whether the channel asks visitors for contact details at all. */
      asksForContact: boolean;
      /** The widget's hidden field was filled in: a bot. */
      honeypot: boolean;
    }
  | { kind: 'api' };

/** The conversation this message continues, when it does. */
export interface ConversationContext {
  demandId: string;
  leadId: string | null;
  disposition: Disposition | null;
}

export interface BrainInput {
  executionId: string;
  domain: string;
  text?: string;
  structuredInput?: Record<string, unknown>;
  attachments?: unknown[];
  /** The scopes the execution runs with. */
  grantedScopes: string[];
  origin: DemandOrigin;
  conversation?: ConversationContext;
  now: number;
}

/** How many active experts cover the domain: those listing no topics, and those listing each topic. */
export interface ExpertPool {
  anyTopic: number;
  byTopic: Record<string, number>;
}

/**
 * The reads the brain may make; the platform core implements them over D1 for the execution's
 * workspace and routing pool (and caches them briefly: none guards a security decision).
 */
export interface BrainPorts {
  /** The workspace's risk settings. */
  workspacePolicy(): Promise<{ blockedTerms: string[] }>;
  /** The active experts of the routing pool who cover a domain. */
  expertPool(domain: string): Promise<ExpertPool>;
}

/** The demand of the plan: a new one (the conversation's first message), or the one it continues. */
export type PlannedDemand = { action: 'create'; id: string } | { action: 'continue'; id: string };

/** The one lead of a conversation: created now, or updated (trigger, contact, urgency). */
export type PlannedLead = { action: 'create'; id: string } | { action: 'update'; id: string };

export interface ExecutedPlan {
  outcome: 'executed';
  disposition: Disposition;
  /** Stable codes: why a demand was held or rejected. */
  reasons: string[];
  topic: string;
  urgency: Urgency;
  matchedProviders: number;
  demand: PlannedDemand;
  lead?: PlannedLead;
  /** The trigger the lead carries: the strongest the conversation has seen. */
  trigger: IntakeTrigger;
  /** What the visitor or caller reads. */
  reply: string;
  /** The brain's answer, returned to the caller as `output.result`. */
  result: Record<string, unknown> & { reply: string; demand_id: string; lead_id?: string; disposition: Disposition };
  /** The record this execution produced (`exact_bridge.source_record`). */
  sourceRecord: string;
}

export type BrainPlan = ExecutedPlan;
