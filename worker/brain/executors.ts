/**
 * The brain's executors, one per business domain. An executor decides what an execution
 * produces and returns the rows to write; the platform core commits them in the same D1 batch
 * as the execution, audit and usage records. No HTTP types in here.
 */
import type { BatchItem } from 'drizzle-orm/batch';
import { schema, type Database } from '../lib/db';
import { newId } from '../lib/ids';

export interface ExecutionInput {
  executionId: string;
  organizationId: string;
  workspaceId: string;
  domain: string;
  text?: string;
  structuredInput?: Record<string, unknown>;
  attachments?: unknown[];
  grantedScopes: string[];
  sessionId?: string;
  now: number;
}

export interface ExecutionPlan {
  /** The brain's answer, returned to the caller as `output.result`. */
  result: Record<string, unknown>;
  /** The id of the record this execution produced (`exact_bridge.source_record`). */
  sourceRecord: string;
  writes: BatchItem<'sqlite'>[];
}

export type Executor = (db: Database, input: ExecutionInput) => Promise<ExecutionPlan> | ExecutionPlan;

/** Stores the request as an open demand and answers with its id. */
const consultation: Executor = (db, input) => {
  const demandId = newId('dem', input.now);
  return {
    result: {
      demand_id: demandId,
      demand_status: 'open',
      reply: `Your request was recorded as ${demandId}. An expert will pick it up.`,
    },
    sourceRecord: demandId,
    writes: [
      db.insert(schema.demands).values({
        id: demandId,
        workspaceId: input.workspaceId,
        executionId: input.executionId,
        domain: input.domain,
        text: input.text ?? null,
        structuredInput: input.structuredInput ?? null,
        attachments: input.attachments ?? null,
        status: 'open',
        createdAt: input.now,
      }),
    ],
  };
};

const executors: ReadonlyMap<string, Executor> = new Map([['consultation', consultation]]);

export function findExecutor(domain: string): Executor | undefined {
  return executors.get(domain);
}

export function knownDomains(): string[] {
  return [...executors.keys()];
}
