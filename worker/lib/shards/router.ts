/**
 * One database handle over the directory and the shards (docs/design/scale.md#the-layout): each
 * statement goes to the home of the tables it names (shards/layout.ts), a shard's to the shard of
 * the organisation the unit of work has entered. A statement that names tables of both homes, a
 * batch that would span two databases, and a shard's statement before any organisation was entered
 * throw: in tests (two shards) a query that forgets its shard fails instead of reading the wrong one.
 */
import type { D1Like } from '../d1-sessions';
import { ApiError } from '../errors';
import { destinationOfTable, homeOfStatement, homeOfTable, type StatementHome, writtenTable } from './layout';

/** The databases of one unit of work: the directory's and each shard's (sessions or bindings). */
export interface DatabaseSet {
  directory: D1Like;
  shards: readonly D1Like[];
}

/** The shard a unit of work has entered (by its organisation), or null before it knows one. */
export interface ShardRoute {
  shard: number | null;
  /**
   * While its organisation moves to another shard (shards/move.ts): its writes are refused with a
   * 503 and Retry-After, its reads still answered from the shard it is leaving.
   */
  frozen?: boolean;
}

/** How long a caller refused during a move is told to wait before trying again. */
export const MOVING_RETRY_AFTER_S = 5;

/** A statement that no one database can answer, or that came before its shard was known. */
export class ShardRoutingError extends Error {
  override name = 'ShardRoutingError';
}

/** A routed handle's route, and how to reach one shard with the same unit of work's databases. */
export interface RoutedHandle<T> {
  route: ShardRoute;
  shardCount: number;
  onShard: (shard: number) => T;
  /**
   * The same unit's databases before it entered any organisation: its `unit` tables (rate limits,
   * audit, the books) in the directory. For a step of a saga that is a person's, not the
   * organisation's (an expert's fee and claim limits while they claim an organisation's lead).
   */
  inDirectory: () => T;
  /**
   * What every handle of one unit of work shares (its own, `onShard`'s, `inDirectory`'s): the key
   * under which what commits through any of them is gathered, to publish after the unit's work.
   */
  unit: object;
}

/** The key of a handle's unit of work: its shared object, or the handle itself when not routed. */
export function unitOf(database: object): object {
  return handles.get(database)?.unit ?? database;
}

const handles = new WeakMap<object, RoutedHandle<unknown>>();

/** Ties a database handle to its route and its shards, so code holding only the handle can enter one. */
export function tieRoute<T extends object>(database: T, handle: RoutedHandle<T>): T {
  handles.set(database, handle);
  return database;
}

/** The route and shards of a database handle (undefined for one that is not routed: a test's binding). */
export function routedHandleOf<T extends object>(database: T): RoutedHandle<T> | undefined {
  return handles.get(database) as RoutedHandle<T> | undefined;
}

/** 'directory', or a shard's index. */
type Target = 'directory' | number;

/** How a router checks: `strict` also refuses what the layout's next moves would (tests run so). */
export interface RoutingOptions {
  homeOf?: (query: string) => StatementHome;
  strict?: boolean;
  /** After the directory committed a write that changes a reference table: its copies follow (shards/copies.ts). */
  afterReferenceWrite?: () => Promise<void>;
}

/**
 * The tables whose writes change a reference table: those tables, and those whose triggers write
 * one (an expert's factors and passkeys set `providers.second_factor`, migration 0049).
 */
const REFERENCE_WRITERS = new Set([
  'domains',
  'providers',
  'provider_domains',
  'memberships',
  'user_factors',
  'user_passkeys',
]);
const EXECUTING = new Set<PropertyKey>(['run', 'all', 'first', 'raw']);

/** Whether a statement writes a table of the reference group (which only the directory writes). */
const isReferenceWrite = (query: string) => {
  const written = writtenTable(query);
  return written !== undefined && destinationOfTable(written) === 'reference' && homeOfTable(written) === 'reference';
};

/**
 * The database handle that routes each statement to its home (by the layout, unless a test gives
 * another). Strict, it first checks the statement as if every group had moved to its destination,
 * so a door that forgets its organisation fails in tests before its tables move.
 */
