/**
 * What an execution costs under the contract in force (docs/design/billing.md): rows of the
 * execution's one usage upsert (with the key's own quota row, so counting is one statement). Its
 * CHECK refuses the unit past a blocked allowance; the database's overage trigger
 * (migrations/0018) writes the escrow's debit and the revenue's credit for the units past a priced
 * one in that same statement, and the ledger's CHECK refuses it without the funds. A refusal
 * fails the batch, so nothing of the execution is written.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Database, schema } from '../../lib/db';
import { monthOf } from '../../lib/periods';
import { CONTRACT_METERS, type ContractMeter, METER_UNITS } from '../../vocabulary';
import { contractInForceSql, type ContractTerms, type MeterTerms } from './contracts';
import { balanceOf } from './ledger';

const { usageMeters, escrows } = schema;

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

/** A meter row of this month, as the batch's upsert returns it (a key's row has no `included`). */
export interface MeterRow {
  subject: string;
  meter: string;
  used: number;
  quota: number | null;
  included: number | null;
  unitPriceMinor: number | null;
}

/** One row of the usage upsert: a key's quota or a contract's meter, and what this execution adds. */
export interface MeterIncrement {
  subject: string;
  meter: string;
  period: string;
  used: number;
  quota: number | null;
  kind: 'key' | 'contract';
  included: number | null;
  unitPriceMinor: number | null;
  escrowId: string | null;
  currency: string | null;
  lastRef: string | null;
  updatedAt: number;
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
  row: { used: number; included: number | null; unitPriceMinor: number | null },
  currency: string,
): ContractUsageLine {
  return {
    meter,
    quantity,
    unit: METER_UNITS[meter],
    source: 'contract',
    limit: row.included ?? 0,
    remaining: Math.max(0, (row.included ?? 0) - row.used),
    charged_minor: overageUnits(row.used, row.included ?? 0, quantity) * (row.unitPriceMinor ?? 0),
    currency,
  };
}

const meterRow = (contractId: string, meter: ContractMeter, period: string) =>
  sql`FROM ${usageMeters} WHERE key_id = ${contractId} AND meter = ${meter} AND period = ${period}`;

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
    // A held escrow (a disputed card payment) pays nothing: as if it held no funds.
    const funded =
      costs.length > 0
        ? sql`${balanceOf(this.contract.escrowId)} >= (${sql.join(costs, sql` + `)}) AND NOT EXISTS (SELECT 1
          FROM ${escrows} WHERE id = ${this.contract.escrowId} AND held_at IS NOT NULL)`
        : sql`1`;
    return sql`(CASE WHEN ${sql.join([...blocked, funded], sql` AND `)} THEN 1 ELSE 0 END)`;
  }

  /** The lines this execution adds to `usage_applications`, as placeholders the batch fills in. */
  lines(quantities: MeterQuantities): ContractUsageLine[] {
    return chargedMeters(this.contract, quantities).map(({ meter, quantity, terms }) =>
      usageLine(meter, quantity, { used: 0, included: terms.included, unitPriceMinor: terms.unitPriceMinor }, ''),
    );
  }

  /**
   * The usage upsert's rows for the contract's meters this execution moves: a blocked meter's
   * allowance is its hard `quota`; a priced one's overage is the trigger's to charge, with this
   * execution as its reference.
   */
  increments(quantities: MeterQuantities, executionId: string): MeterIncrement[] {
    const { contract, now, period } = this;
    return chargedMeters(contract, quantities).map(({ meter, quantity, terms }) => ({
      subject: contract.id,
      meter,
      period,
      used: quantity,
      quota: terms.unitPriceMinor === null ? terms.included : null,
      kind: 'contract',
      included: terms.included,
      unitPriceMinor: terms.unitPriceMinor,
      escrowId: contract.escrowId,
      currency: contract.currency,
      lastRef: executionId,
      updatedAt: now,
    }));
  }

  /**
   * One meter's charge outside an execution (a held lead offered later): the same upsert, its
   * CHECKs and overage trigger included, written only when `when` holds (the change it pays for
   * went in), with `ref` as the ledger's reference.
   */
  chargeWhen(db: Database, meter: ContractMeter, ref: string, when: SQL) {
    const [increment] = this.increments({ executions: 0, leads: 0, agent_calls: 0, [meter]: 1 }, ref);
    if (!increment) return undefined;
    const { subject, period, used, quota, included, unitPriceMinor, escrowId, currency, lastRef, updatedAt } =
      increment;
    return db.run(sql`INSERT INTO ${usageMeters}
      (key_id, meter, period, used, quota, kind, included, unit_price_minor, escrow_id, currency, last_ref, updated_at)
      SELECT ${subject}, ${meter}, ${period}, ${used}, ${quota}, 'contract', ${included}, ${unitPriceMinor},
        ${escrowId}, ${currency}, ${lastRef}, ${updatedAt} WHERE ${when}
      ON CONFLICT (key_id, meter, period) DO UPDATE SET used = used + excluded.used, quota = excluded.quota,
        last_ref = excluded.last_ref, updated_at = excluded.updated_at`);
  }

  /** Fills the envelope's contract lines (from `first`) with what the batch's upsert returned. */
  fill(lines: Array<{ meter: string; quantity: number; source: string }>, first: number, rows: MeterRow[]): void {
    for (const [offset, line] of lines.slice(first).entries()) {
      const row = rows.find((candidate) => candidate.subject === this.contract.id && candidate.meter === line.meter);
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
      .from(usageMeters)
      .where(sql`${usageMeters.subject} = ${this.contract.id} AND ${usageMeters.period} = ${this.period}`);
    const usedOf = (meter: string) => rows.find((row) => row.meter === meter)?.used ?? 0;
    const full = charged.find(({ meter, quantity, terms }) => usedOf(meter) + quantity > terms.included);
    const blocked = charged.find(
      ({ meter, quantity, terms }) => terms.unitPriceMinor === null && usedOf(meter) + quantity > terms.included,
    );
    return (blocked ?? full ?? charged[0])?.meter ?? 'executions';
  }
}
