/**
 * The outbox's writes (PRODUCT.md section 10). A change that customers hear about writes its
 * events in its own D1 batch, made with `newEvent` (typed by its schema); a trigger fans each
 * one out to the matching webhook endpoints in the same statement. Each insert returns its row,
 * so the ids that committed come back from the batch itself (takeCommittedEvents): a batch that
 * fails, or a conditional event whose change lost its race, leaves none. The entry points (HTTP,
 * queue, cron) hand them on after the commit (jobs/publish.ts).
 */
import { type SQL, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { afterCommit, type Database, insertRowsSql, insertWhere, schema } from '../../lib/db';
import { newId } from '../../lib/ids';
import type { EventData, EventType } from './schemas';

const { events } = schema;

/** An event to write: its type, its workspace (SQL when only the batch knows it) and its typed data. */
export interface NewEvent<T extends EventType = EventType> {
  type: T;
  workspaceId: string | SQL;
  data: EventData<T>;
}

/** An event as the batch committed it. */
export interface CommittedEvent {
  id: string;
  workspaceId: string;
  type: EventType;
}

/** The one way to make an event: its data is checked against its type's schema by the compiler. */
export function newEvent<T extends EventType>(type: T, workspaceId: string | SQL, data: EventData<T>): NewEvent<T> {
  return { type, workspaceId, data };
}

const committed = new WeakMap<Database, CommittedEvent[]>();

function collect(db: Database) {
  return (rows: unknown[]) => {
    const list = committed.get(db) ?? [];
    list.push(...(rows as CommittedEvent[]));
    committed.set(db, list);
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
  const statement = db.all(insertRowsSql(events, rows, sql`RETURNING id, workspace_id AS "workspaceId", type`));
  return [afterCommit(statement, collect(db))];
}

/** One event written only if `condition` holds inside the batch (the change it reports happened). */
export function eventInsertWhere(db: Database, event: NewEvent, condition: SQL, now: number): BatchItem<'sqlite'> {
  const values = {
    id: newId('evt', now),
    workspaceId: event.workspaceId,
    type: event.type,
    data: event.data as Record<string, unknown>,
    createdAt: now,
  };
  const statement = insertWhere(db, events, values, condition).returning({
    id: events.id,
    workspaceId: events.workspaceId,
    type: sql<EventType>`${events.type}`,
  });
  return afterCommit(statement, collect(db));
}

/** The events committed through this database since the last call (each once). */
export function takeCommittedEvents(db: Database): CommittedEvent[] {
  const list = committed.get(db) ?? [];
  committed.delete(db);
  return list;
}
