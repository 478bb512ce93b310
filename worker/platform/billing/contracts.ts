/**
 * Contracts (docs/design/billing.md): recorded by an admin per workspace, each with its escrow.
 * At most one is in force at a time, the latest whose `starts_at` has come, unless its `ends_at`
 * passed; a later one ends the one before at its own start. Every execution reads the contract in
 * force from a brief in-isolate cache, and its batch re-checks that it still is (the guard's
 * `contract_current`), so a contract recorded or ended through another isolate is never missed.
 */
import { and, desc, eq, gt, isNull, lte, or, sql, type SQL } from 'drizzle-orm';
import { type Database, schema } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { TtlCache } from '../../lib/ttl-cache';
import { CONTRACT_METERS, type ContractMeter } from '../../vocabulary';
import { auditInsert, type AuditContext } from '../audit';
import type { ContractView, NewContract } from './schemas';
import { iso } from '../../lib/periods';

const { contracts, escrows, workspaces } = schema;

/** The threshold of `escrow.low_balance` when the contract names none: 10.00 in a two-decimal currency. */
export const DEFAULT_LOW_BALANCE_MINOR = 1000;

/** One meter's terms: units included a month, and the price past them (null: blocked past them). */
export interface MeterTerms {
  included: number;
  unitPriceMinor: number | null;
}

/** What an execution needs of the contract in force. */
export interface ContractTerms {
  id: string;
  workspaceId: string;
  escrowId: string;
  currency: string;
  reference: string | null;
  startsAt: number;
  endsAt: number | null;
  /** The metered meters only: a meter neither in the allowances nor in the overage is not metered. */
  meters: Partial<Record<ContractMeter, MeterTerms>>;
}

type ContractRow = typeof contracts.$inferSelect;

/** A meter is metered when the contract includes some of it or prices it. */
function termsOf(row: ContractRow): ContractTerms {
  const meters: Partial<Record<ContractMeter, MeterTerms>> = {};
  for (const meter of CONTRACT_METERS) {
    const included = row.allowances[meter];
    const price = row.overage[meter]?.unit_price_minor;
    if (included === undefined && price === undefined) continue;
    meters[meter] = { included: included ?? 0, unitPriceMinor: price ?? null };
  }
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    escrowId: row.escrowId,
    currency: row.currency,
    reference: row.reference,
    startsAt: row.startsAt,
    endsAt: row.endsAt,
    meters,
  };
}

function statusOf(row: Pick<ContractRow, 'startsAt' | 'endsAt'>, now: number): ContractView['status'] {
  if (row.endsAt !== null && row.endsAt <= now) return 'ended';
  return row.startsAt > now ? 'scheduled' : 'in_force';
}

/** A contract as the admin API shows it. */
export function contractView(row: ContractRow, now: number): ContractView {
  return {
    contract_id: row.id,
    workspace_id: row.workspaceId,
    plan: row.plan,
    currency: row.currency,
    starts_at: iso(row.startsAt)!,
    ends_at: iso(row.endsAt),
    reference: row.reference,
    allowances: row.allowances,
    overage: row.overage,
    escrow_id: row.escrowId,
    status: statusOf(row, now),
    created_at: iso(row.createdAt)!,
  };
}

/** The condition "in force at `now`" on the contracts table. */
const inForceAt = (now: number) =>
  and(lte(contracts.startsAt, now), or(isNull(contracts.endsAt), gt(contracts.endsAt, now)));

/**
 * The id of the contract in force, as SQL read inside a batch ('' when none): the guard compares
 * it with the one the execution charges.
 */
export function contractInForceSql(workspaceId: string, now: number): SQL {
  return sql`coalesce((SELECT id FROM ${contracts} WHERE workspace_id = ${workspaceId} AND starts_at <= ${now} AND
    (ends_at IS NULL OR ends_at > ${now}) ORDER BY starts_at DESC LIMIT 1), '')`;
}

/** A workspace's contracts that are or will be in force, briefly cached (the batch's guard re-checks). */
const upcoming = new TtlCache<ContractTerms[]>(30_000, 2_000);

/** The contract in force in a workspace at `now`, if any. */
export async function contractInForce(db: Database, workspaceId: string, now: number): Promise<ContractTerms | null> {
  const list = await upcoming.get(workspaceId, db, async () => {
    const rows = await db
      .select()
      .from(contracts)
      .where(and(eq(contracts.workspaceId, workspaceId), or(isNull(contracts.endsAt), gt(contracts.endsAt, now))))
      .orderBy(desc(contracts.startsAt));
    return rows.map(termsOf);
  });
  return list.find((terms) => terms.startsAt <= now && (terms.endsAt === null || terms.endsAt > now)) ?? null;
}

/** Forgets a workspace's cached contracts (after a change here, or when a batch's guard found them stale). */
export function forgetContracts(workspaceId?: string): void {
  upcoming.clear(workspaceId);
}

/**
 * Records a contract and opens its escrow. It must start after every earlier contract of the
 * workspace has started (409 `contract_overlap`); the one in force until then ends at its start.
 */
