/**
 * The services one unit of work runs with, built once per entry: an HTTP request, a queue batch,
 * a cron tick, an incoming email, a Durable Object call. The core and the modules are handed this
 * one object (or the part they need) instead of each entry rebuilding limits, the egress policy,
 * the mail context and the secrets key by hand. Its clock is the one tests control.
 */
import {
  type Bindings,
  type ExecutionLimits,
  emailLinkOrigin,
  executionLimits,
  readSettings,
  type Settings,
} from '../env';
import { countingD1, createDatabase, type Database, type QueryCounter } from './db';
import { bookmarksFrom, composeBookmarks, type D1Like, type D1Sessions, d1Sessions } from './d1-sessions';
import { boundDatabases, databaseName } from './shards/databases';
import { type DatabaseSet, routedD1, type ShardRoute, tieRoute } from './shards/router';
import { copyReferenceChanges } from './shards/copies';
import { type EgressPolicy, egressPolicy } from './egress';
import { newId, newTraceId } from './ids';
import { type Clock, clock } from './clock';
import { type AnswerModel, answerModelOf } from './answer-model';

declare module 'hono' {
  interface ContextVariableMap {
    /** The request's services (lib/services.ts), built once by the request context. */
    services: Services;
  }
}

/** What the emails a unit of work causes need to know: the origin of their links, the unread wait. */
export interface MailContext {
  linkOrigin: string;
  unreadAfterMs: number;
}

/** The entries of the Worker, each of which builds one services object. */
export type EntryKind = 'request' | 'queue' | 'cron' | 'email' | 'object';

export interface Services {
  entry: EntryKind;
  /** The primary's session: every write, and every read a decision rests on. */
  db: Database;
  /**
   * A replica's session, for reads that decide nothing (docs/design/scale.md): read-only, and
   * at least as new as the caller's bookmark. Outside a request, the primary's.
   */
  reads: Database;
  /**
   * The shard `db` and `reads` send an organisation's statements to: null until the unit of work
   * knows its organisation (lib/shards/router.ts).
   */
  shardRoute: ShardRoute;
  /** How many shards are bound (`DB_0` … `DB_<n-1>`). */
  shardCount: number;
  /** A primary's database fixed on one shard (the directory's statements still go to the directory). */
  onShard: (shard: number) => Database;
  /**
   * Each database whole, by its name (`dir`, `0`, `1`, …), with a handle no layout routes: for
   * the reports that look at a database as it is (its tables' sizes), never for its rows.
   */
  everyDatabase: () => Array<{ name: string; db: Database }>;
  /** Brings the shards' copies of the reference tables up to the directory's log (the minute's cron). */
  copyReferences: () => Promise<number>;
  /** The newest bookmark of this unit of work's sessions, to hand back to its caller. */
  bookmark: () => string | null;
  settings: Settings;
  clock: Clock;
  limits: ExecutionLimits;
  /** Calls to customer URLs (agents, robots, webhooks, sites). */
  egress: EgressPolicy;
  /** Encrypts the secrets the platform reads back (signing secrets, agents' tokens). */
  secretsKey: string | undefined;
  mail: MailContext;
  queues: { events: Queue<unknown>; emails: Queue<unknown>; knowledge: Queue<unknown> };
  /** The model that writes knowledge answers, when the deployment configured one (else extractive). */
  answerModel: AnswerModel | null;
  /** Our id of this unit of work (a request's `req_…`), for the audit and the logs. */
  requestId: string;
  traceId: string;
}

/** How an entry describes itself: its kind, and for a request its URL, ids and D1 counter. */
export interface EntrySpec {
  kind: EntryKind;
  /** The request's URL: a loopback origin is the links' origin in local development. */
  url?: string;
  requestId?: string;
  traceId?: string;
  /** Counts the unit's D1 round trips (requests: the log line and X-D1-Queries). */
  counter?: QueryCounter;
  /** The bookmark the caller brought back from its last write (a request's replica reads start there). */
  readAfter?: string | null;
  /** The shard the unit works in, when its entry knows it (a queue message, a cron tick per shard). */
  shard?: number;
}

/**
 * The unit's databases: one handle over the directory and the shards, which routes each statement
 * to its tables' home (lib/shards/router.ts). A request reads from replicas where it may, each
 * database's from the caller's bookmark for it; other entries use the primaries only.
 */
