/**
 * Reading the rollups (docs/design/insights.md): a range of days reads each whole month inside it
 * as its month's row, and only the days at its edges as day rows, so a year reads 12 months and at
 * most two partial months of days, whatever the history.
 */
import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { type Database, schema } from '../../lib/db';
import { monthBounds, monthOf } from '../../lib/periods';

const { dailyRollups } = schema;

export type RollupGroup = 'day' | 'channel' | 'key' | 'metric';

/** The whole calendar months inside `[from, to]` (days, both included). */
export function wholeMonths(from: string, to: string): string[] {
  const months: string[] = [];
  const last = Date.parse(`${to}T00:00:00Z`) + 86_400_000;
  for (let month = monthOf(Date.parse(`${from}T00:00:00Z`)); ; ) {
    const { start, end } = monthBounds(month);
    if (start > last) break;
    if (start >= Date.parse(`${from}T00:00:00Z`) && end <= last) months.push(month);
    month = monthOf(end);
  }
  return months;
}

const dayOnly = (from: string, to: string) =>
  sql`${dailyRollups.day} BETWEEN ${from} AND ${to} AND length(${dailyRollups.day}) = 10`;

const shift = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/**
 * The parts of `[from, to]`, each an index range of the rollups: its whole months' rows, and the
 * day rows before and after them (`byDay`: day rows only, for a series drawn day by day).
 */
export function periodParts(from: string, to: string, byDay = false): SQL[] {
  const months = byDay ? [] : wholeMonths(from, to);
  if (months.length === 0) return [dayOnly(from, to)];
  const first = `${months[0]}-01`;
  const afterLast = new Date(monthBounds(months.at(-1)!).end).toISOString().slice(0, 10);
  return [
    sql`${dailyRollups.day} IN (${sql.join(
      months.map((month) => sql`${month}`),
      sql`, `,
    )})`,
    ...(from < first ? [dayOnly(from, shift(first, -1))] : []),
    ...(afterLast <= to ? [dayOnly(afterLast, to)] : []),
  ];
}

/** The rollups' columns a sum may be grouped by. */
export type RollupColumn = 'day' | 'metric' | 'channel_key' | 'key_id';

/**
 * Sums of the values of `[from, to]`'s rows that `scope` selects, grouped by some columns: one
 * index range per part of the period (periodParts), added up in one statement.
 */
export function sumsOver(
  db: Database,
  query: { scope: SQL; from: string; to: string; byDay?: boolean; columns: RollupColumn[] },
) {
  const columns = sql.raw(query.columns.join(', '));
  const parts = periodParts(query.from, query.to, query.byDay).map(
    (part) => sql`SELECT ${columns}, value FROM ${dailyRollups} WHERE ${query.scope} AND ${part}`,
  );
  return db.all<Record<RollupColumn, string> & { value: number }>(
    sql`SELECT ${columns}, sum(value) AS value FROM (${sql.join(parts, sql` UNION ALL `)}) GROUP BY ${columns}`,
  );
}

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
  const column = ({ day: 'day', channel: 'channel_key', key: 'key_id', metric: 'metric' } as const)[query.groupBy];
  const rows = await sumsOver(db, {
    scope: and(
      eq(dailyRollups.workspaceId, query.workspaceId),
      inArray(dailyRollups.metric, query.metrics),
      ...(query.channelKey !== undefined ? [eq(dailyRollups.channelKey, query.channelKey)] : []),
    )!,
    from: query.from,
    to: query.to,
    byDay: query.groupBy === 'day',
    columns: column === 'metric' ? ['metric'] : [column, 'metric'],
  });
  return rows
    .map((row) => ({ group: row[column], metric: row.metric, value: Number(row.value) }))
    .sort((a, b) => a.group.localeCompare(b.group));
}
