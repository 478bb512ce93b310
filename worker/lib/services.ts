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
  db: Database;
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
}

/** The services of one unit of work, from the Worker's environment. */
export function buildServices(env: Bindings, entry: EntrySpec): Services {
  const settings = readSettings(env);
  return {
    entry: entry.kind,
    db: createDatabase(entry.counter ? countingD1(env.DB, entry.counter) : env.DB),
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
