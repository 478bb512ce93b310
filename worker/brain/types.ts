/** The brain's input, its ports (the reads it may make) and its plans. Plain data only. */
import type { AttemptOutcome, Disposition, MessageRole, Trigger, Urgency } from '../vocabulary';

export type { AttemptOutcome };

export type { Disposition, Urgency } from '../vocabulary';
/** What the visitor did (vocabulary's TRIGGERS). */
export type IntakeTrigger = Trigger;

/** Where the demand comes from. */
export type DemandOrigin =
  | {
      kind: 'channel';
      trigger: IntakeTrigger;
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
  /** A person claimed its lead: the agents stop, and visitor messages go to the claimer (docs/design/live.md). */
  personHasIt: boolean;
}

export interface BrainInput {
  executionId: string;
  /** The execution's own correlation ids, passed on to agents and robots. */
  requestId: string;
  traceId: string;
  workspaceId: string;
  domain: string;
  text?: string;
  structuredInput?: Record<string, unknown>;
  attachments?: unknown[];
  /** The scopes the execution runs with. */
  grantedScopes: string[];
  origin: DemandOrigin;
  conversation?: ConversationContext;
  /** How many experts a new lead is offered to first (the channel's `offer_first`; docs/design/lead-operations.md). */
  offerFirst: number;
  now: number;
  /**
   * The whole chain of agent calls must end within this many ms (20 s by default); then the lead path or 502 answers.
   */
  agentChainMs: number;
}

/** How many active experts cover the domain: those listing no topics, and those listing each topic. */
export interface ExpertPool {
  anyTopic: number;
  byTopic: Record<string, number>;
}

/** An active agent or robot of the routing pool that accepts the domain, with its recent health. */
export interface AgentCandidate {
  providerId: string;
  kind: 'agent' | 'robot';
  name: string;
  priority: number;
  /** Failed calls in the last hour (the order's tie-breaker). */
  failuresLastHour: number;
  /** The circuit breaker: skipped until this time (ms), after failures in a row. */
  openUntil: number;
}

/** One earlier turn of the conversation, as memory hands it to an agent. */
export interface MemoryTurn {
  role: MessageRole;
  text: string;
  created_at: string;
}

/** What an agent or robot is asked: the demand and its context (docs/design/agents-and-robots.md). */
export interface AgentCall {
  execution_id: string;
  domain: string;
  text?: string;
  structured_input?: Record<string, unknown>;
  attachments?: unknown[];
  request_id: string;
  trace_id: string;
  workspace_id: string;
  /** The conversation's earlier turns, with `memory:read` only. */
  memory?: MemoryTurn[];
}

/** A usage line a robot reports; it is appended to the envelope's `usage_applications`. */
export interface ReportedUsage {
  meter: string;
  quantity: number;
  unit: string;
}

/** The answer of one call: a validated answer, or why there is none. */
export type AgentAnswer =
  | {
      ok: true;
      reply: string | null;
      output: Record<string, unknown>;
      usage: ReportedUsage[];
      httpStatus: number | null;
      durationMs: number;
    }
  | {
      ok: false;
      outcome: Exclude<AttemptOutcome, 'success' | 'circuit_open'>;
      httpStatus: number | null;
      durationMs: number;
      error: string;
    };

/** One attempt, as recorded on the execution. */
export interface AgentAttempt {
  providerId: string;
  outcome: AttemptOutcome;
  httpStatus: number | null;
  durationMs: number;
  error: string | null;
}

/** What assessment reads: the workspace's risk settings and the experts who cover a domain. */
export interface AssessPorts {
  /** The workspace's risk settings. */
  workspacePolicy(): Promise<{ blockedTerms: string[] }>;
  /** The active experts of the routing pool who cover a domain. */
  expertPool(domain: string): Promise<ExpertPool>;
}

/** What the agent chain needs: calls (signed, through the egress guard), a clock, and memory. */
export interface AgentPorts {
  /** Calls one agent or robot, within its own timeout and at most `withinMs`. */
  invokeAgent(providerId: string, call: AgentCall, withinMs: number): Promise<AgentAnswer>;
  /** The clock (ms), for the chain's deadline. */
  now(): number;
  /** The conversation's earlier turns (the last 20, at most 16 KB), oldest first. */
  conversationMemory(): Promise<MemoryTurn[]>;
}

/** The demand of the plan: a new one (the conversation's first message), or the one it continues. */
export type PlannedDemand = { action: 'create'; id: string } | { action: 'continue'; id: string };

/** The one lead of a conversation: created now, or updated (trigger, contact, urgency). */
export type PlannedLead = { action: 'create'; id: string } | { action: 'update'; id: string };

/**
 * Who answered, on the agent path: an agent or robot (a provider), or the workspace's own
 * knowledge (no provider; its name is the brand's).
 */
export type HandledBy =
  | { kind: 'agent' | 'robot'; providerId: string; name: string }
  | { kind: 'knowledge'; providerId: null; name: string };

/**
 * What the brain decided about one message: decisions and data, never copy or wire shapes. The
 * source that brought the message (core/sources/) says it to its caller in its own words.
 */
export interface ExecutedPlan {
  outcome: 'executed';
  /** `agent`: an agent or robot answered; `lead`: the lead path (experts), after any failed agents. */
  path: 'agent' | 'lead';
  disposition: Disposition;
  /** Stable codes: why a demand was held or rejected. */
  reasons: string[];
  topic: string;
  urgency: Urgency;
  matchedProviders: number;
  demand: PlannedDemand;
  lead?: PlannedLead;
  /** The trigger of this message (a lead keeps the strongest it has seen). */
  trigger: IntakeTrigger;
  /** Whether to ask the visitor for a way to reach them (decided here, once). */
  askForContact: boolean;
  /** The message goes to the person who claimed the lead: nobody answers it automatically. */
  toClaimer: boolean;
  /** The agent path: who answered, with its own reply text and output, and the usage it reported. */
  handledBy?: HandledBy;
  agentAnswer?: { reply: string | null; output: Record<string, unknown> };
  /**
   * The workspace's knowledge, when it was asked first: answered (its sources, for the stored
   * message) or declined (the routing went on as without it; `writtenIn`, the knowledge's
   * language, when the question was in another and no model translated it: the reply says so).
   */
  knowledge?:
    | { answered: true; sources: Array<{ title: string; url: string | null }> }
    | { answered: false; writtenIn?: string };
  reportedUsage: ReportedUsage[];
  /** Every call made (or skipped) to an agent or robot, in order. */
  attempts: AgentAttempt[];
  /** Whether the turn (the message and its answer) is stored as conversation memory. */
  storeTurn: boolean;
  /** The record this execution produced (`exact_bridge.source_record`). */
  sourceRecord: string;
}

/** Every agent failed and the execution may not write leads: 502 `agent_unavailable`. */
export interface AgentUnavailablePlan {
  outcome: 'agent_unavailable';
  attempts: AgentAttempt[];
}

export type BrainPlan = ExecutedPlan | AgentUnavailablePlan;
