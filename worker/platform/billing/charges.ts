/**
 * What an execution costs under the contract in force (docs/design/billing.md), as statements of
 * the execution's own batch: one upsert counts every meter it moves this month (its CHECK refuses
 * the unit past a blocked allowance), and one transfer debits the escrow for the units past an
 * allowance at the overage price (the ledger's CHECK refuses it without the funds). A refusal
 * fails the batch, so nothing of the execution is written. Two statements, whatever the history.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { type Database, schema } from '../../lib/db';
import { monthOf } from '../../lib/periods';
import { CONTRACT_METERS, type ContractMeter, METER_UNITS } from '../../lib/vocabulary';
import { contractInForceSql, type ContractTerms, type MeterTerms } from './contracts';
import { balanceOf, revenueAccount, transferInsert } from './ledger';

const { contractUsage } = schema;

/** How many units of each meter an execution moves. */
export type MeterQuantities = Record<ContractMeter, number>;

/** A contract's line of the envelope's `usage_applications`. */
export interface ContractUsageLine {
  meter: ContractMeter;
  quantity: number;
  unit: string;
  source: 'contract';
  limit: number;
  remaining: number;
  charged_minor: number;
  currency: string;
}

/** A meter row of this month, as the batch's upsert returns it. */
export interface MeterRow {
  meter: string;
  used: number;
  included: number;
  unitPriceMinor: number | null;
}

/** The meters this execution moves that the contract meters, in the order of CONTRACT_METERS. */
function chargedMeters(contract: ContractTerms, quantities: MeterQuantities) {
  return CONTRACT_METERS.filter((meter) => contract.meters[meter] && quantities[meter] > 0).map((meter) => ({
    meter,
    quantity: quantities[meter],
    terms: contract.meters[meter] as MeterTerms,
  }));
}

/** Units past the allowance among this execution's `quantity`, given the month's count after it. */
export function overageUnits(used: number, included: number, quantity: number): number {
  return Math.min(quantity, Math.max(0, used - included));
}

/** The envelope line of a meter, once the batch has counted it. */
export function usageLine(
  meter: ContractMeter,
  quantity: number,
  row: Pick<MeterRow, 'used' | 'included' | 'unitPriceMinor'>,
  currency: string,
): ContractUsageLine {
  return {
    meter,
    quantity,
    unit: METER_UNITS[meter],
    source: 'contract',
    limit: row.included,
    remaining: Math.max(0, row.included - row.used),
    charged_minor: overageUnits(row.used, row.included, quantity) * (row.unitPriceMinor ?? 0),
    currency,
  };
}

const meterRow = (contractId: string, meter: ContractMeter, period: string) =>
  sql`FROM ${contractUsage} WHERE contract_id = ${contractId} AND meter = ${meter} AND period = ${period}`;

/** One execution's charge under a contract: its statements, its envelope lines, and how to fill them in. */
export class ContractCharge {
  private readonly period: string;

  constructor(
    readonly contract: ContractTerms,
    private readonly now: number,
  ) {
    this.period = monthOf(now);
  }

  /** The guard's check that this is still the contract in force (1 or 0, read in the batch). */
  currentSql(): SQL {
    return sql`(${contractInForceSql(this.contract.workspaceId, this.now)} = ${this.contract.id})`;
  }

  /**
   * Before an agent call (which has effects outside D1): 1 when each of these meters has room for
   * one more unit, or its overage price is covered by the escrow; 0 otherwise.
   */
  roomSql(meters: ContractMeter[]): SQL {
    const charged = chargedMeters(this.contract, Object.fromEntries(meters.map((m) => [m, 1])) as MeterQuantities);
    if (charged.length === 0) return sql`1`;
    const usedOf = (meter: ContractMeter) =>
      sql`coalesce((SELECT used ${meterRow(this.contract.id, meter, this.period)}), 0)`;
    const blocked = charged
      .filter(({ terms }) => terms.unitPriceMinor === null)
      .map(({ meter, terms }) => sql`${usedOf(meter)} < ${terms.included}`);
    const costs = charged
      .filter(({ terms }) => terms.unitPriceMinor !== null)
      .map(
        ({ meter, terms }) =>
          sql`CASE WHEN ${usedOf(meter)} >= ${terms.included} THEN ${terms.unitPriceMinor} ELSE 0 END`,
      );
    const funded =
      costs.length > 0 ? sql`${balanceOf(this.contract.escrowId)} >= (${sql.join(costs, sql` + `)})` : sql`1`;
    return sql`(CASE WHEN ${sql.join([...blocked, funded], sql` AND `)} THEN 1 ELSE 0 END)`;
  }