export function routedD1(databases: DatabaseSet, route: ShardRoute, options: RoutingOptions = {}): D1Like {
  const homeOf = options.homeOf ?? homeOfStatement;
  const targets = new WeakMap<object, Target>();
  // Strict: where each statement will run once every group has moved (a batch must agree on it).
  const destinations = new WeakMap<object, Target>();
  const check = (home: StatementHome, query: string) => {
    if (home === 'both' || (home === 'unit-directory' && route.shard !== null))
      throw new ShardRoutingError(`A statement names tables of the directory and of a shard: ${query.slice(0, 120)}`);
    if (home === 'shard' && route.shard === null)
      throw new ShardRoutingError(`A shard's statement before its organisation is known: ${query.slice(0, 120)}`);
  };
  const place = (home: StatementHome, query: string): Target => {
    // A reference table is written in the directory; its copies follow (shards/copies.ts).
    if (home === 'unit' && isReferenceWrite(query)) return 'directory';
    check(home, query);
    if (home === 'directory' || home === 'unit-directory' || route.shard === null) return 'directory';
    if (!databases.shards[route.shard]) throw new ShardRoutingError(`No shard ${route.shard} is bound.`);
    return route.shard;
  };
  /** Where the statement will run after the move: a write to a reference table runs in the directory. */
  const destinationOf = (query: string): Target => {
    const home = homeOfStatement(query, destinationOfTable);
    const written = writtenTable(query);
    if (written && destinationOfTable(written) === 'reference') {
      if (home === 'shard' || home === 'both')
        throw new ShardRoutingError(`A reference table is written from a shard's rows: ${query.slice(0, 120)}`);
      return 'directory';
    }
    return place(home, query);
  };
  const databaseOf = (target: Target) => (target === 'directory' ? databases.directory : databases.shards[target]!);
  // Remembers each statement's target through `bind`, which answers a new statement; a write that
  // changes a reference table, run alone, has its copies follow once it has committed.
  const copied = new WeakSet<object>();
  const remember = (
    statement: D1PreparedStatement,
    target: Target,
    destination?: Target,
    copies = false,
  ): D1PreparedStatement => {
    const wrapped = new Proxy(statement, {
      get(inner, property) {
        if (property === 'bind')
          return (...values: unknown[]) => remember(inner.bind(...values), target, destination, copies);
        const value: unknown = Reflect.get(inner, property, inner);
        if (typeof value !== 'function') return value;
        if (copies && EXECUTING.has(property))
          return async (...args: unknown[]) => {
            const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(inner, args);
            await options.afterReferenceWrite?.();
            return result;
          };
        return (value as (...a: unknown[]) => unknown).bind(inner);
      },
    });
    targets.set(wrapped, target);
    if (destination !== undefined) destinations.set(wrapped, destination);
    if (copies) copied.add(wrapped);
    originals.set(wrapped, statement);
    return wrapped;
  };
  const originals = new WeakMap<object, D1PreparedStatement>();
  return {
    prepare(query: string) {
      const destination = options.strict ? destinationOf(query) : undefined;
      const target = place(homeOf(query), query);
      const written = writtenTable(query);
      // A rate limit's window is not moved (a fresh one opens on the new shard): reads keep counting.
      if (route.frozen && target !== 'directory' && written !== undefined && written !== 'rate_limit_windows')
        throw new ApiError(
          'service_unavailable',
          'This organisation is moving to another database: try again shortly.',
          {
            headers: { 'Retry-After': String(MOVING_RETRY_AFTER_S) },
          },
        );
      const copies = target === 'directory' && written !== undefined && REFERENCE_WRITERS.has(written);
      return remember(databaseOf(target).prepare(query), target, destination, copies);
    },
    batch<T = unknown>(statements: D1PreparedStatement[]) {
      const spans = (where: WeakMap<object, Target>) => {
        const first = statements[0] ? where.get(statements[0]) : undefined;
        return statements.some((statement) => where.get(statement) !== first);
      };
      if (spans(targets) || (options.strict && spans(destinations)))
        return Promise.reject(new ShardRoutingError('A batch spans the directory and a shard, or two shards.'));
      const first = statements[0] ? targets.get(statements[0]) : undefined;
      const database = databaseOf(first ?? 'directory');
      const results = database.batch<T>(statements.map((statement) => originals.get(statement) ?? statement));
      if (!statements.some((statement) => copied.has(statement))) return results;
      return results.then(async (done) => {
        await options.afterReferenceWrite?.();
        return done;
      });
    },
  } as D1Like;
}
