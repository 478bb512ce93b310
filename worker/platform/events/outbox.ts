/**
 * The outbox's writes (docs/design/webhooks.md). A change that customers hear about writes its
 * events in its own D1 batch, made with `newEvent` (typed by its schema); a trigger fans each
 * one out to the matching webhook endpoints in the same statement. Each insert returns its row,
 * so the ids that committed come back from the batch itself (takeCommittedEvents): a batch that
 * fails, or a conditional event whose change lost its race, leaves none. The entry points (HTTP,
 * queue, cron) hand them on after the commit (jobs/publish.ts).
 */
import { unitOf } from '../../lib/shards/router';
import { type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { afterCommit, type Database, insertRowsSql, insertWhere, schema, newIdsInStatement } from '../../lib/db';
import { newId } from '../../lib/ids';
import type { EventData, EventType } from './schemas';

const { events } = schema;

/** An event to write: its type, its workspace (SQL when only the batch knows it) and its typed data. */
export interface NewEvent<T extends EventType = EventType> {
  type: T;
  workspaceId: string | SQL;
  data: EventData<T>;
}

/** An event as the batch committed it, with its data (the live rooms read it; webhooks read the row). */
export type CommittedEvent = {
  [T in EventType]: { id: string; workspaceId: string; type: T; data: EventData<T> };
}[EventType];

/** The one way to make an event: its data is checked against its type's schema by the compiler. */
export function newEvent<T extends EventType>(type: T, workspaceId: string | SQL, data: EventData<T>): NewEvent<T> {
  return { type, workspaceId, data };
}

const committed = new WeakMap<object, CommittedEvent[]>();

function collect(db: Database) {
  return (rows: unknown[]) => {
    const list = committed.get(unitOf(db)) ?? [];
    // A raw statement returns the JSON column as text; drizzle's RETURNING has parsed it already.
    for (const row of rows as Array<CommittedEvent & { data: unknown }>)
      list.push({ ...row, data: typeof row.data === 'string' ? JSON.parse(row.data) : row.data } as CommittedEvent);
    committed.set(unitOf(db), list);
  };
}

/** The writes of some events whose workspace is known, for the change's own batch (one statement). */
export function eventInserts(db: Database, list: NewEvent[], now: number): BatchItem<'sqlite'>[] {
  if (list.length === 0) return [];
  const rows = list.map((event) => ({
    id: newId('evt', now),
    workspaceId: event.workspaceId,
    type: event.type,
    data: event.data as Record<string, unknown>,
    createdAt: now,
  }));
  const statement = db.all(insertRowsSql(events, rows, sql`RETURNING id, workspace_id AS "workspaceId", type, data`));
  return [afterCommit(statement, collect(db))];
}

/**
 * One event written only if `condition` holds inside the batch (the change it reports happened).
 * `fill` sets top-level fields of its data from SQL that only the batch can answer (such as the
 * lead's conversation), so the event needs no read before its batch.
 */
export function eventInsertWhere(
  db: Database,
  event: NewEvent,
  condition: SQL,
  now: number,
  fill: Record<string, SQL> = {},
): BatchItem<'sqlite'> {
  const json = JSON.stringify(event.data);
  const filled = Object.entries(fill).reduce<SQL>(
    (data, [field, value]) => sql`json_set(${data}, ${`$.${field}`}, ${value})`,
    sql`${json}`,
  );
  const values = {
    id: newId('evt', now),
    workspaceId: event.workspaceId,
    type: event.type,
    data: Object.keys(fill).length > 0 ? filled : (event.data as Record<string, unknown>),
    createdAt: now,
  };
  const statement = insertWhere(db, events, values, condition).returning({
    id: events.id,
    workspaceId: events.workspaceId,
    type: sql<EventType>`${events.type}`,
    data: events.data,
  });
  return afterCommit(statement, collect(db));
}

/** The events committed through this database since the last call (each once). */
export function takeCommittedEvents(db: Database): CommittedEvent[] {
  const list = committed.get(unitOf(db)) ?? [];
  committed.delete(unitOf(db));
  return list;
}

/**
 * Events of one type for many records at once, in one statement (the cron sweep's steps): one
 * event per row that `from` (a FROM … WHERE … clause) selects, its workspace and its data (a
 * `json_object(…)` of the public shape its schema gives) read from the row. The ids come back
 * from the batch, as for the other inserts.
 */
export function eventsFromRows(
  db: Database,
  type: EventType,
  rows: { from: SQL; workspaceId: SQL; data: SQL },
  now: number,
): BatchItem<'sqlite'> {
  const id = newIdsInStatement('evt', now);
  const statement = db.all(sql`INSERT INTO ${events} (id, workspace_id, type, data, created_at)
    SELECT ${id}, ${rows.workspaceId}, ${type}, ${rows.data}, ${now} ${rows.from}
    RETURNING id, workspace_id AS "workspaceId", type, data`);
  return afterCommit(statement, collect(db));
}
