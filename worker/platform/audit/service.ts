/**
 * The audit log: one record per change, written in the change's own D1 batch, and read back
 * newest first by the admin API.
 */
import { and, desc, eq, lt, type SQL } from 'drizzle-orm';
import { insertWhere, schema, type Database } from '../../lib/db';
import { newId } from '../../lib/ids';
import { iso } from '../../lib/periods';

const { auditLog } = schema;

/** Who did it and under which request, for the audit record. */
export interface AuditContext {
  actorKind: 'admin' | 'api_key' | 'user' | 'system';
  actorId: string;
  requestId: string;
  traceId?: string;
}

type AuditEntry = Omit<
  typeof auditLog.$inferInsert,
  'id' | 'createdAt' | 'actorKind' | 'actorId' | 'requestId' | 'traceId' | 'targetId' | 'workspaceId'
> & {
  /** The record acted on; SQL when its id is only known inside the batch. */
  targetId?: string | SQL | null;
  /** Its workspace; SQL when only the batch knows it. */
  workspaceId?: string | SQL | null;
};

function auditValues(context: AuditContext, entry: AuditEntry, now: number) {
  return {
    id: newId('aud', now),
    actorKind: context.actorKind,
    actorId: context.actorId,
    requestId: context.requestId,
    traceId: context.traceId ?? null,
    createdAt: now,
    ...entry,
  };
}

/** An audit record of `context`'s action, for the change's own batch. */
export function auditInsert(
  db: Database,
  context: AuditContext,
  entry: AuditEntry & { workspaceId?: string | null },
  now: number,
) {
  return db.insert(auditLog).values(auditValues(context, entry, now) as typeof auditLog.$inferInsert);
}

/** An audit record written only when `condition` holds: when the change it records happened. */
export function auditInsertWhere(db: Database, context: AuditContext, entry: AuditEntry, condition: SQL, now: number) {
  return insertWhere(db, auditLog, auditValues(context, entry, now), condition);
}

export interface AuditQuery {
  workspaceId?: string;
  organizationId?: string;
  action?: string;
  /** Cursor: the id of the last record of the previous page. */
  startingAfter?: string;
  limit: number;
}

/** Newest first, with cursor pagination on the time-sortable id. */
export async function listAuditLog(db: Database, query: AuditQuery) {
  const conditions: SQL[] = [];
  if (query.workspaceId) conditions.push(eq(auditLog.workspaceId, query.workspaceId));
  if (query.organizationId) conditions.push(eq(auditLog.organizationId, query.organizationId));
  if (query.action) conditions.push(eq(auditLog.action, query.action));
  if (query.startingAfter) conditions.push(lt(auditLog.id, query.startingAfter));
  const rows = await db
    .select()
    .from(auditLog)
    .where(and(...conditions))
    .orderBy(desc(auditLog.id))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit);
  return {
    data: page.map((row) => ({
      audit_id: row.id,
      action: row.action,
      actor_kind: row.actorKind,
      actor_id: row.actorId,
      key_id: row.keyId,
      organization_id: row.organizationId,
      workspace_id: row.workspaceId,
      target_id: row.targetId,
      request_id: row.requestId,
      trace_id: row.traceId,
      metadata: row.metadata,
      created_at: iso(row.createdAt),
    })),
    has_more: rows.length > query.limit,
    next_cursor: rows.length > query.limit ? (page[page.length - 1]?.id ?? null) : null,
  };
}
