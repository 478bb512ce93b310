/**
 * Moving an organisation to another shard (docs/design/scale.md#moves), one step at a time, each
 * step's progress recorded on its placement in the directory, so that a crash anywhere resumes
 * where the last recorded step left off (every step can run again without changing what it did):
 *
 * 1. `frozen`: its writes are refused (503, Retry-After) from now; the move waits until no isolate
 *    can still hold its placement from before (PLACEMENT_CACHE_MS) nor a request begun before it.
 * 2. `settle`: the old shard's rollups count what they have not, so nothing copied is counted twice.
 * 3. `copy`: every table of MOVED_TABLES, page by page, written once on the new shard.
 * 4. `carry`: each escrow's balance leaves the old shard's ledger and enters the new shard's,
 *    through a clearing account that sums to nothing across the platform (the ledger is
 *    append-only: its history stays where it was written).
 * 5. `verify`: the rows of each table and the escrows' balances agree; else the copy runs again.
 * 6. `switch`: the placement names the new shard; writes are accepted there.
 * 7. `cleanup`: once no isolate can read the old placement, the old rows are deleted, page by page.
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import type { Services } from '../../lib/services';
import { rollUp } from '../rollups';
import { forgetPlacements, MOVING_PLACEMENT_CACHE_MS, PLACEMENT_CACHE_MS } from '../shards';
import { type MovedTable, METER_PRICES, MOVED_TABLES, organizationRows, type Rows, insertStatement } from './plan';
import { rawAll, rawBatch, rawRun, uncounted } from './statements';

/** Longer than any request that read the placement before the freeze still runs (and may write). */
const REQUEST_GRACE_MS = 30_000;
/**
 * After the switch, only reads can still reach the old shard (its writes were refused): a short
 * margin past the moving placement's cache, so the old shard's sweeps act on the old rows as
 * briefly as can be.
 */
const READ_GRACE_MS = 3_000;
/** Rows a page copies or deletes, and pages a call does before it answers. */
const PAGE_ROWS = 200;
const PAGES_PER_CALL = 25;

type Step = 'frozen' | 'settle' | 'copy' | 'carry' | 'verify' | 'cleanup';

/** A move's progress, as its placement records it (`move_step`, JSON). */
interface Progress {
  step: Step;
  from: number;
  to: number;
  /** When it began: the carried transfers' ids name it, so a move back later is another. */
  startedAt: number;
  /** When the current step began (the freeze's and the switch's waits count from it). */
  since: number;
  /** The copy's or the cleanup's table (index into MOVED_TABLES) and the last key it did. */
  table: number;
  after: unknown[] | null;
}

/** What one call did, and what the caller does next. */
export interface MoveReport {
  organization_id: string;
  from_shard: number;
  to_shard: number;
  step: Step | 'done';
  /** When to call again, if the move waits (for caches to expire). */
  retry_after_ms: number;
  /** The tables whose rows did not agree at the last verification, with both counts. */
  mismatches: Array<{ table: string; source: number; target: number }>;
}

type MoveServices = Pick<Services, 'db' | 'onShard' | 'shardCount'>;

/**
 * Advances the organisation's move to shard `to` (starting it if none runs) as far as it can in
 * one call: until it must wait, or has done a call's pages. Call again until `step` is 'done'.
 */
export async function advanceMove(
  services: MoveServices,
  organizationId: string,
  to: number,
  now: number,
): Promise<MoveReport> {
  let progress = await startOrResume(services, organizationId, to, now);
  const report = (step: Step | 'done', wait = 0, mismatches: MoveReport['mismatches'] = []): MoveReport => ({
    organization_id: organizationId,
    from_shard: progress.from,
    to_shard: progress.to,
    step,
    retry_after_ms: wait,
    mismatches,
  });
  const move = new OrganizationMove(services, organizationId, progress);
  let pages = 0;
  for (;;) {
    const { step } = progress;
    if (step === 'frozen' || step === 'cleanup') {
      const wait =
        progress.since +
        (step === 'frozen' ? PLACEMENT_CACHE_MS + REQUEST_GRACE_MS : MOVING_PLACEMENT_CACHE_MS + READ_GRACE_MS) -
        now;
      if (wait > 0) return report(step, wait);
    }
    if (step === 'frozen') progress = await move.record({ ...progress, step: 'settle', since: now });
    else if (step === 'settle') {
      await move.settle();
      progress = await move.record({ ...progress, step: 'copy', since: now, table: 0, after: null });
    } else if (step === 'copy' || step === 'cleanup') {
      if (pages++ >= PAGES_PER_CALL) return report(step);
      const next = step === 'copy' ? await move.copyPage() : await move.deletePage();
      if (next) progress = await move.record({ ...progress, ...next });
      else if (step === 'copy') progress = await move.record({ ...progress, step: 'carry', since: now });
      else return report('done', 0, await move.finish());
    } else if (step === 'carry') {
      await move.carry(now);
      progress = await move.record({ ...progress, step: 'verify', since: now });
    } else {
      const mismatches = await move.verify();
      if (mismatches.length > 0) {
        // Rows the old shard changed after they were copied (its sweeps run on): copy again.
        await move.record({ ...progress, step: 'copy', since: now, table: 0, after: null });
        return report('copy', 0, mismatches);
      }
      progress = await move.switchOver(now);
    }
  }
}

