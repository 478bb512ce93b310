/**
 * The retention sweep (docs/design/data-lifecycle.md), run by housekeeping: expired events and
 * audit rows are archived to R2 and then deleted; an expired execution's stored request (its
 * demand's text, structured input and attachments) is archived and then cleared, the rows kept;
 * a conversation past its workspace's period goes to the archive with its messages (conversations.ts).
 * At most SWEEP_ROW_LIMIT rows a tick, oldest first by id (ids sort by time, so no new index
 * weighs on the hot paths' writes). A batch whose object R2 refused is left as it is for the next
 * tick: nothing is removed before its archive exists. A second run finds nothing more to do.
 */
import { databasesHolding } from '../shards';
import { sql } from 'drizzle-orm';
import { type Database, schema } from '../../lib/db';
import { idAt } from '../../lib/ids';
import { logLine } from '../../lib/request-context';
import { type ArchiveBucket, type ArchiveClass, dayOf, writeArchive } from './archive';
import { archiveOldConversations } from './conversations';
import { expiredBefore, type Retention, SWEEP_ROW_LIMIT } from './retention';

/** Conversations looked at a tick, at most (each with its messages). */
const CONVERSATIONS_PER_TICK = 200;

const { events, auditLog, demands, lifecycleCursors } = schema;

/** A row on its way to the archive: its id, workspace and time, and what is written. */
interface Expired {
  id: string;
  workspaceId: string;
  createdAt: number;
  row: Record<string, unknown>;
}

