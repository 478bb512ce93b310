/**
 * An export's download link (docs/design/data-lifecycle.md): signed for 24 hours, and what it
 * opens, found on whichever shard holds the export (the link names it alone).
 */
import { eq } from 'drizzle-orm';
import { hmacSha256, secretsEqual, toHex } from '../../lib/crypto';
import { type Database, schema } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { enterWhereFound } from '../shards';
import { EXPORT_LINK_TTL_MS, exportKey } from './privacy';

const { privacyRequests } = schema;

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
  // The link names the export alone: the shard that has it is its organisation's.
  if (!(await enterWhereFound(db, privacyRequests, privacyRequests.id, privacyRequests.workspaceId, link.id)))
    throw new ApiError('not_found', 'No such export.');
  const row = await db.select().from(privacyRequests).where(eq(privacyRequests.id, link.id)).get();
  if (row?.kind === 'export' && row.status === 'expired')
    throw new ApiError('not_found', 'The export is no longer kept.');
  if (row?.kind !== 'export' || row.status !== 'done') throw new ApiError('not_found', 'No such export.');
  const object = await bucket.get(exportKey(row));
  if (!object) throw new ApiError('not_found', 'The export is no longer kept.');
  // Streamed as R2 reads it: an export of any size passes through without being held.
  return object;
}
