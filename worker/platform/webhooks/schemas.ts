/**
 * Events written back to customers (PRODUCT.md section 10): their types and their envelope.
 * An event carries the public shape of its record, never contact details.
 */
import { z } from '@hono/zod-openapi';

export const EVENT_TYPES = [
  'lead.created',
  'lead.claimed',
  'lead.status_changed',
  'execution.completed',
  'provider.status_changed',
  'intake.received',
  'conversation.message_created',
] as const;

export const eventTypeSchema = z.enum(EVENT_TYPES).openapi('EventType');
export type EventType = z.infer<typeof eventTypeSchema>;

export const eventSchema = z
  .object({
    id: z.string().openapi({ example: 'evt_01m83…' }),
    type: eventTypeSchema,
    created_at: z.string(),
    workspace_id: z.string(),
    data: z.record(z.string(), z.unknown()),
  })
  .openapi('Event');
export type WebhookEvent = z.infer<typeof eventSchema>;
