/**
 * What the daily rollups count, and from which rows (docs/design/insights.md). A metric is a name,
 * sometimes with a part that names what it counts (`topic.billing`, `agent_answered.prv_…`,
 * `lead_status.won`); each is counted from one source (sweep.ts) exactly once.
 */
import type { SQL } from 'drizzle-orm';
import { sql } from 'drizzle-orm';
import { CONTRACT_METERS, type ContractMeter, LEAD_STATUSES } from '../../vocabulary';

/** The event types the rollups read from the outbox. */
export const ROLLED_UP_EVENTS = ['execution.completed', 'lead.created', 'lead.unclaimed', 'lead.released'] as const;

/** Each metric counted from events, with the condition an event (`f.*`, sweep.ts) meets to count once. */
export const EVENT_METRICS = {
  executions: sql`f.type = 'execution.completed'`,
  agent_calls: sql`f.type = 'execution.completed' AND f.handled_kind IS NOT NULL`,
  answered_by_agent: sql`f.type = 'execution.completed' AND f.handled_kind = 'agent'`,
  answered_by_robot: sql`f.type = 'execution.completed' AND f.handled_kind = 'robot'`,
  /** The workspace's knowledge answered, or declined (docs/design/knowledge.md). */
  answered_by_knowledge: sql`f.type = 'execution.completed' AND f.handled_kind = 'knowledge'`,
  declined_by_knowledge: sql`f.type = 'execution.completed' AND f.knowledge = 'declined'`,
  /** Conversations the knowledge answered in, and those that still went to a person after: the resolution rate. */
  knowledge_conversations: sql`f.type = 'execution.completed' AND f.knowledge_first = 1`,
  knowledge_handoffs: sql`f.type = 'lead.created' AND f.after_knowledge = 1`,
  held: sql`f.type = 'execution.completed' AND f.disposition = 'held'`,
  rejected: sql`f.type = 'execution.completed' AND f.disposition = 'rejected'`,
  leads: sql`f.type = 'lead.created'`,
  /** Leads nobody claimed within the channel's escalate_minutes (their owners were emailed). */
  escalated: sql`f.type = 'lead.unclaimed'`,
  /** Claims that lapsed: no reply within the claim SLA. */
  sla_lapses: sql`f.type = 'lead.released' AND f.reason = 'claim_sla'`,
} satisfies Record<string, SQL>;

export type EventMetric = keyof typeof EVENT_METRICS;

/**
 * The funnel of visitors' conversations: each step counts a conversation once, on the day it
 * began, and only a conversation of the step before (a lead of an API call is none: API_LEADS).
 */
export const FUNNEL = {
  conversations: 'funnel.conversations',
  /** An agent or robot answered in it at least once. */
  answered: 'funnel.answered',
  leads: 'funnel.leads',
  claimed: 'funnel.claimed',
  replied: 'funnel.replied',
  won: 'funnel.won',
} as const;

/** Leads made by API calls (no visitor's conversation), counted on the lead's day. */
export const API_LEADS = 'api_leads';

/** The metric of a meter's charges in one currency, in its minor units: `charged_minor.executions.EUR`. */
export const chargedMetric = (meter: ContractMeter, currency: string) => `charged_minor.${meter}.${currency}`;

/** Every meter's charges in one currency (sums of different currencies are never added). */
export const chargedMetricsIn = (currency: string) => CONTRACT_METERS.map((meter) => chargedMetric(meter, currency));

/** Leads by their current status, counted on the day each lead was created (+1 into a status, −1 out). */
export const leadStatusMetric = (status: string) => `lead_status.${status}`;
export const LEAD_STATUS_METRICS = LEAD_STATUSES.map(leadStatusMetric);

/**
 * The upper edges, in seconds, of the buckets that times to first claim and to first reply are
 * counted in: each a little wider than the one before, from 15 s to 30 days, then `inf`. A
 * percentile is the edge of the bucket it falls in (read.ts).
 */
export const SECONDS_BUCKETS = [
  15, 30, 45, 60, 90, 120, 180, 240, 300, 450, 600, 900, 1200, 1800, 2700, 3600, 5400, 7200, 10800, 14400, 21600, 28800,
  43200, 64800, 86400, 129600, 172800, 259200, 432000, 604800, 1209600, 2592000,
] as const;

/**
 * The bucket of a duration in seconds, as SQL text: its upper edge, or `inf`. The edges are this
 * file's constants, written into the SQL as literals (D1 binds at most 100 parameters a statement).
 */
export function bucketOf(seconds: SQL): SQL {
  const cases = SECONDS_BUCKETS.map((edge) => sql`WHEN ${seconds} <= ${sql.raw(`${edge} THEN '${edge}'`)}`);
  return sql`(CASE ${sql.join(cases, sql` `)} ELSE 'inf' END)`;
}