/** Reads the placement; begins a move to `to` when none runs (refusing another target while one does). */
async function startOrResume(services: MoveServices, organizationId: string, to: number, now: number) {
  const { db } = services;
  const row = await db.get<{ shard: number; moving_to: number | null; move_step: string | null }>(
    sql`SELECT shard, moving_to, move_step FROM organization_shards WHERE organization_id = ${organizationId}`,
  );
  if (!row) throw new ApiError('not_found', `No organisation ${organizationId}.`);
  if (row.moving_to !== null) {
    if (row.moving_to !== to)
      throw new ApiError(
        'invalid_transition',
        `The organisation is moving to shard ${row.moving_to}: finish that move.`,
      );
    return JSON.parse(row.move_step!) as Progress;
  }
  if (!Number.isInteger(to) || to < 0 || to >= services.shardCount)
    throw new ApiError('validation_failed', `There is no shard ${to} (0 to ${services.shardCount - 1}).`);
  if (row.shard === to) throw new ApiError('invalid_transition', `The organisation is on shard ${to} already.`);
  const progress: Progress = { step: 'frozen', from: row.shard, to, startedAt: now, since: now, table: 0, after: null };
  const started = await db.all(sql`UPDATE organization_shards SET moving_to = ${to},
      move_step = ${JSON.stringify(progress)}, move_updated_at = ${now}
    WHERE organization_id = ${organizationId} AND moving_to IS NULL RETURNING organization_id`);
  if (started.length === 0) return startOrResume(services, organizationId, to, now);
  forgetPlacements();
  return progress;
}

/** The steps' work on the two shards, for one organisation's move. */
class OrganizationMove {
  private workspaces: string | undefined;

  constructor(
    private readonly services: MoveServices,
    private readonly organizationId: string,
    private progress: Progress,
  ) {}

  private get source(): Database {
    return this.services.onShard(this.progress.from);
  }

  private get target(): Database {
    return this.services.onShard(this.progress.to);
  }

  /** Records the progress on the placement (only while this move is the one running). */
  async record(progress: Progress): Promise<Progress> {
    await this.services.db.run(sql`UPDATE organization_shards SET move_step = ${JSON.stringify(progress)},
        move_updated_at = ${progress.since}
      WHERE organization_id = ${this.organizationId} AND moving_to = ${progress.to}`);
    this.progress = progress;
    return progress;
  }

  /** The organisation's workspaces (the same on either shard), as the plan's ?2. */
  private async workspaceIds(): Promise<string> {
    if (this.workspaces === undefined) {
      const rows = await this.source.all<{ id: string }>(
        sql`SELECT id FROM workspaces WHERE organization_id = ${this.organizationId}`,
      );
      this.workspaces = JSON.stringify(rows.map((row) => row.id));
    }
    return this.workspaces;
  }

  /** Runs the rollups until the old shard has counted every row it holds. */
  async settle(): Promise<void> {
    for (let tick = 0; tick < 50 && (await uncounted(this.source)) > 0; tick++) await rollUp(this.source);
  }

  /** Copies the next page of the current table; answers where the copy goes on, or null when done. */
  async copyPage(): Promise<Pick<Progress, 'table' | 'after'> | null> {
    const { table: index, after } = this.progress;
    const spec = MOVED_TABLES[index];
    if (!spec) return null;
    const rows = await this.page(this.source, spec, after, '*');
    if (rows.length > 0) {
      const columns = Object.keys(rows[0]!);
      const [channels, ordinals] = await Promise.all([this.channelMap(spec), this.ordinals(spec)]);
      const values = [JSON.stringify(rows), channels, ordinals];
      await rawBatch(this.target, [
        [insertStatement(spec, columns), values],
        ...(spec.meter ? [[METER_PRICES, [JSON.stringify(rows)]] as [string, unknown[]]] : []),
      ]);
    }
    if (rows.length < PAGE_ROWS) return { table: index + 1, after: null };
    return { table: index, after: spec.key.map((column) => rows.at(-1)![column]) };
  }

