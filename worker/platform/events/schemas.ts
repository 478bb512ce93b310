/**
 * Every event type and the shape of its `data` (docs/design/webhooks.md), one zod schema each:
 * the public shape of its record, never contact details. The envelope is a union discriminated
 * by `type`, so a consumer that switches on the type gets the data's type. Adding an event type
 * is one entry here and one `newEvent` call where it happens; the compiler finds the rest.
 */
import { z } from '@hono/zod-openapi';
import { attributionSchema } from '../attribution';
import {
  DISPOSITIONS,
  LEAD_STATUSES,
  MESSAGE_ROLES,
  PROVIDER_KINDS,
  PROVIDER_STATUSES,
  TRIGGERS,
  URGENCIES,
} from '../../vocabulary';

const at = z.string().openapi({ description: 'ISO 8601, UTC.' });
const providerRef = z.object({ provider_id: z.string(), name: z.string().nullable() });

/** The `data` of each event type. */
export const EVENT_DATA = {
  'lead.created': z.object({
    lead_id: z.string(),
    demand_id: z.string(),
    execution_id: z.string().openapi({ description: 'The execution whose demand became this lead.' }),
    reference: z.string(),
    status: z.literal('open'),
    trigger: z.enum(TRIGGERS),
    domain: z.string(),
    topic: z.string(),
    urgency: z.enum(URGENCIES),
    channel_key: z.string().nullable(),
    summary: z.string(),
    /** A handoff after the workspace's knowledge had answered in the conversation: the answer did not settle it. */
    after_knowledge: z.boolean().optional(),
    created_at: at,
  }),
  'lead.claimed': z.object({
    lead_id: z.string(),
    conversation_id: z.string().nullable(),
    status: z.literal('claimed'),
    claimed_by: providerRef,
    claimed_at: at,
  }),
  'lead.status_changed': z.object({
    lead_id: z.string(),
    conversation_id: z.string().nullable(),
    from: z.enum(LEAD_STATUSES),
    to: z.enum(LEAD_STATUSES),
    changed_by: providerRef,
    changed_at: at,
  }),
  'lead.released': z.object({
    lead_id: z.string(),
    conversation_id: z.string().nullable(),
    status: z.literal('open'),
    released_by: providerRef,
    reason: z.enum(['released', 'claim_sla']).openapi({
      description: '`released`: its claimer let it go; `claim_sla`: no reply within the channel’s claim_sla_minutes.',
    }),
    released_at: at,
  }),
  'lead.unclaimed': z.object({
    lead_id: z.string(),
    conversation_id: z.string().nullable(),
    reference: z.string(),
    domain: z.string(),
    channel_key: z.string().nullable(),
    waiting_minutes: z.number().int(),
    created_at: at,
  }),
  'execution.completed': z.object({
    execution_id: z.string(),
    domain: z.string(),
    status: z.literal('completed'),
    request_id: z.string(),
    trace_id: z.string(),
    source_record: z.string(),
    demand_id: z.string(),
    disposition: z.enum(DISPOSITIONS),
    path: z.enum(['agent', 'lead']),
    handled_by: z
      .union([
        z.object({ kind: z.enum(['agent', 'robot']), provider_id: z.string(), name: z.string() }),
        z.object({ kind: z.literal('knowledge') }),
      ])
      .optional(),
    /** When the workspace's knowledge was asked first: whether it answered, or declined. */
    knowledge: z.enum(['answered', 'declined']).optional(),
    /** The knowledge's first answer in its conversation (the resolution rate counts conversations). */
    knowledge_first: z.boolean().optional(),
    lead_id: z.string().optional(),
    created_at: at,
  }),
  'provider.status_changed': z.object({
    provider_id: z.string(),
    kind: z.enum(PROVIDER_KINDS).nullable(),
    display_name: z.string().nullable(),
    from: z.enum(PROVIDER_STATUSES),
    to: z.enum(PROVIDER_STATUSES),
    changed_at: at,
  }),
  'intake.received': z.object({
    channel_key: z.string(),
    demand_id: z.string(),
    reference: z.string(),
    trigger: z.enum(TRIGGERS),
    disposition: z.enum(DISPOSITIONS),
    reasons: z.array(z.string()),
    text: z.string().nullable(),
    attribution: attributionSchema.nullable(),
    lead_id: z.string().optional(),
    created_at: at,
  }),
  'conversation.message_created': z.object({
    message_id: z.string(),
    conversation_id: z.string(),
    role: z.enum(MESSAGE_ROLES),
    /** Who wrote it: the expert's or the agent's display name (none for the visitor and the platform). */
    author_name: z.string().nullable(),
    text: z.string(),
    /** A knowledge answer's sources: where it comes from (absent on every other message). */
    sources: z
      .array(z.object({ title: z.string(), url: z.string().nullable() }))
      .optional()
      .openapi({ description: "A knowledge answer's sources (the workspace's own help); absent on other messages." }),
    created_at: at,
  }),
  'usage.threshold_reached': z.object({
    contract_id: z.string(),
    meter: z.string(),
    period: z.string().openapi({ description: 'The calendar month (UTC), `YYYY-MM`.' }),
    percent: z.union([z.literal(80), z.literal(100)]),
    used: z.number().int(),
    included: z.number().int(),
    reached_at: at,
  }),
  'escrow.low_balance': z.object({
    escrow_id: z.string(),
    contract_id: z.string().nullable(),
    currency: z.string(),
    balance_minor: z.number().int(),
    low_balance_minor: z.number().int(),
    noticed_at: at,
  }),
  'statement.issued': z.object({
    statement_id: z.string(),
    escrow_id: z.string(),
    contract_id: z.string().nullable(),
    period: z.string(),
    currency: z.string(),
    opening_minor: z.number().int(),
    closing_minor: z.number().int(),
    issued_at: at,
  }),
} as const;

export type EventType = keyof typeof EVENT_DATA;
/** The types, in the order the docs list them. */
export const EVENT_TYPES = Object.keys(EVENT_DATA) as [EventType, ...EventType[]];
export const eventTypeSchema = z.enum(EVENT_TYPES).openapi('EventType');

/** The data of an event of type `T`. */
export type EventData<T extends EventType> = z.infer<(typeof EVENT_DATA)[T]>;

/** The envelope every delivery carries, discriminated by `type`. */
export const eventSchema = z
  .discriminatedUnion(
    'type',
    EVENT_TYPES.map((type) =>
      z.object({
        id: z.string().openapi({ example: 'evt_01m83…' }),
        type: z.literal(type),
        created_at: z.string(),
        workspace_id: z.string(),
        data: EVENT_DATA[type],
      }),
    ) as unknown as [z.ZodObject, ...z.ZodObject[]],
  )
  .openapi('Event');

/** An event as its consumers read it: the union of every type's envelope. */
export type PlatformEvent = {
  [T in EventType]: { id: string; type: T; created_at: string; workspace_id: string; data: EventData<T> };
}[EventType];
