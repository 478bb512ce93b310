/**
 * The ledger's part of the cron sweep (docs/design/billing.md): the notices, and at a month's
 * close the statements of the month before, in a batch per database. Every step is idempotent: a second
 * run in the same minute finds nothing left to do.
 */
import { databasesHolding } from '../shards';
import { type Database, schema } from '../../lib/db';
import { monthOf, previousMonth } from '../../lib/periods';
import { lowBalanceNotices, thresholdNotices } from './notices';
import { issueStatements } from './statements';

/** One tick of the ledger's sweep. */
export async function sweepBilling(db: Database, now: number): Promise<void> {
  const closed = previousMonth(monthOf(now));
  // The allowances' meters are the organisations' (their shards); escrows are also the experts'
  // (the directory): each database's own, in a batch per database.
  for (const each of databasesHolding(db, schema.usageMeters)) {
    const [first, ...rest] = thresholdNotices(each, now);
    await each.batch([first!, ...rest]);
  }
  for (const each of databasesHolding(db, schema.escrows)) {
    const [first, ...rest] = [...lowBalanceNotices(each, now), ...issueStatements(each, closed, now)];
    await each.batch([first!, ...rest]);
  }
}
