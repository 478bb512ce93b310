/**
 * What the daily rollups count, and from which events (docs/design/billing.md). Each metric is a
 * condition on one event of the outbox (its type and a few fields of its data, as `f.*` columns
 * of sweep.ts), counted once per event; `charged_minor.<meter>` sums the ledger's charges.
 */
import { type SQL, sql } from 'drizzle-orm';
import { CONTRACT_METERS, type ContractMeter } from '../../lib/vocabulary';

/** The event types the rollups read. */
export const ROLLED_UP_EVENTS = ['execution.completed', 'lead.created'] as const;

/** Each metric counted from events, with the condition an event meets to count. */
export const EVENT_METRICS = {
  executions: sql`f.type = 'execution.completed'`,
  agent_calls: sql`f.type = 'execution.completed' AND f.handled_kind IS NOT NULL`,
  answered_by_agent: sql`f.type = 'execution.completed' AND f.handled_kind = 'agent'`,
  answered_by_robot: sql`f.type = 'execution.completed' AND f.handled_kind = 'robot'`,
  held: sql`f.type = 'execution.completed' AND f.disposition = 'held'`,
  rejected: sql`f.type = 'execution.completed' AND f.disposition = 'rejected'`,
  leads: sql`f.type = 'lead.created'`,
} satisfies Record<string, SQL>;

export type EventMetric = keyof typeof EVENT_METRICS;

/** The metric of a meter's charges, in minor units of the contract's currency. */
export const chargedMetric = (meter: ContractMeter) => `charged_minor.${meter}`;

export const CHARGED_METRICS = CONTRACT_METERS.map(chargedMetric);
