/**
 * The tests' view of the platform's data as one database (docs/design/scale.md#the-layout): a
 * statement runs on every database that holds its tables today (the directory, the shards, or
 * both, by the layout's current homes), and the answers come back as one. Tests look at rows
 * through it, as they looked at the single database before the shards: a row is on one database,
 * so the rows of all are the rows; counts and sums are added up; a change runs wherever the row is.
 * While a group still lives in the directory this is the directory itself. A test that must add
 * an organisation's rows by hand writes them on the shard they belong to (helpers' shardDb).
 */
import { env } from 'cloudflare:test';
import { homeOfStatement, homeOfTable, tablesNamed } from '../../worker/lib/shards/layout';

type Row = Record<string, unknown>;

const shards = () => [env.DB_0, env.DB_1];

/** The databases that hold the rows a statement names, today. */
function databasesOf(query: string): D1Database[] {
  // The reference tables are the directory's; the shards hold copies of them.
  if (tablesNamed(query).every((table) => homeOfTable(table) === 'reference')) return [env.DIRECTORY];
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

/** A statement of the view: bound, then run on each database that holds its tables. */
export class ViewStatement {
  constructor(
    readonly query: string,
    readonly values: unknown[] = [],
  ) {
    if (/^\s*insert/i.test(query) && databasesOf(query).length > 1)
      throw new Error(`Add an organisation's rows on its own shard (shardDb), not through the view: ${query}`);
  }

  bind(...values: unknown[]): ViewStatement {
    return new ViewStatement(this.query, values);
  }

  /** The statement, bound, on each database that holds its tables. */
  statements(): D1PreparedStatement[] {
    return databasesOf(this.query).map((database) => database.prepare(this.query).bind(...this.values));
  }

  async all<T = Row>(): Promise<D1Result<T>> {
    const answers = await Promise.all(this.statements().map((statement) => statement.all<Row>()));
    const changes = answers.reduce((sum, answer) => sum + (answer.meta.changes ?? 0), 0);
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
    if (one && targets.every((databases) => databases.length === 1 && databases[0] === one))
      return one.batch(statements.flatMap((statement) => statement.statements()));
    const answers: D1Result[] = [];
    for (const statement of statements) answers.push(await statement.all());
    return answers;
  },
};
