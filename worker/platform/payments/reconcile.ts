/**
 * The admin's view of money in (docs/design/billing.md#card-top-ups): the latest payments with the
 * ledger transfer each made, and per day and currency what Stripe's events credited and refunded
 * against what the ledger holds for them, with any difference named.
 */
import { readEveryShard } from '../shards';
import { sql } from 'drizzle-orm';
import type { Database } from '../../lib/db';
import { schema } from '../../lib/db';

const { payments, paymentEvents, transfers } = schema;

/** One payment as the admin lists it. */
export interface AdminPaymentRow {
  payment_id: string;
  escrow_id: string;
  owner: string;
  status: string;
  amount_minor: number;
  refunded_minor: number;
  currency: string;
  created_at: number;
  transfer_id: string | null;
}

/** One day and currency of the reconciliation. */
export interface ReconciliationRow {
  day: string;
  currency: string;
  processor_credits_minor: number;
  ledger_credits_minor: number;
  processor_refunds_minor: number;
  ledger_refunds_minor: number;
  /** What does not match, in words; null when both sides agree. */
  difference: string | null;
}

/** One day and currency of one side: what it credited and refunded. */
type DayTotals = { day: string; currency: string; credits: number; refunds: number };

const dayOf = (column: unknown) => sql`strftime('%Y-%m-%d', ${column} / 1000, 'unixepoch')`;

/** Payments a page of the admin's list holds. */
const PAGE = 50;

/**
 * A page of payments, newest first (`before`: the last id of the page before), whether older ones
 * remain, and the last `days` days' reconciliation.
 */
export async function paymentsOverview(db: Database, now: number, options: { before?: string; days?: number } = {}) {
  const since = now - (options.days ?? 14) * 86_400_000;
  const before = options.before?.startsWith('pay_') ? options.before : null;
  // Each database's payments (a workspace's on its shard, an expert's in the directory), merged.
  const everyShard = await readEveryShard(db, payments, (each) =>
    Promise.all([
      each.all<AdminPaymentRow>(sql`SELECT p.id AS payment_id, p.escrow_id,
        coalesce(p.workspace_id, p.provider_id) AS owner, p.status, p.amount_minor, p.refunded_minor, p.currency,
        p.created_at,
        (SELECT t.id FROM ${transfers} t WHERE t.ref = 'stripe:' || p.checkout_session_id AND t.kind = 'credit')
          AS transfer_id
      FROM ${payments} p WHERE ${before === null ? sql`1` : sql`p.id < ${before}`}
      ORDER BY p.id DESC LIMIT ${PAGE + 1}`),
      each.all<DayTotals>(sql`SELECT ${dayOf(sql`created_at`)} AS day,
        currency, coalesce(sum(CASE WHEN outcome = 'credited' THEN amount_minor END), 0) AS credits,
        coalesce(sum(CASE WHEN type = 'charge.refunded' AND outcome IN ('refunded', 'refused')
          THEN amount_minor END), 0) AS refunds
      FROM ${paymentEvents} WHERE created_at >= ${since} AND currency IS NOT NULL GROUP BY day, currency`),
      // Card money in the ledger: credits whose reference is Stripe's (`stripe:…`), in and back out.
      each.all<DayTotals>(sql`SELECT ${dayOf(sql`created_at`)} AS day,
        currency, coalesce(sum(CASE WHEN to_account LIKE 'esc_%' THEN amount_minor END), 0) AS credits,
        coalesce(sum(CASE WHEN from_account LIKE 'esc_%' THEN amount_minor END), 0) AS refunds
      FROM ${transfers} WHERE kind = 'credit' AND ref >= 'stripe:' AND ref < 'stripe;' AND created_at >= ${since}
      GROUP BY day, currency`),
    ]),
  );
  const latest = everyShard
    .flatMap(([rows]) => rows)
    .sort((a, b) => (a.payment_id < b.payment_id ? 1 : -1))
    .slice(0, PAGE + 1);
  const processor = summedByDay(everyShard.flatMap(([, rows]) => rows));
  const ledger = summedByDay(everyShard.flatMap(([, , rows]) => rows));
  const key = (row: { day: string; currency: string }) => `${row.day} ${row.currency}`;
  const keys = [...new Set([...processor, ...ledger].map(key))].sort().reverse();
  const reconciliation: ReconciliationRow[] = keys.map((at) => {
    const fromStripe = processor.find((row) => key(row) === at);
    const inLedger = ledger.find((row) => key(row) === at);
    const [day, currency] = at.split(' ') as [string, string];
    const row = {
      day,
      currency,
      processor_credits_minor: fromStripe?.credits ?? 0,
      ledger_credits_minor: inLedger?.credits ?? 0,
      processor_refunds_minor: fromStripe?.refunds ?? 0,
      ledger_refunds_minor: inLedger?.refunds ?? 0,
    };
    const gaps = [
      row.processor_credits_minor !== row.ledger_credits_minor ? 'credits differ' : null,
      row.processor_refunds_minor !== row.ledger_refunds_minor ? 'refunds differ' : null,
    ].filter(Boolean);
    return { ...row, difference: gaps.length > 0 ? gaps.join(', ') : null };
  });
  return {
    latest: latest.slice(0, PAGE),
    olderFrom: latest.length > PAGE ? latest[PAGE - 1]!.payment_id : null,
    reconciliation,
  };
}

/** Day totals of several databases, added up per day and currency. */
function summedByDay(rows: DayTotals[]): DayTotals[] {
  const sums = new Map<string, DayTotals>();
  for (const row of rows) {
    const at = `${row.day} ${row.currency}`;
    const sum = sums.get(at) ?? { ...row, credits: 0, refunds: 0 };
    sums.set(at, { ...sum, credits: sum.credits + row.credits, refunds: sum.refunds + row.refunds });
  }
  return [...sums.values()];
}
