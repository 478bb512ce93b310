/**
 * The owner's numbers per day (docs/design/insights.md): rolled up by the cron sweep from the
 * outbox's events, the ledger, conversations, the leads' history and the agents' attempts, read by
 * the usage and insights pages.
 * This file is the module's face: other modules, routes, pages and jobs import only from here.
 */
export {
  chargedMetric,
  chargedMetricsIn,
  API_LEADS,
  EVENT_METRICS,
  type EventMetric,
  FUNNEL,
  LEAD_STATUS_METRICS,
  leadStatusMetric,
  SECONDS_BUCKETS,
} from './metrics';
export { periodParts, type RollupColumn, type RollupGroup, rollupSums, sumsOver, wholeMonths } from './read';
export { ROLLUP_BATCH, rollUp } from './sweep';
