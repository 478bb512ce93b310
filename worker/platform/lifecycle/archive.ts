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

/** What of R2 the archive uses (R2Bucket has it; tests may hand a failing one). */
export interface ArchiveBucket {
  put(key: string, value: Uint8Array, options?: { httpMetadata?: { contentType?: string } }): Promise<unknown>;
  get(key: string): Promise<{ arrayBuffer(): Promise<ArrayBuffer> } | null>;
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

/** Writes an archived object again with these rows (an erasure's), and its manifest row's size and checksum. */
export async function rewriteArchive(db: Database, bucket: ArchiveBucket, key: string, rows: readonly unknown[]) {
  const body = await gzipNdjson(rows);
  await bucket.put(key, body, { httpMetadata: { contentType: 'application/x-ndjson' } });
  await db.run(sql`UPDATE ${archiveObjects} SET bytes = ${body.byteLength}, sha256 = ${await sha256Bytes(body)}
    WHERE key = ${key}`);
}

/** The UTC day of a timestamp, as the archive's keys name it. */
export const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);

/** Where a batch of rows is archived. */
export function archiveKey(workspaceId: string, kind: ArchiveClass, day: string, firstId: string): string {
  return `archive/${workspaceId || 'platform'}/${kind}/${day}/${firstId}.ndjson.gz`;
}

/**
 * Writes one batch to R2, then its manifest row; answers the key. Throws when R2 refuses: the
 * caller then deletes nothing of the batch.
 */
export async function writeArchive(
  db: Database,
  bucket: ArchiveBucket,
  batch: { workspaceId: string; kind: ArchiveClass; day: string; rows: readonly { id: string }[] },
  now: number,
): Promise<string> {
  const key = archiveKey(batch.workspaceId, batch.kind, batch.day, batch.rows[0]!.id);
  const body = await gzipNdjson(batch.rows);
  await bucket.put(key, body, { httpMetadata: { contentType: 'application/x-ndjson' } });
  await db.run(sql`INSERT INTO ${archiveObjects} (key, workspace_id, kind, day, rows, bytes, sha256, created_at)
    VALUES (${key}, ${batch.workspaceId}, ${batch.kind}, ${batch.day}, ${batch.rows.length}, ${body.byteLength},
      ${await sha256Bytes(body)}, ${now})
    ON CONFLICT (key) DO UPDATE SET rows = excluded.rows, bytes = excluded.bytes, sha256 = excluded.sha256,
      created_at = excluded.created_at`);
  return key;
}
