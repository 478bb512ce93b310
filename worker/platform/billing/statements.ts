/**
 * Statements (docs/design/billing.md): when a calendar month closes, each escrow that was in use
 * gets one statement of it, read from the ledger and the contract's meters: opening balance,
 * credits, charges, fees, refunds, closing balance, and each meter's use against its allowance.
 * The cron sweep issues them; its id is made of the escrow and the month, so a second run issues
 * nothing, and its `statement.issued` event and emails are written only with it.
 */
import { and, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { type Database, schema } from '../../lib/db';
import { monthBounds } from '../../lib/periods';
import { type CsvCell, csvDocument } from '../../lib/csv';
import { eventsFromRows } from '../events';
import { holdsOrganizations } from '../shards';
import { billingNoticeInserts } from '../email';
import type { StatementView } from './schemas';

const { statements, escrows, contracts, ledgerEntries, usageMeters } = schema;

/** How many statements one sweep issues at most (the rest follow on the next ticks). */
export const STATEMENTS_PER_TICK = 200;

/** The statement of an escrow for a month has this id, whoever issues it. */
const statementId = (escrow: SQL, period: string) =>
  sql`'stm_' || substr(${escrow}, 5) || '_' || ${period.replace('-', '')}`;

type StatementRow = typeof statements.$inferSelect;

/** A statement as the APIs show it. */
export function statementView(row: StatementRow): StatementView {
  return {
    statement_id: row.id,
    escrow_id: row.escrowId,
    contract_id: row.contractId,
    period: row.period,
    currency: row.currency,
    opening_minor: row.openingMinor,
    credits_minor: row.creditsMinor,
    charges_minor: row.chargesMinor,
    fees_minor: row.feesMinor,
    refunds_minor: row.refundsMinor,
    closing_minor: row.closingMinor,
    meters: row.meters,
    issued_at: new Date(row.issuedAt).toISOString(),
  };
}

/**
 * The month's statements not issued yet, with their events and emails, in one batch: escrows
 * that existed by the month's end, whose contract was in force in it (a provider's: always). An
 * escrow whose organisation moved shards this month opens with the balance carried over (its
 * earlier entries stay on the old shard's ledger), so the statement still adds up.
 */
export function issueStatements(db: Database, period: string, now: number): BatchItem<'sqlite'>[] {
  const { start, end } = monthBounds(period);
  const inPeriod = sql`created_at >= ${start} AND created_at < ${end}`;
  const sumOf = (kind: string, sign: 1 | -1) =>
    sql`coalesce((SELECT ${sign} * sum(amount_minor) FROM ${ledgerEntries} WHERE account = e.id AND kind = ${kind} AND
      ${inPeriod}), 0)`;
  const balanceBefore = (at: number) =>
    sql`coalesce((SELECT balance_after FROM ${ledgerEntries} WHERE account = e.id AND created_at < ${at} ORDER BY seq
      DESC LIMIT 1), 0)`;
  // A contract's meters are its organisation's (the directory has experts' escrows, which have none).
  const meters = !holdsOrganizations(db)
    ? sql`'[]'`
    : sql`coalesce((SELECT json_group_array(json_object('meter', u.meter, 'used', u.used, 'included',
      u.included, 'overage', max(0, u.used - u.included), 'charged_minor', coalesce((SELECT -sum(amount_minor) FROM
      ${ledgerEntries} l WHERE l.account = e.id AND l.kind = 'charge' AND l.meter = u.meter AND l.created_at >= ${start}
      AND l.created_at < ${end}), 0)))
    FROM ${usageMeters} u WHERE u.kind = 'contract' AND u.key_id = e.contract_id AND u.period = ${period}), '[]')`;
  // The escrows due a statement of this month, and not issued one yet (at most STATEMENTS_PER_TICK).
  const due = sql`FROM ${escrows} e LEFT JOIN ${contracts} c ON c.id = e.contract_id
    WHERE e.created_at < ${end}
      AND (e.owner_kind = 'provider' OR (c.starts_at < ${end} AND (c.ends_at IS NULL OR c.ends_at > ${start})))
      AND NOT EXISTS (SELECT 1 FROM ${statements} s WHERE s.id = ${statementId(sql`e.id`, period)})
    ORDER BY e.id LIMIT ${STATEMENTS_PER_TICK}`;
  // Its event and emails first: they select the same escrows the insert then issues (one transaction).
  const announced = sql`FROM (SELECT e.id AS escrow_id, e.owner_kind, e.owner_id AS workspace_id, e.contract_id,
      e.currency, ${balanceBefore(start)} AS opening, ${balanceBefore(end)} AS closing ${due}) AS d
    WHERE d.owner_kind = 'workspace'`;
  return [
    // A workspace escrow's event, on its organisation's shard (the directory holds only experts' escrows).
    ...(holdsOrganizations(db)
      ? [
          eventsFromRows(
            db,
            'statement.issued',
            {
              from: announced,
              workspaceId: sql`d.workspace_id`,
              data: sql`json_object('statement_id', ${statementId(sql`d.escrow_id`, period)}, 'escrow_id', d.escrow_id,
            'contract_id', d.contract_id, 'period', ${period}, 'currency', d.currency, 'opening_minor', d.opening,
            'closing_minor', d.closing, 'issued_at', ${new Date(now).toISOString()})`,
            },
            now,
          ),
        ]
      : []),
    billingNoticeInserts(
      db,
      {
        from: sql`FROM (SELECT e.id AS escrow_id, e.owner_kind, e.owner_id ${due}) AS d`,
        ownerKind: sql`d.owner_kind`,
        ownerId: sql`d.owner_id`,
        subject: sql`${`Your statement for ${period} is ready`}`,
      },
      now,
    ),
    db.run(sql`INSERT INTO ${statements} (id, escrow_id, owner_kind, owner_id, contract_id, period, currency,
        opening_minor, credits_minor, charges_minor, fees_minor, refunds_minor, closing_minor, meters, issued_at)
      SELECT ${statementId(sql`e.id`, period)}, e.id, e.owner_kind, e.owner_id, e.contract_id, ${period}, e.currency,
        ${balanceBefore(start)} + ${sumOf('carry', 1)}, ${sumOf('credit', 1)}, ${sumOf('charge', -1)},
        ${sumOf('lead_fee', -1)},
        ${sumOf('refund', 1)}, ${balanceBefore(end)}, ${meters}, ${now}
      ${due}`),
  ];
}

/** An escrow's statements, newest first. */
export async function listStatements(db: Database, escrowIds: string[]): Promise<StatementView[]> {
  if (escrowIds.length === 0) return [];
  const rows = await db
    .select()
    .from(statements)
    .where(sql`${statements.escrowId} IN (SELECT value FROM json_each(${JSON.stringify(escrowIds)}))`)
    .orderBy(desc(statements.period));
  return rows.map(statementView);
}

/** The escrows of a workspace's contracts, the latest contract first. */
export async function workspaceEscrowIds(db: Database, workspaceId: string): Promise<string[]> {
  const rows = await db
    .select({ id: escrows.id })
    .from(escrows)
    .where(and(eq(escrows.ownerKind, 'workspace'), eq(escrows.ownerId, workspaceId)))
    .orderBy(desc(escrows.createdAt));
  return rows.map((row) => row.id);
}

const CSV_COLUMNS = [
  'statement_id',
  'period',
  'currency',
  'opening_minor',
  'credits_minor',
  'charges_minor',
  'fees_minor',
  'refunds_minor',
  'closing_minor',
  'meter',
  'used',
  'included',
  'overage',
  'meter_charged_minor',
] as const;

/** Statements as CSV (RFC 4180): one line per statement and meter (one with empty meter fields when it has none). */
export function statementsCsv(list: StatementView[]): string {
  const rows: CsvCell[][] = [];
  for (const statement of list) {
    const head = [
      statement.statement_id,
      statement.period,
      statement.currency,
      statement.opening_minor,
      statement.credits_minor,
      statement.charges_minor,
      statement.fees_minor,
      statement.refunds_minor,
      statement.closing_minor,
    ];
    const meters = statement.meters.length > 0 ? statement.meters : [null];
    for (const meter of meters) {
      const tail = meter
        ? [meter.meter, meter.used, meter.included, meter.overage, meter.charged_minor]
        : ['', '', '', '', ''];
      rows.push([...head, ...tail]);
    }
  }
  return csvDocument(CSV_COLUMNS, rows);
}
