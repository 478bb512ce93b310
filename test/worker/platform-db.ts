/**
 * The tests' view of the platform's data as one database (docs/design/scale.md#the-layout): a
 * statement runs on every database that holds its tables today (the directory, the shards, or
 * both, by the layout's current homes), and the answers come back as one. Tests look at rows
 * through it, as they looked at the single database before the shards: a row is on one database,
 * so the rows of all are the rows; counts and sums are added up; a change runs wherever the row is.
 * While a group still lives in the directory this is the directory itself. A row a test adds by
 * hand goes to the shard of the workspace it names.
 */
import { env } from 'cloudflare:test';
import { copyReferenceChanges } from '../../worker/lib/shards/copies';
import { homeOfStatement, homeOfTable, tablesNamed } from '../../worker/lib/shards/layout';

type Row = Record<string, unknown>;

const shards = () => [env.DB_0, env.DB_1];

const isReferenceOnly = (query: string) => tablesNamed(query).every((table) => homeOfTable(table) === 'reference');

/** Copies the directory's catalog changes to the shards, as the Worker does after its own writes. */
const copyReferences = () => copyReferenceChanges({ directory: env.DIRECTORY, shards: shards() }, Date.now());

/** The databases that hold the rows a statement names, today. */
function databasesOf(query: string): D1Database[] {
  // The reference tables are the directory's; the shards hold copies of them.
  if (isReferenceOnly(query)) return [env.DIRECTORY];
  const home = homeOfStatement(query);
  if (home === 'shard') return shards();
  if (home === 'unit') return [env.DIRECTORY, ...shards()];
  return [env.DIRECTORY];
}

/** A single-row aggregate's columns are added up across databases (counts, sums); other rows are listed. */
const AGGREGATE = /^\s*select\s+(?:count|sum|total)\s*\(/i;

function merged(query: string, answers: Row[][]): Row[] {
  if (answers.length === 1) return answers[0]!;
  if (AGGREGATE.test(query) && answers.every((rows) => rows.length === 1)) {
    const sum: Row = { ...answers[0]![0] };
    for (const rows of answers.slice(1))
      for (const [column, value] of Object.entries(rows[0]!))
        sum[column] =
          typeof value === 'number' || typeof sum[column] === 'number'
            ? Number(sum[column] ?? 0) + Number(value ?? 0)
            : (sum[column] ?? value);
    return [sum];
  }
  return answers.flat();
}

/** The tables a row's parent id names, by the id's prefix. */
const PARENTS: Record<string, string> = {
  esc: 'escrows',
  cnv: 'conversations',
  lead: 'leads',
  dem: 'demands',
  exe: 'executions',
  ch: 'channels',
};

/** A statement of the view: bound, then run on each database that holds its tables. */
export class ViewStatement {
  constructor(
    readonly query: string,
    readonly values: unknown[] = [],
  ) {}

  bind(...values: unknown[]): ViewStatement {
    return new ViewStatement(this.query, values);
  }

  /**
   * The statement, bound, on each database that holds its tables; a new row goes to one: the shard
   * of the workspace it names (a made-up workspace's to shard 0), or the directory when it is
   * nobody's (a rate limit, an account's email).
   */
  async statements(): Promise<D1PreparedStatement[]> {
    let databases = databasesOf(this.query);
    if (/\binsert\s+(?:or\s+\w+\s+)?into\b/i.test(this.query) && databases.length > 1)
      databases = [await this.insertedInto(databases)];
    return databases.map((database) => database.prepare(this.query).bind(...this.values));
  }

  private async insertedInto(databases: D1Database[]): Promise<D1Database> {
    const named = [...this.values, ...(this.query.match(/'ws_[^']*'/g) ?? []).map((quoted) => quoted.slice(1, -1))];
    const workspaceId = named.find((value): value is string => typeof value === 'string' && value.startsWith('ws_'));
    if (!workspaceId) {
      // A row that names its parent (a ledger row its escrow, a message its conversation) goes
      // where the parent is: a workspace's shard, or the directory.
      for (const value of named) {
        const parent = typeof value === 'string' ? PARENTS[value.slice(0, value.indexOf('_'))] : undefined;
        for (const database of parent ? databases : [])
          if (await database.prepare(`SELECT 1 FROM ${parent} WHERE id = ?`).bind(value).first()) return database;
      }
      return databases.includes(env.DIRECTORY) ? env.DIRECTORY : env.DB_0;
    }
    const shard = await env.DIRECTORY.prepare(`SELECT s.shard FROM directory_entries e
        JOIN organization_shards s ON s.organization_id = e.organization_id
      WHERE e.kind = 'workspace' AND e.value = ?`)
      .bind(workspaceId)
      .first<number>('shard');
    return shards()[shard ?? 0]!;
  }

  async all<T = Row>(): Promise<D1Result<T>> {
    const answers = await Promise.all((await this.statements()).map((statement) => statement.all<Row>()));
    const changes = answers.reduce((sum, answer) => sum + (answer.meta.changes ?? 0), 0);
    // A change to the directory's catalog reaches the shards' copies as the Worker's own writes do.
    if (changes > 0 && isReferenceOnly(this.query)) await copyReferences();
    const results = merged(
      this.query,
      answers.map((answer) => answer.results),
    ) as T[];
    return { ...answers[0]!, results, meta: { ...answers[0]!.meta, changes } };
  }

  async first<T = Row>(column?: string): Promise<T | null> {
    const [row] = (await this.all<Row>()).results;
    if (!row) return null;
    return (column === undefined ? row : row[column]) as T;
  }

  async run<T = Row>(): Promise<D1Result<T>> {
    return this.all<T>();
  }
}

/** The platform's data as one database, for a test to read and arrange. */
export const platformDb = {
  prepare: (query: string) => new ViewStatement(query),
  /** A batch whose statements all hold on one database runs as one batch there; else each on its own. */
  async batch(statements: ViewStatement[]): Promise<D1Result[]> {
    const targets = statements.map((statement) => databasesOf(statement.query));
    const one = targets[0]?.length === 1 ? targets[0][0] : undefined;
    if (one && targets.every((databases) => databases.length === 1 && databases[0] === one)) {
      const results = await one.batch(
        (await Promise.all(statements.map((statement) => statement.statements()))).flat(),
      );
      if (statements.some((statement) => isReferenceOnly(statement.query))) await copyReferences();
      return results;
    }
    const answers: D1Result[] = [];
    for (const statement of statements) answers.push(await statement.all());
    return answers;
  },
};