  /** The lines this execution adds to `usage_applications`, as placeholders the batch fills in. */
  lines(quantities: MeterQuantities): ContractUsageLine[] {
    return chargedMeters(this.contract, quantities).map(({ meter, quantity, terms }) =>
      usageLine(meter, quantity, { used: 0, included: terms.included, unitPriceMinor: terms.unitPriceMinor }, ''),
    );
  }

  /** The batch's statements: the month's meters, then the escrow's debit for what is past an allowance. */
  writes(db: Database, quantities: MeterQuantities, executionId: string): BatchItem<'sqlite'>[] {
    const charged = chargedMeters(this.contract, quantities);
    if (charged.length === 0) return [];
    const { contract, now, period } = this;
    const values = charged.map(
      ({ meter, quantity, terms }) =>
        sql`(${contract.id}, ${meter}, ${period}, ${quantity}, ${terms.included}, ${terms.unitPriceMinor}, 0, ${now})`,
    );
    const upsert = db.all<MeterRow>(sql`INSERT INTO ${contractUsage} (contract_id, meter, period, used, included,
        unit_price_minor, notified_percent, updated_at)
      VALUES ${sql.join(values, sql`, `)}
      ON CONFLICT (contract_id, meter, period) DO UPDATE SET used = used + excluded.used,
        updated_at = excluded.updated_at
      RETURNING meter, used, included, unit_price_minor AS "unitPriceMinor"`);
    const priced = charged.filter(({ terms }) => terms.unitPriceMinor !== null);
    if (priced.length === 0) return [upsert];
    const legs = priced.flatMap(({ meter, quantity }) => {
      const units = sql`(SELECT min(${quantity}, max(0, used - included)) ${meterRow(contract.id, meter, period)})`;
      const amount = sql`(SELECT min(${quantity}, max(0, used - included)) * unit_price_minor
        ${meterRow(contract.id, meter, period)})`;
      const common = {
        kind: 'charge' as const,
        meter,
        quantity: units,
        ref: executionId,
        workspaceId: contract.workspaceId,
      };
      return [
        { ...common, account: contract.escrowId, accountKind: 'escrow' as const, amount: sql`-${amount}` },
        { ...common, account: revenueAccount(contract.currency), accountKind: 'revenue' as const, amount },
      ];
    });
    return [upsert, transferInsert(db, { currency: contract.currency, legs }, now)];
  }

  /** Fills the envelope's contract lines (from `first`) with what the batch's upsert returned. */
  fill(lines: Array<{ meter: string; quantity: number; source: string }>, first: number, rows: MeterRow[]): void {
    for (const [offset, line] of lines.slice(first).entries()) {
      const row = rows.find((candidate) => candidate.meter === line.meter);
      if (!row || line.source !== 'contract') continue;
      Object.assign(
        lines[first + offset]!,
        usageLine(row.meter as ContractMeter, line.quantity, row, this.contract.currency),
      );
    }
  }

  /**
   * The same filling as SQL over the stored response's JSON (an idempotent replay sends what the
   * batch stored), reading the month's meters after this execution's upsert.
   */
  fillSql(body: SQL, first: number, quantities: MeterQuantities): SQL {
    const { contract, period } = this;
    return chargedMeters(contract, quantities).reduce((json, { meter, quantity }, index) => {
      const at = `$.usage_applications[${first + index}]`;
      const row = meterRow(contract.id, meter, period);
      return sql`json_set(${json}, ${`${at}.remaining`}, (SELECT max(0, included - used) ${row}),
        ${`${at}.charged_minor`}, (SELECT min(${quantity}, max(0, used - included)) * coalesce(unit_price_minor, 0)
        ${row}), ${`${at}.currency`}, ${contract.currency})`;
    }, body);
  }

  /** After a refusal: the meter it was for (the first blocked one used up, else the first past its allowance). */
  async refusedMeter(db: Database, quantities: MeterQuantities): Promise<ContractMeter> {
    const charged = chargedMeters(this.contract, quantities);
    const rows = await db
      .select()
      .from(contractUsage)
      .where(sql`${contractUsage.contractId} = ${this.contract.id} AND ${contractUsage.period} = ${this.period}`);
    const usedOf = (meter: string) => rows.find((row) => row.meter === meter)?.used ?? 0;
    const full = charged.find(({ meter, quantity, terms }) => usedOf(meter) + quantity > terms.included);
    const blocked = charged.find(
      ({ meter, quantity, terms }) => terms.unitPriceMinor === null && usedOf(meter) + quantity > terms.included,
    );
    return (blocked ?? full ?? charged[0])?.meter ?? 'executions';
  }
}
