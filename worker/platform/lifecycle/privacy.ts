/**
 * Privacy requests (docs/design/data-lifecycle.md#erasure): an owner (or an administrator naming
 * the workspace) asks for a visitor's erasure or for an export; the request is answered at once
 * (202) and runs as a job on the events queue, within seconds. An erasure asked again is the same
 * request. An export is gzip NDJSON in R2, fetched through a link signed for 24 hours.
 */
import { and, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { hmacSha256, secretsEqual, sha256Hex, toHex } from '../../lib/crypto';
import { type Database, schema } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { auditInsert, type AuditContext } from '../audit';
import { scrubAddresses } from '../email';
import type { ArchiveBucket } from './archive';
import { eraseInArchive, eraseInDatabase, erasureSubjects } from './erasure';
import { type ExportBucket, exportPages, writeExport } from './export';

const { privacyRequests, conversations } = schema;

/** The queue message that runs a request. */
export const privacyMessageSchema = z.object({ kind: z.literal('privacy.run'), request_id: z.string().max(64) });

/** How long an export's signed link works. */
export const EXPORT_LINK_TTL_MS = 24 * 60 * 60 * 1000;

/** A privacy request as stored. */
export type PrivacyRow = typeof privacyRequests.$inferSelect;

/** Where an export's object is kept. */
const exportKey = (row: PrivacyRow) => `exports/${row.workspaceId}/${row.id}.ndjson.gz`;

/** Sends a request to its job. */
export interface PrivacyQueue {
  send(message: z.infer<typeof privacyMessageSchema>): Promise<unknown>;
}

/**
 * Records an erasure of a conversation or of a contact address's leads, and queues it; the same
 * erasure asked again answers the first request, and runs it again if it had failed. Another
 * workspace's conversation is not found.
 */
export async function requestErasure(
  db: Database,
  queue: PrivacyQueue,
  audit: AuditContext & { workspaceId: string; organizationId: string },
  target: { conversationId: string } | { contactEmail: string },
  now: number,
): Promise<PrivacyRow> {
  if ('conversationId' in target) {
    const found = await db
      .select({ id: conversations.id })
      .from(conversations)
      .where(and(eq(conversations.id, target.conversationId), eq(conversations.workspaceId, audit.workspaceId)))
      .get();
    if (!found) throw new ApiError('not_found', `No conversation ${target.conversationId}.`);
  }
  const [targetKind, value] =
    'conversationId' in target
      ? (['conversation', target.conversationId] as const)
      : (['contact', target.contactEmail.trim().toLowerCase()] as const);
  const targetHash = await sha256Hex(`${targetKind}:${value}`);
  const id = newId('pvr', now);
  await db.batch([
    db
      .insert(privacyRequests)
      .values({
        id,
        workspaceId: audit.workspaceId,
        kind: 'erasure',
        targetKind,
        target: value,
        targetHash,
        status: 'queued',
        requestedBy: `${audit.actorKind}:${audit.actorId}`,
        createdAt: now,
      })
      .onConflictDoNothing(),
    auditInsert(
      db,
      audit,
      { ...audit, action: 'privacy.erasure_requested', targetId: targetKind === 'conversation' ? value : targetHash },
      now,
    ),
  ]);
  const row = await db
    .select()
    .from(privacyRequests)
    .where(and(eq(privacyRequests.workspaceId, audit.workspaceId), eq(privacyRequests.targetHash, targetHash)))
    .get();
  if (row!.id === id) await queue.send({ kind: 'privacy.run', request_id: id });
  else if (row!.status === 'failed') {
    // A failed erasure asked again runs again, with the target it was asked by (kept only as its hash).
    const requeued = await db
      .update(privacyRequests)
      .set({ status: 'queued', target: value, result: null, completedAt: null })
      .where(and(eq(privacyRequests.id, row!.id), eq(privacyRequests.status, 'failed')))
      .returning()
      .get();
    if (requeued) {
      await queue.send({ kind: 'privacy.run', request_id: requeued.id });
      return requeued;
    }
  }
  return row!;
}

/** How many times the queue runs a privacy job before it is given up (wrangler.toml's max_retries + 1). */
export const PRIVACY_JOB_ATTEMPTS = 4;

/**
 * A request whose job failed its last attempt: `failed`, with the reason the owner reads, and an
 * erasure's address kept only as its hash (asking again runs it again).
 */
export async function failPrivacyRequest(db: Database, requestId: string, reason: string, now: number) {
  const row = await db.select().from(privacyRequests).where(eq(privacyRequests.id, requestId)).get();
  if (!row) return;
  await db
    .update(privacyRequests)
    .set({
      status: 'failed',
      // The reason as the owner may read it: never an address, whatever the error said.
      result: { error: scrubAddresses(reason).slice(0, 300) },
      completedAt: now,
      ...(row.kind === 'erasure' && row.targetKind === 'contact' ? { target: row.targetHash } : {}),
    })
    .where(and(eq(privacyRequests.id, requestId), eq(privacyRequests.status, 'queued')));
}

/** Records an export of the workspace, or of one contact address's leads, and queues it. */
export async function requestExport(
  db: Database,
  queue: PrivacyQueue,
  audit: AuditContext & { workspaceId: string; organizationId: string },
  target: { contactEmail?: string | undefined },
  now: number,
): Promise<PrivacyRow> {
  const contact = target.contactEmail?.trim().toLowerCase();
  const row: PrivacyRow = {
    id: newId('pvr', now),
    workspaceId: audit.workspaceId,
    kind: 'export',
    targetKind: contact ? 'contact' : 'workspace',
    target: contact ?? audit.workspaceId,
    targetHash: await sha256Hex(`export:${contact ?? audit.workspaceId}`),
    status: 'queued',
    result: null,
    requestedBy: `${audit.actorKind}:${audit.actorId}`,
    createdAt: now,
    completedAt: null,
  };
  await db.batch([
    db.insert(privacyRequests).values(row),
    auditInsert(db, audit, { ...audit, action: 'privacy.export_requested', targetId: row.id }, now),
  ]);
  await queue.send({ kind: 'privacy.run', request_id: row.id });
  return row;
}

/** How many of a workspace's requests the console lists. */
export const RECENT_PRIVACY_REQUESTS = 20;

/** A workspace's newest requests, newest first (the console's list). */
export function recentPrivacyRequests(db: Database, workspaceId: string): Promise<PrivacyRow[]> {
  return db
    .select()
    .from(privacyRequests)
    .where(eq(privacyRequests.workspaceId, workspaceId))
    .orderBy(desc(privacyRequests.createdAt), desc(privacyRequests.id))
    .limit(RECENT_PRIVACY_REQUESTS)
    .all();
}

/** A request of this workspace, or not found (another workspace's too). */
export async function privacyRequest(db: Database, workspaceId: string, id: string): Promise<PrivacyRow> {
  const row = await db
    .select()
    .from(privacyRequests)
    .where(and(eq(privacyRequests.id, id), eq(privacyRequests.workspaceId, workspaceId)))
    .get();
  if (!row) throw new ApiError('not_found', `No privacy request ${id}.`);
  return row;
}

/** Runs a queued request once: the erasure in D1 and the archives, or the export's object. */
export async function runPrivacyRequest(
  db: Database,
  bucket: ArchiveBucket & ExportBucket,
  requestId: string,
  now: number,
) {
  const row = await db.select().from(privacyRequests).where(eq(privacyRequests.id, requestId)).get();
  if (row?.status !== 'queued') return;
  let result: Record<string, unknown>;
  if (row.kind === 'erasure') {
    const target = row.targetKind === 'conversation' ? { conversationId: row.target } : { contactEmail: row.target };
    const subjects = await erasureSubjects(db, row.workspaceId, target);
    const rows = await eraseInDatabase(db, row.workspaceId, subjects);
    const objects = await eraseInArchive(db, bucket, row.workspaceId, subjects);
    result = { conversations: subjects.conversationIds.length, leads: subjects.leadIds.length, rows, objects };
  } else {
    const contact = row.targetKind === 'contact' ? row.target : undefined;
    const { rows, bytes } = await writeExport(exportPages(db, row.workspaceId, contact), bucket, exportKey(row));
    result = { rows, bytes };
  }
  // An erasure keeps no copy of what it erased: its target becomes the hash it was asked by.
  await db
    .update(privacyRequests)
    .set({
      status: 'done',
      result,
      completedAt: now,
      ...(row.kind === 'erasure' && row.targetKind === 'contact' ? { target: row.targetHash } : {}),
    })
    .where(and(eq(privacyRequests.id, row.id), eq(privacyRequests.status, 'queued')));
}

/** The signature of an export's download link until `expires`. */
async function linkSignature(secret: string, id: string, expires: number): Promise<string> {
  return toHex(await hmacSha256(secret, `privacy-export:${id}.${expires}`));
}

/** A download link for a finished export, signed for 24 hours from now. */
export async function exportLink(secret: string, id: string, now: number): Promise<string> {
  const expires = now + EXPORT_LINK_TTL_MS;
  return `/api/privacy/exports/${id}/download?expires=${expires}&signature=${await linkSignature(secret, id, expires)}`;
}

/** The export a signed link opens, when the signature holds and it has not expired; else refused. */
export async function openExport(
  db: Database,
  bucket: { get(key: string): Promise<{ body: ReadableStream; size: number } | null> },
  secret: string,
  link: { id: string; expires: number; signature: string },
  now: number,
) {
  const valid =
    link.expires > now && (await secretsEqual(link.signature, await linkSignature(secret, link.id, link.expires)));
  if (!valid) throw new ApiError('forbidden', 'This download link is not valid, or it has expired.');
  const row = await db.select().from(privacyRequests).where(eq(privacyRequests.id, link.id)).get();
  if (row?.kind !== 'export' || row.status !== 'done') throw new ApiError('not_found', 'No such export.');
  const object = await bucket.get(exportKey(row));
  if (!object) throw new ApiError('not_found', 'The export is no longer kept.');
  // Streamed as R2 reads it: an export of any size passes through without being held.
  return object;
}
