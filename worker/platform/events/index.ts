/**
 * Events (docs/design/webhooks.md): one zod schema per event type, the typed constructor, and the
 * outbox's writes, whose committed ids come back from the batch. Webhooks read them now; the
 * live rooms and email next.
 * This file is the module's face: other modules, routes, pages and jobs import only from here.
 */
export {
  type CommittedEvent,
  eventInserts,
  eventsFromRows,
  eventInsertWhere,
  type NewEvent,
  newEvent,
  takeCommittedEvents,
} from './outbox';
export {
  EVENT_DATA,
  EVENT_TYPES,
  type EventData,
  type EventType,
  eventSchema,
  eventTypeSchema,
  type PlatformEvent,
} from './schemas';
