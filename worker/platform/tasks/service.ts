/**
 * A2A tasks (docs/design/callers.md): a thread of executions in one context, kept so that an
 * agent can read it back (GetTask, ListTasks). The first message makes the task (its id is that
 * execution's id); a message naming the task continues it. Each answer is written in the batch of
 * the execution that made it: its two messages join the history, and its artifact (the reply, and
 * the envelope as data) replaces the last one. Messages are kept in A2A 1.0's JSON.
 */
import { and, desc, eq, gt, lt, or, type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { type Database, schema } from '../../lib/db';
import type { StoredTaskMessage } from '../../../drizzle/tasks';

const { a2aTasks } = schema;

/** Every answer is complete when the execution returns: a task is completed, or canceled. */
export const TASK_COMPLETED = 'TASK_STATE_COMPLETED';

export type TaskRow = typeof a2aTasks.$inferSelect;

/** A message in A2A 1.0's JSON, as the history keeps it (its type is the table's). */
export type { StoredTaskMessage };

/** The messages a task keeps: its last 20 turns (D1 refuses a value over 2 MB, and a reader wants the recent ones). */
export const TASK_HISTORY_MESSAGES = 40;
/** And at most this many characters of them, the newest first (a turn's message may be 256 KB). */
export const TASK_HISTORY_CHARS = 512 * 1024;

/** A history trimmed to the newest messages within both bounds, in their order. */
function keptHistory(history: SQL): SQL {
  return sql`(SELECT json_group_array(json(value)) FROM (SELECT value, key FROM (SELECT value, key,
      ROW_NUMBER() OVER (ORDER BY key DESC) AS newest, SUM(length(value)) OVER (ORDER BY key DESC) AS chars
      FROM json_each(${history})) WHERE newest <= ${TASK_HISTORY_MESSAGES} AND chars <= ${TASK_HISTORY_CHARS}
    ORDER BY key))`;
}

/**
 * The task's write in an execution's batch: a new task, or the next turn of one (only of this
 * workspace's: a continuation of another's changes nothing, and was refused before it ran).
 */
export function taskWrite(
  db: Database,
  turn: {
    taskId: string;
    workspaceId: string;
    contextId: string;
    executionId: string;
    user: StoredTaskMessage;
    reply: string;
    envelopeJson: SQL;
    now: number;
  },
): BatchItem<'sqlite'> {
  const agent: StoredTaskMessage = {
    messageId: `${turn.executionId}-reply`,
    contextId: turn.contextId,
    taskId: turn.taskId,
    role: 'ROLE_AGENT',
    parts: [{ text: turn.reply }],
  };
  const artifacts = sql`json_array(json_object('artifactId', ${`${turn.executionId}-answer`}, 'name', 'answer',
    'parts', json_array(json_object('text', ${turn.reply}, 'mediaType', 'text/plain'),
      json_object('data', json(${turn.envelopeJson}), 'mediaType', 'application/json'))))`;
  const user = JSON.stringify({ ...turn.user, taskId: turn.taskId, contextId: turn.contextId });
  const appended = sql`json_insert(history, '$[#]', json(${user}), '$[#]', json(${JSON.stringify(agent)}))`;
  return db.run(sql`INSERT INTO ${a2aTasks} (id, workspace_id, context_id, state, history, artifacts,
      last_execution_id, created_at, updated_at)
    VALUES (${turn.taskId}, ${turn.workspaceId}, ${turn.contextId}, ${TASK_COMPLETED},
      json_array(json(${user}), json(${JSON.stringify(agent)})), ${artifacts}, ${turn.executionId}, ${turn.now},
      ${turn.now})
    ON CONFLICT (id) DO UPDATE SET
      history = ${keptHistory(appended)},
      artifacts = excluded.artifacts, state = excluded.state, last_execution_id = excluded.last_execution_id,
      updated_at = excluded.updated_at
    WHERE ${a2aTasks}.workspace_id = excluded.workspace_id`);
}

/**
 * One of this workspace's tasks, or undefined (another's does not exist here). A null workspace is
 * the operator's, who reads any.
 */
export async function findTask(db: Database, workspaceId: string | null, taskId: string): Promise<TaskRow | undefined> {
  return db
    .select()
    .from(a2aTasks)
    .where(and(eq(a2aTasks.id, taskId), workspaceId === null ? undefined : eq(a2aTasks.workspaceId, workspaceId)))
    .get();
}

export interface TaskQuery {
  contextId?: string;
  state?: string;
  /** Only tasks whose status changed after this time (ms). */
  updatedAfter?: number;
  pageSize: number;
  /** The last task of the previous page: `<updated_at>.<id>`. */
  after?: { updatedAt: number; id: string };
}

/**
 * A page of this workspace's tasks (every workspace's for the operator, a null workspace), the most
 * recently changed first, and how many match in all.
 */
export async function listTasks(
  db: Database,
  workspaceId: string | null,
  query: TaskQuery,
): Promise<{ rows: TaskRow[]; total: number }> {
  const filters = and(
    ...(workspaceId === null ? [] : [eq(a2aTasks.workspaceId, workspaceId)]),
    ...(query.contextId ? [eq(a2aTasks.contextId, query.contextId)] : []),
    ...(query.state ? [eq(a2aTasks.state, query.state)] : []),
    ...(query.updatedAfter !== undefined ? [gt(a2aTasks.updatedAt, query.updatedAfter)] : []),
  );
  const page = query.after
    ? or(
        lt(a2aTasks.updatedAt, query.after.updatedAt),
        and(eq(a2aTasks.updatedAt, query.after.updatedAt), lt(a2aTasks.id, query.after.id)),
      )
    : undefined;
  const [rows, counted] = await db.batch([
    db
      .select()
      .from(a2aTasks)
      .where(and(filters, page))
      .orderBy(desc(a2aTasks.updatedAt), desc(a2aTasks.id))
      .limit(query.pageSize),
    db.select({ total: sql<number>`count(*)` }).from(a2aTasks).where(filters),
  ]);
  return { rows, total: Number(counted[0]?.total ?? 0) };
}
