/**
 * Webhooks' wire shapes. The event types and the envelope every delivery carries are the events
 * module's (events/schemas.ts); this module delivers them.
 */
export { EVENT_TYPES, type EventType, eventSchema, eventTypeSchema } from '../events/schemas';
