/**
 * A workspace's usage (docs/design/billing.md): this month's meters against the contract in force
 * (live, from the contract's own counters), its escrow's balance, and what was used and charged
 * over a range of days, by day, meter, channel or key (from the daily rollups: at most a minute
 * behind, and a few hundred rows whatever the history).
 */
import { and, eq } from 'drizzle-orm';
import { type Database, schema } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { dayOf, daysBetween, monthOf } from '../../lib/periods';
import { CONTRACT_METERS, type ContractMeter } from '../../vocabulary';
import { chargedMetricsIn, rollupSums } from '../rollups';
import { currentContract } from './contracts';
import { balances } from './ledger';
import type { UsageView } from './schemas';

const { usageMeters } = schema;

/** The longest range a usage query may span. */
export const MAX_RANGE_DAYS = 366;

/** The range a query asks for: `to` defaults to today, `from` to the first of `to`'s month. */
export function usageRange(query: { from?: string; to?: string }, now: number): { from: string; to: string } {
  const to = query.to ?? dayOf(now);
  const from = query.from ?? `${to.slice(0, 7)}-01`;
  const days = (Date.parse(to) - Date.parse(from)) / 86_400_000 + 1;
  if (days < 1)
    throw new ApiError('validation_failed', '`from` must not be after `to`.', {
      errors: [{ pointer: '/from', detail: 'After `to`.' }],
    });
  if (days > MAX_RANGE_DAYS)
    throw new ApiError('validation_failed', `A range spans at most ${MAX_RANGE_DAYS} days.`, {
      errors: [{ pointer: '/from', detail: `More than ${MAX_RANGE_DAYS} days before \`to\`.` }],
    });
  return { from, to };
}

type Row = UsageView['rows'][number];
const emptyRow = (group: string): Row => ({ group, executions: 0, leads: 0, agent_calls: 0, charged_minor: 0 });

/** The usage view of a workspace. */
export async function usageView(
  db: Database,
  workspaceId: string,
  query: { from?: string; to?: string; group_by: UsageView['group_by'] },
  now: number,
): Promise<UsageView> {
  const period = usageRange(query, now);
  const contract = await currentContract(db, workspaceId, now);
  const groupBy = query.group_by === 'meter' ? 'metric' : query.group_by;
  const [counters, sums, balance] = await Promise.all([
    contract
      ? db
          .select()
          .from(usageMeters)
          .where(and(eq(usageMeters.subject, contract.id), eq(usageMeters.period, monthOf(now))))
      : Promise.resolve([]),
    rollupSums(db, {
      workspaceId,
      ...period,
      // Charges in the contract's currency: the view's one currency.
      metrics: [...CONTRACT_METERS, ...(contract ? chargedMetricsIn(contract.currency) : [])],
      groupBy,
    }),
    contract ? balances(db, [contract.escrowId]) : Promise.resolve(new Map<string, number>()),
  ]);
  const meters = contract
    ? CONTRACT_METERS.filter(
        (meter) => contract.allowances[meter] !== undefined || contract.overage[meter] !== undefined,
      ).map((meter) => {
        const row = counters.find((counter) => counter.meter === meter);
        const used = row?.used ?? 0;
        const included = row?.included ?? contract.allowances[meter] ?? 0;
        const overage = Math.max(0, used - included);
        const price = row ? row.unitPriceMinor : (contract.overage[meter]?.unit_price_minor ?? null);
        return { meter, used, included, overage, charged_minor: overage * (price ?? 0) };
      })
    : [];
  const rows = new Map<string, Row>();
  if (query.group_by === 'day') for (const day of daysBetween(period.from, period.to)) rows.set(day, emptyRow(day));
  for (const { group, metric, value } of sums) {
    // By meter, each meter is its own row: its count, and what its overage was charged.
    const [name, meterOfCharge] = metric.split('.') as [string, ContractMeter | undefined];
    const key = query.group_by === 'meter' ? (meterOfCharge ?? name) : group;
    const row = rows.get(key) ?? emptyRow(key);
    if (name === 'charged_minor') row.charged_minor += value;
    else row[name as ContractMeter] += value;
    rows.set(key, row);
  }
  return {
    workspace_id: workspaceId,
    contract_id: contract?.id ?? null,
    currency: contract?.currency ?? null,
    period,
    balance_minor: contract ? (balance.get(contract.escrowId) ?? 0) : null,
    meters,
    group_by: query.group_by,
    rows: [...rows.values()],
  };
}