  /** Deletes the next page of the old shard's rows, children first; null when none is left. */
  async deletePage(): Promise<Pick<Progress, 'table' | 'after'> | null> {
    for (let index = this.progress.table; index < MOVED_TABLES.length; index++) {
      const spec = MOVED_TABLES[MOVED_TABLES.length - 1 - index]!;
      const keys = spec.key.join(', ');
      const deleted = await rawRun(
        this.source,
        `DELETE FROM "${spec.table}" WHERE (${keys}) IN (SELECT ${keys} FROM "${spec.table}"
          WHERE ${organizationRows(spec)} LIMIT ${PAGE_ROWS})`,
        [this.organizationId, await this.workspaceIds()],
      );
      if (deleted > 0) return { table: index, after: null };
    }
    return null;
  }

  /** A page of the organisation's rows of a table, after a key, in the key's order. */
  private async page(database: Database, spec: MovedTable, after: unknown[] | null, columns: string): Promise<Rows> {
    const keys = spec.key.join(', ');
    const from = after ? `AND (${keys}) > (${after.map((_, i) => `?${i + 3}`).join(', ')})` : '';
    return rawAll(
      database,
      `SELECT ${columns} FROM "${spec.table}" WHERE ${organizationRows(spec)} ${from}
        ORDER BY ${keys} LIMIT ${PAGE_ROWS}`,
      [this.organizationId, await this.workspaceIds(), ...(after ?? [])],
    );
  }

  /**
   * Carries each escrow's balance over: out of the old shard's ledger to its clearing account, then
   * the same amount (read back from that transfer) into the new shard's. Both transfers' ids name
   * the escrow and the move, so each is written once however often this runs.
   */
  async carry(now: number): Promise<void> {
    const escrows = await rawAll(
      this.source,
      `SELECT id, currency, owner_id FROM escrows WHERE owner_kind = 'workspace'
        AND owner_id IN (SELECT value FROM json_each(?1))`,
      [await this.workspaceIds()],
    );
    for (const escrow of escrows) {
      const [id, currency] = [String(escrow.id), String(escrow.currency)];
      const out = `trf_moveout_${id}_${this.progress.startedAt}`;
      await rawBatch(this.source, [
        openClearing(currency, now),
        [
          // Not OR IGNORE: a ledger write that breaks a rule must fail loudly, never vanish.
          `INSERT INTO transfers (id, kind, currency, from_account, to_account, amount_minor, ref, workspace_id,
            created_at)
          SELECT ?1, 'carry', ?2, ?3, ?4, balance_after, ?5, ?6, ?7
          FROM (SELECT balance_after FROM ledger_entries WHERE account = ?3 ORDER BY seq DESC LIMIT 1)
          WHERE balance_after > 0 AND NOT EXISTS (SELECT 1 FROM transfers WHERE id = ?1)`,
          [
            out,
            currency,
            id,
            clearingAccount(currency),
            `moved_to:${this.progress.to}:${this.progress.startedAt}`,
            escrow.owner_id,
            now,
          ],
        ],
        // The old escrow now holds nothing: its low-balance notice must not go out for that.
        ['UPDATE escrows SET low_balance_notified = 1 WHERE id = ?1', [id]],
      ]);
      const [carried] = await rawAll(this.source, 'SELECT amount_minor FROM transfers WHERE id = ?1', [out]);
      if (!carried) continue;
      await rawBatch(this.target, [
        openClearing(currency, now),
        [
          `INSERT INTO transfers (id, kind, currency, from_account, to_account, amount_minor, ref, workspace_id,
            created_at) SELECT ?1, 'carry', ?2, ?3, ?4, ?5, ?6, ?7, ?8
          WHERE NOT EXISTS (SELECT 1 FROM transfers WHERE id = ?1)`,
          [
            `trf_movein_${id}_${this.progress.startedAt}`,
            currency,
            clearingAccount(currency),
            id,
            carried.amount_minor,
            `moved_from:${this.progress.from}:${this.progress.startedAt}`,
            escrow.owner_id,
            now,
          ],
        ],
      ]);
    }
  }

