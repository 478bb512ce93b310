/**
 * The ledger's part of the cron sweep (docs/design/billing.md): the notices, and at a month's
 * close the statements of the month before, all in one batch. Every step is idempotent: a second
 * run in the same minute finds nothing left to do.
 */
import type { Database } from '../../lib/db';
import { monthOf, previousMonth } from '../../lib/periods';
import { lowBalanceNotices, thresholdNotices } from './notices';
import { issueStatements } from './statements';

/** One tick of the ledger's sweep. */
export async function sweepBilling(db: Database, now: number): Promise<void> {
  const closed = previousMonth(monthOf(now));
  const [first, ...rest] = [
    ...thresholdNotices(db, now),
    ...lowBalanceNotices(db, now),
    ...issueStatements(db, closed, now),
  ];
  await db.batch([first!, ...rest]);
}
