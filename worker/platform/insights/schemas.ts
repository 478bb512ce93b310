/** The insights' wire shapes (docs/design/insights.md); types are inferred from these. */
import { z } from '@hono/zod-openapi';
import { calendarDate } from '../../lib/openapi';
import { LEAD_STATUSES } from '../../vocabulary';

export const insightsQuerySchema = z.object({
  from: calendarDate()
    .optional()
    .openapi({ description: 'The first day (UTC), `YYYY-MM-DD`; 29 days before `to` by default.' }),
  to: calendarDate().optional().openapi({ description: 'The last day, included; today by default.' }),
  channel: z.string().min(1).max(64).optional().openapi({ description: 'One channel’s numbers (its key).' }),
  workspace_id: z.string().max(64).optional().openapi({ description: 'For a session with several workspaces.' }),
});

const percentiles = z.object({ p50: z.number().int().nullable(), p90: z.number().int().nullable() }).openapi({
  description: 'Seconds, to within a bucket (each a little wider than the one before); null without data.',
});

export const insightsSchema = z
  .object({
    from: z.string(),
    to: z.string(),
    channel: z.string().nullable(),
    totals: z.object({
      conversations: z.number().int(),
      answered_by_agent: z.number().int(),
      answered_by_robot: z.number().int(),
      leads: z.number().int(),
      claimed: z.number().int().openapi({ description: 'The range’s leads an expert claimed.' }),
      replied: z.number().int().openapi({ description: 'The range’s leads an expert replied to.' }),
      held: z.number().int(),
      rejected: z.number().int(),
      leads_by_status: z.object(
        Object.fromEntries(LEAD_STATUSES.map((status) => [status, z.number().int()])) as Record<
          (typeof LEAD_STATUSES)[number],
          z.ZodNumber
        >,
      ),
      time_to_first_claim_s: percentiles,
      time_to_first_reply_s: percentiles,
      won_rate: z
        .number()
        .nullable()
        .openapi({ description: 'Won leads among the range’s leads; null without leads.' }),
      won_value: z.array(z.object({ currency: z.string(), value_minor: z.number().int() })),
      funnel: z
        .object({
          conversations: z.number().int(),
          answered: z.number().int(),
          leads: z.number().int(),
          claimed: z.number().int(),
          replied: z.number().int(),
          won: z.number().int(),
        })
        .openapi({
          description:
            'Visitors’ conversations that began in the range, and how far each went: each step counts ' +
            'conversations of the one before (`answered`: an agent or robot answered in it, beside the chain).',
        }),
      api_leads: z.number().int().openapi({ description: 'Leads made by API calls in the range: not in the funnel.' }),
      knowledge: z
        .object({
          answered: z.number().int().openapi({ description: 'Questions the workspace’s knowledge answered.' }),
          declined: z
            .number()
            .int()
            .openapi({ description: 'Questions it declined (they went on to agents and experts).' }),
          conversations: z.number().int().openapi({ description: 'Conversations it answered in.' }),
          handoffs: z
            .number()
            .int()
            .openapi({ description: 'Of those, the conversations that went to a person after its answer.' }),
          resolution_rate: z.number().nullable().openapi({
            description:
              'Conversations it answered with no handoff after, among those it answered in; null without any.',
          }),
        })
        .openapi({ description: 'The first-party agent: answers from the workspace’s own knowledge.' }),
    }),
    days: z.array(
      z.object({
        date: z.string(),
        conversations: z.number().int(),
        answered_by_knowledge: z.number().int().openapi({ description: 'Answered from the workspace’s knowledge.' }),
        answered_by_agent: z.number().int(),
        answered_by_robot: z.number().int(),
        leads: z.number().int(),
        won: z.number().int(),
      }),
    ),
    agents: z.array(
      z.object({
        provider_id: z.string(),
        display_name: z.string().nullable(),
        attempts: z.number().int(),
        answered: z.number().int(),
        declined: z.number().int(),
      }),
    ),
    topics: z.array(z.object({ topic: z.string(), count: z.number().int() })),
  })
  .openapi('Insights');
export type InsightsView = z.infer<typeof insightsSchema>;
