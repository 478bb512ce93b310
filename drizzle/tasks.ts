/**
 * A2A tasks (docs/design/callers.md): what an agent that calls the gateway reads back with
 * GetTask and ListTasks. A task is a thread of executions in one context: the first message makes
 * it (its id is that execution's), a message naming it continues it. Written in the batch of the
 * execution that answers, so a task never exists without its answer, nor the reverse.
 */
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** A message in A2A 1.0's JSON, as a task's history keeps it. */
export interface StoredTaskMessage {
  messageId: string;
  contextId: string;
  taskId: string;
  role: 'ROLE_USER' | 'ROLE_AGENT';
  parts: Array<Record<string, unknown>>;
}

/** An answer's artifact in A2A 1.0's JSON: the reply as text, the envelope as data. */
export interface StoredTaskArtifact {
  artifactId: string;
  name: string;
  parts: Array<Record<string, unknown>>;
}

export const a2aTasks = sqliteTable(
  'a2a_tasks',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    contextId: text('context_id').notNull(),
    /** `TASK_STATE_COMPLETED` (executions answer synchronously), or `TASK_STATE_CANCELED`. */
    state: text('state').notNull(),
    /** The messages, user's and agent's, in A2A 1.0's JSON (the 0.3 shape is made when read). */
    history: text('history', { mode: 'json' }).$type<StoredTaskMessage[]>().notNull(),
    /** The latest answer's artifacts (the reply as text, the execution envelope as data). */
    artifacts: text('artifacts', { mode: 'json' }).$type<StoredTaskArtifact[]>().notNull(),
    lastExecutionId: text('last_execution_id').notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (table) => [
    index('a2a_tasks_context_idx').on(table.workspaceId, table.contextId, table.updatedAt),
    index('a2a_tasks_recent_idx').on(table.workspaceId, table.updatedAt),
  ],
);