/** JSON text as its value (what the archive keeps), or the text itself when it is not JSON. */
function parsed(value: unknown): unknown {
  if (typeof value !== 'string') return value ?? null;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/**
 * Writes the rows in one object per workspace and day; answers the ids written and the batches
 * refused. The ids count as written only when the manifest holds, for the objects written, as many
 * rows as there are ids: a delete never follows an archive that does not hold every row it removes.
 */
async function archiveRows(db: Database, bucket: ArchiveBucket, kind: ArchiveClass, rows: Expired[], now: number) {
  const groups = new Map<string, Expired[]>();
  for (const row of rows) {
    const group = `${row.workspaceId}\u0000${dayOf(row.createdAt)}`;
    groups.set(group, [...(groups.get(group) ?? []), row]);
  }
  const written: string[] = [];
  const keys: string[] = [];
  let refused = 0;
  for (const group of groups.values()) {
    const first = group[0]!;
    try {
      keys.push(
        await writeArchive(
          db,
          bucket,
          {
            workspaceId: first.workspaceId,
            kind,
            day: dayOf(first.createdAt),
            // The row's own id last: nothing in what is archived can take its place.
            rows: group.map((row) => ({ ...row.row, id: row.id })),
          },
          now,
        ),
      );
      written.push(...group.map((row) => row.id));
    } catch {
      refused += 1;
    }
  }
  if (written.length === 0) return { written, refused };
  const [manifest] = await db.all<{ rows: number }>(sql`SELECT coalesce(sum(rows), 0) AS rows
    FROM ${schema.archiveObjects} WHERE key IN ${idList(keys)}`);
  if (manifest?.rows !== written.length) {
    logLine({
      level: 'error',
      message: 'archive_manifest_mismatch',
      kind,
      rows: written.length,
      manifest: manifest?.rows,
    });
    return { written: [], refused: refused + keys.length };
  }
  return { written, refused };
}

/** The ids as one bound value: D1 takes at most 100 bound parameters a statement. */
const idList = (ids: string[]) => sql`(SELECT value FROM json_each(${JSON.stringify(ids)}))`;

/** What one tick archived and removed, per class, and how many batches R2 refused. */
export interface SweepOutcome {
  events: number;
  audit: number;
  executions: number;
  conversations: number;
  refused: number;
}

/** Archives and removes what has expired, within `limit` rows over every class. */
export async function archiveExpired(
  db: Database,
  bucket: ArchiveBucket,
  retention: Retention,
  now: number,
  limit = SWEEP_ROW_LIMIT,
): Promise<SweepOutcome> {
  const outcome: SweepOutcome = { events: 0, audit: 0, executions: 0, conversations: 0, refused: 0 };
  // The events, requests' bodies and conversations are the organisations' (each shard's); the audit
  // log is every database's: each archives its own, within one budget of rows for the tick.
  let left = limit;
  const organizations = databasesHolding(db, events);
  for (const each of organizations) {
    if (left <= 0) return outcome;
    left -= await archiveEvents(each, bucket, retention, now, left, outcome);
  }
  for (const each of databasesHolding(db, auditLog)) {
    if (left <= 0) return outcome;
    left -= await archiveAudit(each, bucket, retention, now, left, outcome);
  }
  for (const each of organizations) {
    if (left <= 0) return outcome;
    const cleared = await clearExecutionBodies(each, bucket, retention, now, left);
    outcome.executions += cleared.written;
    outcome.refused += cleared.refused;
    left -= cleared.read;
  }
  for (const each of organizations) {
    if (left <= 0) return outcome;
    // A conversation with its messages counts as one of the rows looked at: its thread is bounded.
    const old = await archiveOldConversations(each, bucket, now, Math.min(left, CONVERSATIONS_PER_TICK));
    outcome.conversations += old.archived;
    outcome.refused += old.refused;
    left -= old.archived;
  }
  return outcome;
}

/** One database's expired events, archived then removed; answers how many rows it looked at. */
async function archiveEvents(
  db: Database,
  bucket: ArchiveBucket,
  retention: Retention,
  now: number,
  left: number,
  outcome: SweepOutcome,
): Promise<number> {
  const expiredEvents = await db.all<Record<string, unknown>>(sql`SELECT id, workspace_id, type, data, created_at
    FROM ${events} WHERE id < ${idAt('evt', expiredBefore(retention, 'events', now))} ORDER BY id LIMIT ${left}`);
  const eventRows = expiredEvents.map((row) => ({
    id: String(row.id),
    workspaceId: String(row.workspace_id),
    createdAt: Number(row.created_at),
    row: { type: row.type, data: parsed(row.data), created_at: row.created_at },
  }));
  const archivedEvents = await archiveRows(db, bucket, 'events', eventRows, now);
  if (archivedEvents.written.length)
    await db.run(sql`DELETE FROM ${events} WHERE id IN ${idList(archivedEvents.written)}`);
  outcome.events += archivedEvents.written.length;
  outcome.refused += archivedEvents.refused;
  return eventRows.length;
}

/** One database's expired audit rows, archived then removed; answers how many rows it looked at. */
async function archiveAudit(
  db: Database,
  bucket: ArchiveBucket,
  retention: Retention,
  now: number,
  left: number,
  outcome: SweepOutcome,
): Promise<number> {
  const expiredAudit = await db.all<Record<string, unknown>>(sql`SELECT * FROM ${auditLog}
    WHERE id < ${idAt('aud', expiredBefore(retention, 'audit', now))} ORDER BY id LIMIT ${left}`);
  const auditRows = expiredAudit.map((row) => ({
    id: String(row.id),
    workspaceId: String(row.workspace_id ?? ''),
    createdAt: Number(row.created_at),
    row: { ...row, metadata: parsed(row.metadata) },
  }));
  const archivedAudit = await archiveRows(db, bucket, 'audit', auditRows, now);
  if (archivedAudit.written.length)
    await db.run(sql`DELETE FROM ${auditLog} WHERE id IN ${idList(archivedAudit.written)}`);
  outcome.audit += archivedAudit.written.length;
  outcome.refused += archivedAudit.refused;
  return auditRows.length;
}

/**
 * Expired requests' bodies: archived, then cleared; the cursor moves past the rows read only when
 * every batch of them was written (a refused one is read again next tick).
 */
async function clearExecutionBodies(
  db: Database,
  bucket: ArchiveBucket,
  retention: Retention,
  now: number,
  limit: number,
) {
  const cursor = await db
    .select({ lastId: lifecycleCursors.lastId })
    .from(lifecycleCursors)
    .where(sql`${lifecycleCursors.kind} = 'execution_bodies'`)
    .get();
  const read = await db.all<Record<string, unknown>>(sql`SELECT id, workspace_id, execution_id, text,
      structured_input, attachments, created_at FROM ${demands}
    WHERE id > ${cursor?.lastId ?? ''} AND id < ${idAt('dem', expiredBefore(retention, 'executionBodies', now))}
    ORDER BY id LIMIT ${limit}`);
  if (read.length === 0) return { written: 0, refused: 0, read: 0 };
  const withBodies = read
    .filter((row) => row.text !== null || row.structured_input !== null || row.attachments !== null)
    .map((row) => ({
      id: String(row.id),
      workspaceId: String(row.workspace_id),
      createdAt: Number(row.created_at),
      row: {
        execution_id: row.execution_id,
        text: row.text,
        structured_input: parsed(row.structured_input),
        attachments: parsed(row.attachments),
        created_at: row.created_at,
      },
    }));
  const archived = await archiveRows(db, bucket, 'executions', withBodies, now);
  const lastId = String(read[read.length - 1]!.id);
  await db.batch([
    db.run(sql`UPDATE ${demands} SET text = NULL, structured_input = NULL, attachments = NULL
      WHERE id IN ${idList(archived.written)}`),
    db.run(sql`INSERT INTO ${lifecycleCursors} (kind, last_id) SELECT 'execution_bodies', ${lastId}
      WHERE ${archived.refused} = 0
      ON CONFLICT (kind) DO UPDATE SET last_id = excluded.last_id`),
  ]);
  return { written: archived.written.length, refused: archived.refused, read: read.length };
}
