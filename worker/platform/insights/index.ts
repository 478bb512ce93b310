/**
 * Insights (docs/design/insights.md): a workspace's funnel, response times and outcomes, read
 * from the daily rollups; an expert's own numbers; the platform's, for administrators.
 * This file is the module's face: other modules, routes, pages and jobs import only from here.
 */
export { insightsRoutes } from './routes';
export { type InsightsView, insightsQuerySchema, insightsSchema } from './schemas';
export { bucketPercentile, insightsRange, insightsView, MAX_INSIGHT_DAYS } from './service';
export {
  EXPERT_WINDOW_DAYS,
  type ExpertNumbers,
  expertNumbers,
  median,
  type PlatformNumbers,
  platformNumbers,
} from './people';
