/**
 * A source of demand: one adapter per kind of caller (an API key, whether it calls over HTTP, MCP
 * or A2A; a channel's visitor; an email reply). It owns what differs between them: admission, the
 * conversation's key, the rate-limit subject, the guard on its channel, where the brain sees the
 * demand come from, the channel facts its records carry, and the words its caller reads. The
 * execution core (core/execute.ts) is the same for all of them.
 */
import type { BrainInput, ExecutedPlan, IntakeTrigger } from '../../../brain';
import type { EgressPolicy } from '../../../lib/egress';
import type { SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Database } from '../../../lib/db';
import type { RateLimitOutcome } from '../../../lib/rate-limit';
import type { Attribution } from '../../attribution';
import type { ConversationStart, ConversationState, StoredMessage } from '../../conversations';
import type { KeyContext } from '../../identity';
import type { ExecutionLimits } from '../../../env';
import type { ExecuteResponse } from '../schemas';
import type { KnowledgeSetting } from '../knowledge-phase';
import type { MailContext, Services } from '../../../lib/services';
import type { VisitorContact } from '../../leads';
import type { RoutingSettings } from '../../../brain';
import type { RoutingPoolKind } from '../../../vocabulary';
import type { Language } from '../../../lib/i18n';

/** What is asked: the same fields whoever asks. */
export interface Demand {
  domain: string;
  text?: string;
  structuredInput?: Record<string, unknown>;
  attachments?: unknown[];
}

/** What differs between calls of one entry: the caller's own ids and correlation, and the protocol used. */
export interface ExecutionCall {
  /** The request id the envelope carries: the caller's `request_id` (else the services' own). */
  outputRequestId?: string;
  /** The caller's trace (its `trace_id`, or a traceparent), else the services' own. */
  traceId?: string;
  correlation?: ExecutionContext['correlation'];
  exactBridge?: ExecutionContext['exactBridge'];
  via?: ExecutionContext['via'];
  recordWith?: ExecutionContext['recordWith'];
}

/** What every execution needs to know of its request and its settings (made from the entry's services). */
export interface ExecutionContext {
  /** Our id of this request, for the audit record. */
  requestId: string;
  /** The request id the envelope carries: the caller's `request_id`, else ours. */
  outputRequestId: string;
  traceId: string;
  now: number;
  /** The caller's own correlation fields, stored with the execution. */
  correlation?: { projectId?: string; userId?: string; sessionId?: string };
  /** The request's exact_bridge, kept for the association it asks for. */
  exactBridge?: Record<string, unknown> & { contract_id?: string; escrow_id?: string };
  /** The agent chain's total deadline (20 s by default) is the brain's; see BrainInput. */
  limits: ExecutionLimits;
  /** Calls to agents and robots: the egress guard's policy, and the key their secrets are encrypted under. */
  egress: EgressPolicy;
  secretsKey?: string;
  /** What the emails this execution causes need: their links' origin, the unread wait. */
  mail: MailContext;
  /**
   * The protocol an API key's caller used when it was not plain HTTP: an MCP client's tool call or
   * an A2A agent's message (gateway/mcp.ts, gateway/a2a/). The audit record names it.
   */
  via?: 'mcp' | 'a2a';
  /**
   * What the caller's protocol keeps of this answer, written in the execution's own batch (an A2A
   * task): so it exists exactly when the execution does.
   */
  recordWith?: (db: Database, answer: RecordedAnswer) => BatchItem<'sqlite'>[];
}

/** An execution's answer, as a protocol's record of it sees it. */
export interface RecordedAnswer {
  executionId: string;
  workspaceId: string;
  /** The envelope as the caller reads it: JSON, as SQL the batch reads after its charges. */
  envelopeJson: SQL;
  reply: string;
  now: number;
}

/** Who the execution runs as, after its source admitted it. */
export interface Admitted {
  organizationId: string;
  workspaceId: string;
  key: KeyContext | null;
  actorKind: 'admin' | 'api_key' | 'channel';
  actorId: string;
  grantedScopes: string[];
  rateLimitSubject: string;
  rateLimitPerMinute: number;
  /** A visitor's channel: the batch's guard re-reads its state and the page origin (null: the console's own pages). */
  channelGuard: { id: number; channelKey: string; origin: string | null } | null;
  /** Who may see its leads. */
  routingPool: { kind: RoutingPoolKind; workspaceId: string };
}

