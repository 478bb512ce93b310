/**
 * The owner's numbers per day (docs/design/billing.md): rolled up by the cron sweep from the
 * outbox's events and the ledger, read by the usage and insights pages.
 * This file is the module's face: other modules, routes, pages and jobs import only from here.
 */
export { CHARGED_METRICS, chargedMetric, EVENT_METRICS, type EventMetric } from './metrics';
export { type RollupGroup, rollupSums } from './read';
export { ROLLUP_BATCH, rollUp } from './sweep';
