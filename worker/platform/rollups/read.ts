/**
 * Reading the rollups (docs/design/billing.md): a workspace's counts over a range of days, summed
 * by day, channel, key or metric. A few hundred rows at most, whatever the history.
 */
import { and, between, eq, inArray, sql } from 'drizzle-orm';
import { type Database, schema } from '../../lib/db';

const { dailyRollups } = schema;

export type RollupGroup = 'day' | 'channel' | 'key' | 'metric';

/** Sums of some metrics over `[from, to]` (days, both included), one row per group and metric. */
export async function rollupSums(
  db: Database,
  query: {
    workspaceId: string;
    from: string;
    to: string;
    metrics: string[];
    groupBy: RollupGroup;
    channelKey?: string;
  },
): Promise<Array<{ group: string; metric: string; value: number }>> {
  const column = {
    day: dailyRollups.day,
    channel: dailyRollups.channelKey,
    key: dailyRollups.keyId,
    metric: dailyRollups.metric,
  }[query.groupBy];
  return db
    .select({ group: column, metric: dailyRollups.metric, value: sql<number>`sum(${dailyRollups.value})` })
    .from(dailyRollups)
    .where(
      and(
        eq(dailyRollups.workspaceId, query.workspaceId),
        between(dailyRollups.day, query.from, query.to),
        inArray(dailyRollups.metric, query.metrics),
        ...(query.channelKey !== undefined ? [eq(dailyRollups.channelKey, query.channelKey)] : []),
      ),
    )
    .groupBy(column, dailyRollups.metric)
    .orderBy(column);
}