/** A conversation this message starts: how it is keyed, and the token a visitor gets (a channel's). */
export interface NewConversation {
  start: ConversationStart;
  token?: string;
}

/** The channel facts a visitor's demand, lead and events carry. */
export interface ChannelFacts {
  channelId: number;
  channelKey: string;
  trigger: IntakeTrigger;
  attribution: Attribution | null;
  contact?: VisitorContact;
}

/** One kind of caller, as the execution core sees it. */
export interface Source {
  /** Admission by this source's rules: the key and its scopes, or the channel. */
  admit(db: Database, context: ExecutionContext): Promise<Admitted>;
  /** Per-key idempotency (API keys only): the caller's key and the fingerprint of its request. */
  idempotency?: { key: string; fingerprint: string };
  /** The conversation this message continues, if any. */
  findConversation(db: Database, admitted: Admitted): Promise<ConversationState | undefined>;
  /** How a conversation starts with this message; null when it forms none (a one-off API call). */
  newConversation(admitted: Admitted, conversationId: string): Promise<NewConversation | null>;
  /** Where the message comes from, as the brain sees it. */
  brainOrigin(conversation: ConversationState | undefined): BrainInput['origin'];
  /** A visitor's channel facts, for its demand, lead and events. */
  channelFacts(conversation: ConversationState | undefined): ChannelFacts | undefined;
  /** The language a visitor is spoken to in from this turn on (channel sources); API callers read English. */
  language?(conversation: ConversationState | undefined): Language;
  /** What this source's caller reads, in that language. */
  reply(plan: ExecutedPlan, language: Language): string;
  /**
   * The visitor is not there to read the answer (a reply by email): a reply this turn makes is
   * held for the continuation email instead of counting as read.
   */
  visitorAway?: boolean;
  /**
   * A visitor is not the customer: when the workspace's allowance refuses their message, it is
   * recorded anyway and its lead held, offered once the allowance allows (channel sources). An API
   * caller is the customer, and gets the 402.
   */
  holdsOverAllowance?: boolean;
  /** A channel's lead operations and what ranks its offers; without them, the defaults. */
  leadOperations?: { routing: RoutingSettings; language: string | null; region: string | null };
  /** A channel's knowledge (docs/design/knowledge.md): asked first when on. */
  knowledge?: KnowledgeSetting;
}

/** What an execution answers. */
export interface ExecutionOutcome {
  status: number;
  /** The JSON text of the envelope; on a replay, exactly the bytes first sent. */
  body: string;
  /** The envelope as a value (not on a replay, which has only its bytes). */
  envelope?: ExecuteResponse;
  replayed: boolean;
  rateLimit: RateLimitOutcome;
  /** The brain's plan and its words; a replay has only its bytes. */
  plan?: ExecutedPlan;
  reply?: string;
  /** A conversation's: its visitor's token (a channel's), and whether a way to reach them is known. */
  conversation?: { token?: string; contactKnown: boolean };
  /** The messages this turn stored (the visitor's and the reply), as the thread shows them. */
  messages?: StoredMessage[];
}

/** The execution context of one call, from its entry's services (the clock read once, now). */
export function executionContextOf(services: Services, call: ExecutionCall = {}): ExecutionContext {
  return {
    requestId: services.requestId,
    outputRequestId: call.outputRequestId ?? services.requestId,
    traceId: call.traceId ?? services.traceId,
    now: services.clock.now(),
    ...(call.correlation ? { correlation: call.correlation } : {}),
    ...(call.exactBridge ? { exactBridge: call.exactBridge } : {}),
    limits: services.limits,
    egress: services.egress,
    ...(services.secretsKey ? { secretsKey: services.secretsKey } : {}),
    mail: services.mail,
    ...(call.via ? { via: call.via } : {}),
    ...(call.recordWith ? { recordWith: call.recordWith } : {}),
  };
}
