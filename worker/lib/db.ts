import { getTableColumns, getTableName, SQL, sql } from 'drizzle-orm';
import { drizzle, type DrizzleD1Database } from 'drizzle-orm/d1';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import * as schema from '../../drizzle/schema';
import { type IdPrefix, newId } from './ids';
import { clock } from './clock';
import { TtlCache } from './ttl-cache';
import type { D1Like } from './d1-sessions';

/**
 * drizzle over D1, without its relational query API (unused here): with a schema, drizzle()
 * rebuilds the relational config of every table on each call, which profiling showed to be a
 * large share of a request's CPU, since a database is made per request (for its counter).
 */
export type Database = DrizzleD1Database;

declare module 'hono' {
  interface ContextVariableMap {
    /** The request's database: D1 through drizzle, with every round trip counted. */
    db: Database;
  }
}

/** What one request asked of D1: round trips, and statements (a batch is one trip, N statements). */
export interface QueryCounter {
  roundTrips: number;
  statements: number;
  /** Rows D1 read (its own `rows_read`, of batches, `all` and `run`), for the bench's bounded-cost checks. */
  rowsRead?: number;
  /** The round trips of the replica's read session (lib/d1-sessions.ts), among `roundTrips`. */
  replicaRoundTrips?: number;
}

const EXECUTING_METHODS = new Set(['first', 'all', 'run', 'raw']);

/**
 * Wraps the D1 binding so every query is counted. The counts go into the request log line, and
 * into `X-D1-Queries` when EXPOSE_DB_METRICS is set, so a benchmark can prove that the work per
 * request stays constant as data grows.
 */