  /** The tables whose rows disagree between the shards, and escrows whose balance did not carry over. */
  async verify(): Promise<MoveReport['mismatches']> {
    const values = [this.organizationId, await this.workspaceIds()];
    const count = (database: Database, spec: MovedTable) =>
      rawAll(database, `SELECT count(*) AS n FROM "${spec.table}" WHERE ${organizationRows(spec)}`, values).then(
        (rows) => Number(rows[0]?.n ?? 0),
      );
    const mismatches: MoveReport['mismatches'] = [];
    for (const spec of MOVED_TABLES) {
      const [source, target] = await Promise.all([count(this.source, spec), count(this.target, spec)]);
      // A sweep of the old shard may have deleted rows already copied: more on the new one is right.
      if (spec.swept ? target < source : target !== source) mismatches.push({ table: spec.table, source, target });
    }
    const balances = (database: Database) =>
      rawAll(
        database,
        `SELECT e.id, coalesce((SELECT balance_after FROM ledger_entries WHERE account = e.id
            ORDER BY seq DESC LIMIT 1), 0) AS balance
          FROM escrows e WHERE e.owner_kind = 'workspace' AND e.owner_id IN (SELECT value FROM json_each(?2))
          AND ?1 IS NOT NULL`,
        values,
      );
    const [before, after] = await Promise.all([balances(this.source), balances(this.target)]);
    const carried = await rawAll(this.source, `SELECT from_account, amount_minor FROM transfers WHERE id LIKE ?1`, [
      `trf_moveout_%_${this.progress.startedAt}`,
    ]);
    for (const escrow of after) {
      const out = carried.find((row) => row.from_account === escrow.id);
      const left = Number(before.find((row) => row.id === escrow.id)?.balance ?? 0);
      if (Number(escrow.balance) !== Number(out?.amount_minor ?? 0) || left !== 0)
        mismatches.push({ table: `ledger:${escrow.id}`, source: left, target: Number(escrow.balance) });
    }
    return mismatches;
  }

  /** Points the placement at the new shard: its writes are taken there from now on. */
  async switchOver(now: number): Promise<Progress> {
    const progress: Progress = { ...this.progress, step: 'cleanup', since: now, table: 0, after: null };
    await this.services.db.run(sql`UPDATE organization_shards SET shard = ${progress.to},
        move_step = ${JSON.stringify(progress)}, move_updated_at = ${now}
      WHERE organization_id = ${this.organizationId} AND moving_to = ${progress.to}`);
    forgetPlacements();
    this.progress = progress;
    return progress;
  }

  /** Ends the move: the placement is an ordinary one again. */
  async finish(): Promise<MoveReport['mismatches']> {
    await this.services.db.run(sql`UPDATE organization_shards SET moving_to = NULL, move_step = NULL
      WHERE organization_id = ${this.organizationId} AND moving_to = ${this.progress.to}`);
    forgetPlacements();
    return [];
  }

  /** The channels' ids on the new shard by their ids on the old (JSON), for the tables that name one. */
  private async channelMap(spec: MovedTable): Promise<string> {
    if (!Object.values(spec.remap ?? {}).includes('channel')) return '{}';
    const read = async (database: Database) =>
      rawAll(database, `SELECT id, channel_key FROM channels WHERE workspace_id IN (SELECT value FROM json_each(?1))`, [
        await this.workspaceIds(),
      ]);
    const [old, fresh] = await Promise.all([read(this.source), read(this.target)]);
    const byKey = new Map(fresh.map((row) => [row.channel_key, row.id]));
    return JSON.stringify(Object.fromEntries(old.map((row) => [String(row.id), byKey.get(row.channel_key) ?? null])));
  }

  /** The workspaces' knowledge ordinals on the new shard (JSON), for the passages' ids. */
  private async ordinals(spec: MovedTable): Promise<string> {
    if (!Object.values(spec.remap ?? {}).includes('chunk')) return '{}';
    const rows = await rawAll(
      this.target,
      `SELECT workspace_id, ordinal FROM knowledge_spaces WHERE workspace_id IN (SELECT value FROM json_each(?1))`,
      [await this.workspaceIds()],
    );
    return JSON.stringify(Object.fromEntries(rows.map((row) => [row.workspace_id, row.ordinal])));
  }
}

/** The clearing account of carried balances, per currency: it sums to nothing over every database. */
const clearingAccount = (currency: string) => `platform:carried:${currency}`;

/** Opens the clearing account on a database, once (a funding account: it may go below nothing). */
const openClearing = (currency: string, now: number): [string, unknown[]] => [
  `INSERT OR IGNORE INTO ledger_accounts (id, kind, currency, created_at) VALUES (?1, 'funding', ?2, ?3)`,
  [clearingAccount(currency), currency, now],
];
