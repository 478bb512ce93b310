/**
 * The ledger's notices (docs/design/billing.md), found by the cron sweep: a contract's meter past
 * 80% or 100% of its monthly allowance (`usage.threshold_reached`, once per month, meter and
 * threshold), and an escrow below its low-balance threshold (`escrow.low_balance`, once until a
 * credit lifts it again). Each step writes its events and emails, then marks what it told, in one
 * batch: the statements see the same rows, so nothing is told twice or missed.
 */
import { sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { type Database, schema } from '../../lib/db';
import { monthOf } from '../../lib/periods';
import { billingNoticeInserts } from '../email';
import { eventsFromRows } from '../events';
import { holdsOrganizations } from '../shards';
import { balanceOf } from './ledger';

const { usageMeters, contracts, escrows, ledgerEntries } = schema;

/** Allowances nearly (80%) or wholly (100%) used this month, not yet told. */
export function thresholdNotices(db: Database, now: number): BatchItem<'sqlite'>[] {
  const period = monthOf(now);
  const level = sql`(CASE WHEN u.used >= u.included THEN 100 ELSE 80 END)`;
  const crossed = sql`u.kind = 'contract' AND u.period = ${period} AND u.included > 0
    AND u.used * 100 >= u.included * 80 AND u.notified_percent < ${level}`;
  const from = sql`FROM ${usageMeters} u JOIN ${contracts} c ON c.id = u.key_id WHERE ${crossed}`;
  return [
    eventsFromRows(
      db,
      'usage.threshold_reached',
      {
        from,
        workspaceId: sql`c.workspace_id`,
        data: sql`json_object('contract_id', u.key_id, 'meter', u.meter, 'period', u.period, 'percent', ${level},
          'used', u.used, 'included', u.included, 'reached_at', ${new Date(now).toISOString()})`,
      },
      now,
    ),
    billingNoticeInserts(
      db,
      {
        from,
        ownerKind: sql`'workspace'`,
        ownerId: sql`c.workspace_id`,
        subject: sql`'You have used ' || ${level} || '% of the ' || u.included || ' ' || replace(u.meter, '_', ' ') ||
          ' included this month'`,
      },
      now,
    ),
    db.run(sql`UPDATE ${usageMeters} AS u SET notified_percent = ${level} WHERE ${crossed}`),
  ];
}

/** Escrows in use whose balance fell below their threshold, not yet told. */
export function lowBalanceNotices(db: Database, now: number): BatchItem<'sqlite'>[] {
  const low = sql`e.low_balance_notified = 0 AND ${balanceOf(sql`e.id`)} < e.low_balance_minor
    AND EXISTS (SELECT 1 FROM ${ledgerEntries} WHERE account = e.id)`;
  const from = sql`FROM ${escrows} e WHERE ${low}`;
  return [
    // A workspace escrow's event, on its organisation's shard (the directory holds only experts' escrows).
    ...(holdsOrganizations(db)
      ? [
          eventsFromRows(
            db,
            'escrow.low_balance',
            {
              from: sql`${from} AND e.owner_kind = 'workspace'`,
              workspaceId: sql`e.owner_id`,
              data: sql`json_object('escrow_id', e.id, 'contract_id', e.contract_id, 'currency', e.currency,
            'balance_minor', ${balanceOf(sql`e.id`)}, 'low_balance_minor', e.low_balance_minor,
            'noticed_at', ${new Date(now).toISOString()})`,
            },
            now,
          ),
        ]
      : []),
    billingNoticeInserts(
      db,
      {
        from,
        ownerKind: sql`e.owner_kind`,
        ownerId: sql`e.owner_id`,
        subject: sql`'Your balance is low: ' || printf('%.2f', ${balanceOf(sql`e.id`)} / 100.0) || ' ' || e.currency`,
      },
      now,
    ),
    db.run(sql`UPDATE ${escrows} AS e SET low_balance_notified = 1 WHERE ${low}`),
  ];
}