export function countingD1<T extends D1Like>(
  database: T,
  counter: QueryCounter,
  options: { replica?: boolean } = {},
): T {
  const trip = () => {
    counter.roundTrips += 1;
    if (options.replica) counter.replicaRoundTrips = (counter.replicaRoundTrips ?? 0) + 1;
  };
  const originals = new WeakMap<object, D1PreparedStatement>();

  const wrapStatement = (statement: D1PreparedStatement): D1PreparedStatement => {
    const wrapped = new Proxy(statement, {
      get(target, property) {
        if (property === 'bind') {
          return (...values: unknown[]) => wrapStatement(target.bind(...values));
        }
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        if (typeof property === 'string' && EXECUTING_METHODS.has(property)) {
          return (...args: unknown[]) => {
            trip();
            counter.statements += 1;
            const result = (value as (...a: unknown[]) => unknown).apply(target, args);
            // `all` and `run` answer D1's meta: its rows_read is counted as a batch's is.
            if (property !== 'all' && property !== 'run') return result;
            return (result as Promise<{ meta?: { rows_read?: number } }>).then((answer) => {
              counter.rowsRead = (counter.rowsRead ?? 0) + (answer?.meta?.rows_read ?? 0);
              return answer;
            });
          };
        }
        return (value as (...a: unknown[]) => unknown).bind(target);
      },
    });
    originals.set(wrapped, statement);
    return wrapped;
  };

  return new Proxy(database, {
    get(target, property) {
      if (property === 'prepare') {
        return (query: string) => wrapStatement(target.prepare(query));
      }
      if (property === 'batch') {
        return (statements: D1PreparedStatement[]) => {
          trip();
          counter.statements += statements.length;
          // D1 needs its own statement objects back, not our proxies.
          return target.batch(statements.map((statement) => originals.get(statement) ?? statement)).then((results) => {
            for (const result of results) counter.rowsRead = (counter.rowsRead ?? 0) + (result.meta?.rows_read ?? 0);
            return results;
          });
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** What drizzle's D1 session makes of a batch item before it runs it. */
interface PreparedBatchItem {
  getQuery(): { sql: string; params: unknown[] };
  stmt?: D1PreparedStatement;
  mapResult(result: unknown, isFromBatch: boolean): unknown;
}

/** drizzle over a D1 binding (counted or not). */
export function createDatabase(database: D1Like): Database {
  // A session has what drizzle uses of a binding: prepare and batch.
  const db = drizzle(database as D1Database);
  // drizzle 0.45's D1 batch binds parameters only to a prepared statement, which raw SQL
  // statements (db.run / db.all of an SQL text, as insertRowsSql makes) do not have: it throws.
  // This runs a batch exactly as drizzle does, binding every statement.
  db.batch = (async (items: unknown[]) => {
    const prepared = items.map((item) => (item as { _prepare(): PreparedBatchItem })._prepare());
    const statements = prepared.map((query) => {
      const { sql: text, params } = query.getQuery();
      return (query.stmt ?? database.prepare(text)).bind(...params);
    });
    const results = await database.batch(statements);
    const mapped = results.map((result, index) => prepared[index]!.mapResult(result, true));
    // The batch committed: each statement's after-commit reader gets its rows (see afterCommit).
    for (const [index, item] of items.entries()) afterCommitReaders.get(item as object)?.(mapped[index] as unknown[]);
    return mapped;
  }) as unknown as Database['batch'];
  return db;
}

const afterCommitReaders = new WeakMap<object, (rows: unknown[]) => void>();

/**
 * Registers what to do with a batch statement's rows (its RETURNING) once the batch has
 * committed: a statement of a batch that fails, or a conditional insert that inserted nothing,
 * reports nothing. The outbox learns its committed event ids this way.
 */
export function afterCommit<T extends object>(statement: T, read: (rows: unknown[]) => void): T {
  afterCommitReaders.set(statement, read);
  return statement;
}

export { schema };

/**
 * Whether a failed statement or batch was refused by the named constraint (a CHECK name, or
 * `table.column` for UNIQUE and NOT NULL). Limits and guards are enforced this way inside a
 * batch, and the constraint that fired says which error to answer.
 */
export function isConstraintViolation(error: unknown, constraint: string): boolean {
  const text = error instanceof Error ? `${error.message} ${String(error.cause ?? '')}` : String(error);
  return text.includes('constraint failed') && text.includes(constraint);
}

type InsertValues<T extends SQLiteTable> = { [K in keyof T['$inferInsert']]?: T['$inferInsert'][K] | SQL };

/**
 * Per table, row count and column set, the SQL text around the values of a plain INSERT (see
 * insertRows). Bounded: a sweep inserts any number of rows, and each count is a shape of its own.
 */
const insertTexts = new TtlCache<TemplateStringsArray>(Number.POSITIVE_INFINITY, 256);

function insertText(table: SQLiteTable, columnNames: string[], rowCount: number): TemplateStringsArray {
  const cacheKey = `${getTableName(table)}|${rowCount}|${columnNames.join(',')}`;
  let text = insertTexts.peek(cacheKey);
  if (!text) {
    const head = `INSERT INTO "${getTableName(table)}" (${columnNames.map((name) => `"${name}"`).join(', ')}) VALUES (`;
    const parts = [head];
    for (let row = 0; row < rowCount; row++) {
      for (let column = 1; column < columnNames.length; column++) parts.push(', ');
      parts.push(row < rowCount - 1 ? '), (' : ')');
    }
    text = Object.assign(parts, { raw: parts }) as unknown as TemplateStringsArray;
    insertTexts.set(cacheKey, text);
  }
  return text;
}

/**
 * A plain INSERT of rows into `table`, for the statements every execution writes. It means what
 * `db.insert(table).values(rows)` means (values encoded by their columns, a column some rows
 * leave out takes its default), but its SQL text is made once per column set and reused:
 * drizzle's query builder was a fifth of an execution's CPU when profiled. `tail` follows the
 * values (an ON CONFLICT or RETURNING clause); with a RETURNING tail, run it with `db.all`.
 */
export function insertRowsSql<T extends SQLiteTable>(table: T, rows: InsertValues<T>[], tail?: SQL): SQL {
  const columns = tableColumns(table);
  const keys = [
    ...new Set(
      rows.flatMap((row) => Object.keys(row).filter((key) => (row as Record<string, unknown>)[key] !== undefined)),
    ),
  ];
  const params: unknown[] = [];
  for (const row of rows) {
    for (const key of keys) {
      const column = columns[key];
      if (!column) throw new Error(`${getTableName(table)} has no column ${key}`);
      const value = (row as Record<string, unknown>)[key];
      if (value === undefined)
        params.push(
          column.hasDefault && column.default !== undefined
            ? column.default instanceof SQL
              ? column.default
              : column.mapToDriverValue(column.default)
            : null,
        );
      else params.push(value === null || value instanceof SQL ? value : column.mapToDriverValue(value));
    }
  }
  const insert = sql(
    insertText(
      table,
      keys.map((key) => columns[key]!.name),
      rows.length,
    ),
    ...params,
  );
  return tail ? sql`${insert} ${tail}` : insert;
}

/** The plain INSERT of insertRowsSql, as a statement for a batch. */
export function insertRows<T extends SQLiteTable>(db: Database, table: T, rows: InsertValues<T>[]) {
  return db.run(insertRowsSql(table, rows));
}

const columnsByTable = new WeakMap<SQLiteTable, Record<string, SQLiteColumn>>();
function tableColumns(table: SQLiteTable): Record<string, SQLiteColumn> {
  let columns = columnsByTable.get(table);
  if (!columns) {
    columns = getTableColumns(table);
    columnsByTable.set(table, columns);
  }
  return columns;
}

/**
 * An INSERT that happens only when `condition` holds when it runs, for a batch whose other
 * statements may have changed nothing (a conditional UPDATE that lost a race): the history and
 * audit rows of a change are then written only with the change. Every column is given a value
 * (a missing one is NULL), encoded by its column as drizzle would.
 */
export function insertWhere<T extends SQLiteTable>(
  db: Database,
  table: T,
  values: { [K in keyof T['$inferInsert']]: T['$inferInsert'][K] | SQL },
  condition: SQL,
) {
  const columns = Object.entries(getTableColumns(table));
  const selected = sql.join(
    columns.map(([key, column]) => {
      const value = (values as Record<string, unknown>)[key];
      return value === undefined || value === null
        ? sql`NULL`
        : value instanceof SQL
          ? value
          : sql.param(value, column);
    }),
    sql`, `,
  );
  return db.insert(table).select(sql`SELECT ${selected} WHERE ${condition}`);
}

/** One trivial statement, to tell whether D1 answers at all (`/healthz?deep=1`). */
export function pingDatabase(db: Database) {
  return db.run(sql`SELECT 1`);
}

/**
 * Ids made inside one SQL statement, one per row it writes: the prefix and time of a `newId` (so
 * they sort with the others) and 64 random bits as 16 hex digits (hex digits are Crockford base32
 * digits too). The one way besides `newId` that the platform makes an id.
 */
export function newIdsInStatement(prefix: IdPrefix, now: number = clock.now()): SQL {
  return sql`${newId(prefix, now).slice(0, prefix.length + 11)} || lower(hex(randomblob(8)))`;
}
