/**
 * Webhooks (docs/design/webhooks.md): committed events to the queue, signed delivery, retries, the
 * endpoints and their delivery log. The events themselves are the events module's.
 * This file is the module's face: other modules, routes, pages and jobs import only from here.
 */
export {
  type DeliveryEnvironment,
  deliverDueToEndpoint,
  type EndpointRun,
  endpointsWithPending,
} from './delivery';
export { EndpointLimiter, RETRY_WINDOW_MS } from './retry-policy';
export { sweepDueDeliveries, webhookHousekeeping } from './sweep';
export { type DeliverMessage, deliverMessageSchema, enqueueForDelivery } from './outbox';
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