function databasesOf(env: Bindings, entry: EntrySpec, route: ShardRoute, strict: boolean) {
  const counted = <T extends D1Like>(database: T, replica = false) =>
    entry.counter ? countingD1(database, entry.counter, { replica }) : database;
  const { directory, shards } = boundDatabases(env);
  const shardCount = shards.length;
  // A handle over one set of databases (the primaries, or the replicas' sessions), following
  // `route`; its `onShard` gives the same set fixed on one shard, for reads across shards.
  const unit = {};
  const handleOver = (set: DatabaseSet, followed: ShardRoute): Database =>
    tieRoute(createDatabase(routedD1(set, followed, { strict, afterReferenceWrite: copyReferences })), {
      route: followed,
      shardCount,
      onShard: (shard) => handleOver(set, { shard }),
      inDirectory: () => handleOver(set, { shard: null }),
      unit,
    });
  const primaries = { directory: counted(directory), shards: shards.map((s) => counted(s)) };
  // After a reference table's write committed, its copies on the shards follow (shards/copies.ts);
  // a copy that fails waits for the minute's run, and the write stands. Logged as
  // request-context's logLine does (that module builds services, so it is not imported here).
  const copyReferences = () =>
    copyReferenceChanges(primaries, clock.now()).then(
      () => undefined,
      (error: unknown) =>
        console.log(
          JSON.stringify({
            level: 'warn',
            message: 'reference_copy_failed',
            error: error instanceof Error ? error.message : String(error),
          }),
        ),
    );
  // One shard's database, whatever the unit has entered: for placement, moves and cross-shard work.
  const onShard = (shard: number) => handleOver(primaries, { shard });
  const everyDatabase = () => [
    { name: databaseName('directory'), db: createDatabase(primaries.directory) },
    ...primaries.shards.map((shard, index) => ({ name: databaseName(index), db: createDatabase(shard) })),
  ];
  if (entry.kind !== 'request') {
    const db = handleOver(primaries, route);
    const copyNow = () => copyReferenceChanges(primaries, clock.now());
    return { db, reads: db, bookmark: () => null, onShard, shardCount, everyDatabase, copyReferences: copyNow };
  }
  const readAfter = bookmarksFrom(entry.readAfter ?? null);
  const named = [['directory', directory] as const, ...shards.map((shard, index) => [index, shard] as const)];
  const sessions = named.map(([name, database]) => d1Sessions(database, readAfter.get(databaseName(name)) ?? null));
  const [directorySessions, ...shardSessions] = sessions;
  const over = (pick: (session: D1Sessions) => D1Like, replica: boolean) =>
    handleOver(
      {
        directory: counted(pick(directorySessions!), replica),
        shards: shardSessions.map((s) => counted(pick(s), replica)),
      },
      route,
    );
  return {
    db: over((session) => session.primary, false),
    reads: over((session) => session.replica, true),
    bookmark: () => composeBookmarks(named.map(([name], index) => [databaseName(name), sessions[index]!.bookmark()])),
    onShard,
    shardCount,
    everyDatabase,
    copyReferences: () => copyReferenceChanges(primaries, clock.now()),
  };
}

/** The services of one unit of work, from the Worker's environment. */
export function buildServices(env: Bindings, entry: EntrySpec): Services {
  const settings = readSettings(env);
  const route: ShardRoute = { shard: entry.shard ?? null };
  return {
    entry: entry.kind,
    ...databasesOf(env, entry, route, settings.STRICT_SHARDS),
    shardRoute: route,
    settings,
    clock,
    limits: executionLimits(settings),
    egress: egressPolicy(settings),
    secretsKey: settings.SECRETS_KEY,
    mail: {
      linkOrigin: emailLinkOrigin(settings, entry.url),
      unreadAfterMs: settings.EMAIL_UNREAD_AFTER_SECONDS * 1000,
    },
    queues: { events: env.EVENTS, emails: env.EMAILS, knowledge: env.KNOWLEDGE },
    answerModel: answerModelOf(env, settings),
    requestId: entry.requestId ?? newId('req'),
    traceId: entry.traceId ?? newTraceId(),
  };
}
