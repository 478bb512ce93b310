/**
 * Conversation retention (docs/design/data-lifecycle.md): a conversation whose last message is
 * older than its workspace's period (365 days by default, 30 to 3,650) is archived to R2 with its
 * messages, one line per conversation; then its messages and resume keys leave D1 and the row is
 * marked archived (kept: leads, demands and the rollups name it). Messages a visitor writes into an
 * archived conversation later are archived in their turn, once they too are past the period. The sweep walks the old
 * conversations from a cursor, a bounded number a tick, and starts over when it reaches the end, so
 * a long-lived conversation that is still active is only passed, never stuck on.
 */
import { sql } from 'drizzle-orm';
import { type Database, schema } from '../../lib/db';
import { idAt } from '../../lib/ids';
import { auditInsert, type AuditContext } from '../audit';
import { type ArchiveBucket, dayOf, writeArchive } from './archive';

const { conversations, messages, conversationKeys, workspaces, lifecycleCursors } = schema;

const DAY_MS = 24 * 60 * 60 * 1000;
/** The shortest period a workspace may choose: nothing younger is looked at. */
export const MIN_CONVERSATION_DAYS = 30;
export const MAX_CONVERSATION_DAYS = 3650;

const list = (ids: string[]) => sql`(SELECT value FROM json_each(${JSON.stringify(ids)}))`;

/** Archives the conversations past their workspace's period, within `limit` looked at; answers how many went. */
export async function archiveOldConversations(
  db: Database,
  bucket: ArchiveBucket,
  now: number,
  limit: number,
): Promise<{ archived: number; refused: number }> {
  const cursor = await db.all<{ last_id: string }>(
    sql`SELECT last_id FROM ${lifecycleCursors} WHERE kind = 'conversations'`,
  );
  const after = cursor[0]?.last_id ?? '';
  const candidates = await db.all<Record<string, unknown>>(sql`SELECT c.id, c.workspace_id, c.kind, c.channel_id,
      c.language, c.lead_id, c.demand_id, c.attribution, c.created_at, w.conversation_retention_days AS days,
      coalesce((SELECT max(m.created_at) FROM ${messages} m WHERE m.conversation_id = c.id), c.created_at) AS last_at
    FROM ${conversations} c JOIN ${workspaces} w ON w.id = c.workspace_id
    WHERE c.id > ${after} AND c.id < ${idAt('cnv', now - MIN_CONVERSATION_DAYS * DAY_MS)}
      AND (c.archived_at IS NULL OR EXISTS (SELECT 1 FROM ${messages} m WHERE m.conversation_id = c.id))
    ORDER BY c.id LIMIT ${limit}`);
  const expired = candidates.filter((row) => Number(row.last_at) < now - Number(row.days) * DAY_MS);
  const thread = expired.length
    ? await db.all<Record<string, unknown>>(sql`SELECT id, conversation_id, role, text, author_id, created_at
        FROM ${messages} WHERE conversation_id IN ${list(expired.map((row) => String(row.id)))} ORDER BY id`)
    : [];
  const groups = new Map<string, Record<string, unknown>[]>();
  for (const row of expired) {
    const group = `${row.workspace_id}\u0000${dayOf(Number(row.created_at))}`;
    groups.set(group, [...(groups.get(group) ?? []), row]);
  }
  const written: string[] = [];
  let refused = 0;
  for (const rows of groups.values()) {
    const first = rows[0]!;
    const lines = rows.map(({ days: _days, attribution, ...row }) => ({
      ...row,
      id: String(row.id),
      attribution: typeof attribution === 'string' ? JSON.parse(attribution) : null,
      messages: thread.filter((message) => message.conversation_id === row.id),
    }));
    // The newest message names this batch's version: a conversation archived again (a visitor came
    // back to it) goes to an object of its own, never over the one that holds its earlier messages.
    const newest = lines
      .flatMap((line) => line.messages.map((message) => String(message.id)))
      .sort()
      .at(-1);
    try {
      const batch = { workspaceId: String(first.workspace_id), day: dayOf(Number(first.created_at)), rows: lines };
      await writeArchive(db, bucket, { ...batch, kind: 'conversations', ...(newest ? { version: newest } : {}) }, now);
      written.push(...lines.map((line) => line.id));
    } catch {
      refused += 1;
    }
  }
  // The cursor walks on past what was looked at; at the end (fewer than asked) it starts over.
  const next = candidates.length === limit ? String(candidates[candidates.length - 1]!.id) : '';
  await db.batch([
    db.run(sql`DELETE FROM ${messages} WHERE conversation_id IN ${list(written)}`),
    db.run(sql`DELETE FROM ${conversationKeys} WHERE conversation_id IN ${list(written)}`),
    db.run(sql`UPDATE ${conversations} SET archived_at = ${now}, attribution = NULL WHERE id IN ${list(written)}`),
    db.run(sql`INSERT INTO ${lifecycleCursors} (kind, last_id) SELECT 'conversations', ${next} WHERE ${refused} = 0
      ON CONFLICT (kind) DO UPDATE SET last_id = excluded.last_id`),
  ]);
  return { archived: written.length, refused };
}

/** How many days the workspace keeps a conversation after its last message. */
export async function conversationRetention(db: Database, workspaceId: string): Promise<number> {
  const [row] = await db.all<{ days: number }>(
    sql`SELECT conversation_retention_days AS days FROM ${workspaces} WHERE id = ${workspaceId}`,
  );
  return row?.days ?? 365;
}

/** Sets the workspace's conversation retention (30 to 3,650 days), audited. */
export async function setConversationRetention(
  db: Database,
  audit: AuditContext & { workspaceId: string; organizationId: string },
  days: number,
  now: number,
): Promise<void> {
  await db.batch([
    db.run(sql`UPDATE ${workspaces} SET conversation_retention_days = ${days} WHERE id = ${audit.workspaceId}`),
    auditInsert(
      db,
      audit,
      { ...audit, action: 'workspace.retention_changed', targetId: audit.workspaceId, metadata: { days } },
      now,
    ),
  ]);
}