export async function createContract(
  db: Database,
  audit: AuditContext,
  input: NewContract,
  now: number,
): Promise<ContractView> {
  const workspace = await db
    .select({ id: workspaces.id })
    .from(workspaces)
    .where(eq(workspaces.id, input.workspace_id))
    .get();
  if (!workspace) throw new ApiError('not_found', `No workspace ${input.workspace_id}.`);
  const startsAt = Date.parse(input.starts_at);
  const endsAt = input.ends_at ? Date.parse(input.ends_at) : null;
  const contractId = newId('ctr', now);
  const escrowId = newId('esc', now);
  const row: ContractRow = {
    id: contractId,
    workspaceId: input.workspace_id,
    plan: input.plan,
    currency: input.currency,
    startsAt,
    endsAt,
    reference: input.reference ?? null,
    allowances: input.allowances,
    overage: input.overage,
    escrowId,
    createdAt: now,
  };
  // Inserted only while no contract of the workspace starts at or after it: a race loses cleanly.
  const noLaterContract = sql`NOT EXISTS (SELECT 1 FROM ${contracts} WHERE workspace_id = ${input.workspace_id} AND
    starts_at >= ${startsAt})`;
  const [inserted] = await db.batch([
    db.all<{
      id: string;
    }>(sql`INSERT INTO ${contracts} (id, workspace_id, plan, currency, starts_at, ends_at, reference,
        allowances, overage, escrow_id, created_at)
      SELECT ${contractId}, ${row.workspaceId}, ${row.plan}, ${row.currency}, ${startsAt}, ${endsAt}, ${row.reference},
        ${JSON.stringify(row.allowances)}, ${JSON.stringify(row.overage)}, ${escrowId}, ${now}
      WHERE ${noLaterContract} RETURNING id`),
    db.all(sql`INSERT INTO ${escrows} (id, owner_kind, owner_id, contract_id, currency, low_balance_minor,
        low_balance_notified, created_at)
      SELECT ${escrowId}, 'workspace', ${row.workspaceId}, ${contractId}, ${row.currency},
        ${input.low_balance_minor ?? DEFAULT_LOW_BALANCE_MINOR}, 0, ${now}
      WHERE EXISTS (SELECT 1 FROM ${contracts} WHERE id = ${contractId})`),
    // The contract before it ends where this one starts.
    db
      .update(contracts)
      .set({ endsAt: startsAt })
      .where(
        and(
          eq(contracts.workspaceId, input.workspace_id),
          sql`${contracts.id} <> ${contractId}`,
          or(isNull(contracts.endsAt), gt(contracts.endsAt, startsAt)),
          sql`EXISTS (SELECT 1 FROM ${contracts} WHERE id = ${contractId})`,
        ),
      ),
    auditInsert(
      db,
      audit,
      {
        action: 'contract.created',
        targetId: contractId,
        workspaceId: input.workspace_id,
        metadata: { plan: input.plan, escrow_id: escrowId, starts_at: input.starts_at },
      },
      now,
    ),
  ]);
  if ((inserted as unknown[]).length === 0) {
    throw new ApiError(
      'contract_overlap',
      `A contract of ${input.workspace_id} starts at or after ${input.starts_at}: a new one must start after it.`,
      { errors: [{ pointer: '/starts_at', detail: 'Not after the latest contract’s start.' }] },
    );
  }
  forgetContracts(input.workspace_id);
  return contractView(row, now);
}

/** A workspace's contracts, newest first. */
export async function listContracts(db: Database, workspaceId: string, now: number): Promise<ContractView[]> {
  const rows = await db
    .select()
    .from(contracts)
    .where(eq(contracts.workspaceId, workspaceId))
    .orderBy(desc(contracts.startsAt));
  return rows.map((row) => contractView(row, now));
}

/** Ends a contract now (a scheduled one never comes into force); an ended one is 409. */
export async function endContract(
  db: Database,
  audit: AuditContext,
  contractId: string,
  now: number,
): Promise<ContractView> {
  const row = await db.select().from(contracts).where(eq(contracts.id, contractId)).get();
  if (!row) throw new ApiError('not_found', `No contract ${contractId}.`);
  if (statusOf(row, now) === 'ended') throw new ApiError('invalid_transition', `Contract ${contractId} has ended.`);
  const endsAt = Math.max(now, row.startsAt);
  await db.batch([
    db
      .update(contracts)
      .set({ endsAt })
      .where(and(eq(contracts.id, contractId), or(isNull(contracts.endsAt), gt(contracts.endsAt, now)))),
    auditInsert(
      db,
      audit,
      { action: 'contract.ended', targetId: contractId, workspaceId: row.workspaceId, metadata: {} },
      now,
    ),
  ]);
  forgetContracts(row.workspaceId);
  return contractView({ ...row, endsAt }, now);
}

/** The contract whose statements and usage a workspace sees: the one in force, else the latest. */
export async function currentContract(db: Database, workspaceId: string, now: number): Promise<ContractRow | null> {
  const inForce = await db
    .select()
    .from(contracts)
    .where(and(eq(contracts.workspaceId, workspaceId), inForceAt(now)))
    .orderBy(desc(contracts.startsAt))
    .get();
  return inForce ?? null;
}
