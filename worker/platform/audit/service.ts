/**
 * The audit log: one record per change, written in the change's own D1 batch, and read back
 * newest first by the admin API.
 */
import { type SQL, sql } from 'drizzle-orm';
import { insertWhere, schema, type Database } from '../../lib/db';
import { idTime, newId } from '../../lib/ids';
import { scopesOfBits } from '../access/schemas';
import { iso } from '../../lib/periods';
import { databasesHolding } from '../../lib/shards/holding';
import { routedHandleOf } from '../../lib/shards/router';

const { auditLog, executions, workspaces } = schema;

const EXECUTION_COMPLETED = 'execution.completed';

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

/** An audit row as the list reads it (raw SQL: snake_case, metadata as JSON text). */
interface AuditRow {
  id: string;
  organization_id: string | null;
  workspace_id: string | null;
  actor_kind: string;
  actor_id: string;
  key_id: string | null;
  action: string;
  target_id: string | null;
  request_id: string;
  trace_id: string | null;
  metadata: string | null;
  created_at: number;
  /** An execution's entry: what its metadata is made of. */
  domain: string | null;
  source_record: string | null;
  scope_bits: number | null;
  via: string | null;
}

/** An entry's metadata: its own, or, for an execution's entry, made from its execution row. */
function metadataOf(row: AuditRow): Record<string, unknown> | null {
  if (row.scope_bits === null)
    return row.metadata === null ? null : (JSON.parse(row.metadata) as Record<string, unknown>);
  const made = { domain: row.domain, source_record: row.source_record, scopes: scopesOfBits(row.scope_bits) };
  return row.via ? { ...made, via: row.via } : made;
}

/**
 * Newest first, with cursor pagination on the time-sortable id. A completed execution's entry is
 * its execution row (core/records.ts names it, it copies nothing): read from `executions` beside
 * the other entries, each side from its own index, and merged by id.
 */
export async function listAuditLog(db: Database, query: AuditQuery) {
  const take = query.limit + 1;
  const logged: SQL[] = [sql`1 = 1`];
  const executed: SQL[] = [sql`status = 'completed'`, sql`audit_id = 'aud_' || substr(id, 5)`];
  if (query.workspaceId) {
    logged.push(sql`workspace_id = ${query.workspaceId}`);
    executed.push(sql`workspace_id = ${query.workspaceId}`);
  }
  if (query.organizationId) {
    logged.push(sql`organization_id = ${query.organizationId}`);
    executed.push(sql`workspace_id IN (SELECT id FROM ${workspaces} WHERE organization_id = ${query.organizationId})`);
  }
  if (query.action) {
    logged.push(sql`action = ${query.action}`);
    executed.push(sql`${query.action} = ${EXECUTION_COMPLETED}`);
  }
  if (query.startingAfter) {
    logged.push(sql`id < ${query.startingAfter}`);
    // The same order: an execution's entry id is its own id under the audit prefix.
    executed.push(sql`created_at <= ${idTime(query.startingAfter)}`);
    executed.push(sql`id < ${`exe_${query.startingAfter.slice(4)}`}`);
  }
  const entries = sql`SELECT id, organization_id, workspace_id, actor_kind,
      actor_id, key_id, action, target_id, request_id, trace_id, metadata, created_at,
      NULL AS domain, NULL AS source_record, NULL AS scope_bits, NULL AS via
      FROM ${auditLog} WHERE ${sql.join(logged, sql` AND `)} ORDER BY id DESC LIMIT ${take}`;
  const withExecutions = (each: Database) =>
    each.all<AuditRow>(sql`SELECT * FROM (${entries})
    UNION ALL SELECT * FROM (SELECT 'aud_' || substr(id, 5) AS id,
      (SELECT organization_id FROM ${workspaces} w WHERE w.id = workspace_id) AS organization_id, workspace_id,
      actor_kind, actor_id, key_id, ${EXECUTION_COMPLETED} AS action, id AS target_id,
      coalesce(gateway_request_id, request_id) AS request_id, trace_id, NULL AS metadata, created_at,
      domain, source_record, scope_bits, via
      FROM ${executions} WHERE ${sql.join(executed, sql` AND `)} ORDER BY created_at DESC, id DESC LIMIT ${take})
    ORDER BY id DESC LIMIT ${take}`);
  // A tenant named: its shard (the route entered it). None: every shard's, and the directory's own
  // entries (sign-ups, operators' changes), merged newest first.
  const rows =
    query.workspaceId || query.organizationId
      ? await withExecutions(db)
      : (
          await Promise.all([
            ...databasesHolding(db, executions).map(withExecutions),
            (routedHandleOf(db)?.inDirectory() ?? db).all<AuditRow>(entries),
          ])
        )
          .flat()
          .sort((a, b) => (a.id < b.id ? 1 : -1))
          .slice(0, take);
  const page = rows.slice(0, query.limit);
  return {
    data: page.map((row) => ({
      audit_id: row.id,
      action: row.action,
      actor_kind: row.actor_kind,
      actor_id: row.actor_id,
      key_id: row.key_id,
      organization_id: row.organization_id,
      workspace_id: row.workspace_id,
      target_id: row.target_id,
      request_id: row.request_id,
      trace_id: row.trace_id,
      metadata: metadataOf(row),
      created_at: iso(row.created_at),
    })),
    has_more: rows.length > query.limit,
    next_cursor: rows.length > query.limit ? (page[page.length - 1]?.id ?? null) : null,
  };
}
