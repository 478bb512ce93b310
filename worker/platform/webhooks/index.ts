/**
 * Events and webhooks (PRODUCT.md section 10): the outbox, signed delivery through the queue,
 * retries, the endpoints and their delivery log.
 * This file is the module's face: other modules, routes, pages and jobs import only from here.
 */
export {
  deliverEvents,
  type DeliveryBatchContext,
  EndpointLimiter,
  RETRY_WINDOW_MS,
  sweepDueDeliveries,
} from './delivery';
export { type DeliverMessage, eventWrites, eventWriteWhere, type NewEvent, outboxKick } from './outbox';
export { EVENT_TYPES, eventTypeSchema } from './schemas';
export {
  createEndpoint,
  deliveryLog,
  endpointOfWorkspace,
  type EndpointView,
  listEndpoints,
  redeliver,
  rotateEndpointSecret,
  setEndpointEnabled,
} from './service';
export { webhookHousekeeping } from './delivery';
