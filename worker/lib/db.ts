import { getTableColumns, SQL, sql } from 'drizzle-orm';
import { drizzle, type DrizzleD1Database } from 'drizzle-orm/d1';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import * as schema from '../../drizzle/schema';

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
}

const EXECUTING_METHODS = new Set(['first', 'all', 'run', 'raw']);

/**
 * Wraps the D1 binding so every query is counted. The counts go into the request log line, and
 * into `X-D1-Queries` when EXPOSE_DB_METRICS is set, so a benchmark can prove that the work per
 * request stays constant as data grows.
 */
export function countingD1(database: D1Database, counter: QueryCounter): D1Database {
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
            counter.roundTrips += 1;
            counter.statements += 1;
            return (value as (...a: unknown[]) => unknown).apply(target, args);
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
          counter.roundTrips += 1;
          counter.statements += statements.length;
          // D1 needs its own statement objects back, not our proxies.
          return target.batch(statements.map((statement) => originals.get(statement) ?? statement));
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** drizzle over a D1 binding (counted or not). */
export function createDatabase(database: D1Database): Database {
  return drizzle(database);
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

/**
 * An INSERT that happens only when `condition` holds when it runs, for a batch whose other
 * statements may have changed nothing (a conditional UPDATE that lost a race): the history and
 * audit rows of a change are then written only with the change. Every column is given a value
 * (a missing one is NULL), encoded by its column as drizzle would.
 */
export function insertWhere<T extends SQLiteTable>(db: Database, table: T, values: { [K in keyof T['$inferInsert']]: T['$inferInsert'][K] | SQL }, condition: SQL) {
  const columns = Object.entries(getTableColumns(table));
  const selected = sql.join(
    columns.map(([key, column]) => {
      const value = (values as Record<string, unknown>)[key];
      return value === undefined || value === null ? sql`NULL` : value instanceof SQL ? value : sql.param(value, column);
    }),
    sql`, `,
  );
  return db.insert(table).select(sql`SELECT ${selected} WHERE ${condition}`);
}
