/**
 * The archive (docs/design/data-lifecycle.md): rows that leave D1 are first written to R2 (the
 * `ARCHIVE` binding) as gzip NDJSON, one object per workspace, class, day and batch, at
 * `archive/{workspace}/{class}/{yyyy-mm-dd}/{first row id}.ndjson.gz`, with a manifest row and the
 * SHA-256 of its bytes. The key follows from the rows, so writing the same batch again (a sweep
 * that died between the write and the delete) replaces the object instead of adding another.
 */
import { sql } from 'drizzle-orm';
import { toHex } from '../../lib/crypto';
import { type Database, schema } from '../../lib/db';

const { archiveObjects } = schema;

/**
 * What of R2 the archive uses (R2Bucket has it; tests may hand a failing one). A put with
 * `onlyIf.etagMatches` answers null when the object changed since it was read: two erasures
 * rewriting one object cannot undo each other.
 */
export interface ArchiveBucket {
  put(
    key: string,
    value: Uint8Array,
    options?: { httpMetadata?: { contentType?: string }; onlyIf?: { etagMatches: string } },
  ): Promise<unknown>;
  get(key: string): Promise<{ arrayBuffer(): Promise<ArrayBuffer>; etag: string } | null>;
}

/** The ids of conversations, leads and requests (demands) that rows name: what an erasure looks objects up by. */
export function subjectsOf(rows: readonly unknown[]): string[] {
  const found = new Set<string>();
  for (const row of rows)
    for (const match of JSON.stringify(row).matchAll(/\b(?:cnv|lead|dem)_[0-9a-z]{26}\b/g)) found.add(match[0]);
  return [...found];
}

/** The classes of rows archived before they are deleted (or their bodies cleared). */
export type ArchiveClass = 'events' | 'audit' | 'executions' | 'conversations';

/** Rows as NDJSON, gzip-compressed (CompressionStream, built into the runtime). */
export async function gzipNdjson(rows: readonly unknown[]): Promise<Uint8Array> {
  const text = rows.map((row) => JSON.stringify(row)).join('\n') + (rows.length ? '\n' : '');
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** The rows of a gzip NDJSON object. */
export async function gunzipNdjson(bytes: ArrayBuffer | Uint8Array): Promise<Record<string, unknown>[]> {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  const text = await new Response(stream).text();
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function sha256Bytes(bytes: Uint8Array): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>)));
}

/**
 * Writes an archived object again with these rows (an erasure's), if it is still the version read
 * (`etag`), and its manifest row's size, checksum and subjects; answers false when another writer
 * changed it meanwhile (the caller reads it again).
 */
export async function rewriteArchive(
  db: Database,
  bucket: ArchiveBucket,
  object: { key: string; etag: string },
  rows: readonly unknown[],
): Promise<boolean> {
  const body = await gzipNdjson(rows);
  const written = await bucket.put(object.key, body, {
    httpMetadata: { contentType: 'application/x-ndjson' },
    onlyIf: { etagMatches: object.etag },
  });
  if (written === null) return false;
  await db.run(sql`UPDATE ${archiveObjects} SET bytes = ${body.byteLength}, sha256 = ${await sha256Bytes(body)},
    subjects = ${JSON.stringify(subjectsOf(rows))} WHERE key = ${object.key}`);
  return true;
}

/** The UTC day of a timestamp, as the archive's keys name it. */
export const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);

/** Where a batch of rows is archived. */
export function archiveKey(workspaceId: string, kind: ArchiveClass, day: string, firstId: string): string {
  return `archive/${workspaceId || 'platform'}/${kind}/${day}/${firstId}.ndjson.gz`;
}

/**
 * Writes one batch to R2, then its manifest row (with the subjects its rows name); answers the key.
 * Throws when R2 refuses, or when a row has no id of its own (its key would not be unique, and a
 * later batch would replace it): the caller then deletes nothing of the batch.
 */
export async function writeArchive(
  db: Database,
  bucket: ArchiveBucket,
  batch: { workspaceId: string; kind: ArchiveClass; day: string; rows: readonly { id: string }[]; version?: string },
  now: number,
): Promise<string> {
  if (batch.rows.length === 0 || batch.rows.some((row) => typeof row.id !== 'string' || row.id === ''))
    throw new Error(`An archive batch of ${batch.kind} has a row without its id: nothing is written.`);
  // `version` tells apart two batches that start with the same row (a conversation archived again).
  const name = batch.version ? `${batch.rows[0]!.id}.${batch.version}` : batch.rows[0]!.id;
  const key = archiveKey(batch.workspaceId, batch.kind, batch.day, name);
  const body = await gzipNdjson(batch.rows);
  await bucket.put(key, body, { httpMetadata: { contentType: 'application/x-ndjson' } });
  await db.run(sql`INSERT INTO ${archiveObjects} (key, workspace_id, kind, day, rows, bytes, sha256, subjects,
      created_at)
    VALUES (${key}, ${batch.workspaceId}, ${batch.kind}, ${batch.day}, ${batch.rows.length}, ${body.byteLength},
      ${await sha256Bytes(body)}, ${JSON.stringify(subjectsOf(batch.rows))}, ${now})
    ON CONFLICT (key) DO UPDATE SET rows = excluded.rows, bytes = excluded.bytes, sha256 = excluded.sha256,
      subjects = excluded.subjects, created_at = excluded.created_at`);
  return key;
}
