/**
 * Keys into one conversation that an email carries (docs/design/email.md). A `resume` key is a
 * visitor bearer (`egv_…`, 256 bits) that opens the conversation in the hosted inbox; a `reply`
 * key is the local part of the Reply-To address (`reply+{key}`, 256 bits in lower-case base32,
 * since mail systems may fold the case of an address). Both are stored as SHA-256 and last 30
 * days; each opens one conversation only.
 */
import { enterBy, readEveryShard } from '../shards';
import { and, eq, gt, or, sql } from 'drizzle-orm';
import { base58, sha256Hex } from '../../lib/crypto';
import { type Database, schema } from '../../lib/db';

const { conversations, conversationKeys } = schema;

/** How long an email's keys open its conversation. */
export const CONVERSATION_KEY_TTL_MS = 30 * 24 * 60 * 60 * 1000;

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** 256 random bits in lower-case base32 (52 characters). */
function newReplyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** Mints a resume key and a reply key for a conversation, stored hashed; answers them once. */
export async function mintConversationKeys(
  db: Database,
  conversationId: string,
  now: number,
): Promise<{ resume: string; reply: string }> {
  const resume = `egv_${base58(crypto.getRandomValues(new Uint8Array(32)))}`;
  const reply = newReplyKey();
  const expiresAt = now + CONVERSATION_KEY_TTL_MS;
  await db.insert(conversationKeys).values([
    { keyHash: await sha256Hex(resume), conversationId, purpose: 'resume', expiresAt, createdAt: now },
    { keyHash: await sha256Hex(reply), conversationId, purpose: 'reply', expiresAt, createdAt: now },
  ]);
  return { resume, reply };
}

/** The conversation a reply key opens, while it lasts; its organisation entered. */
export async function conversationOfReplyKey(db: Database, key: string, now: number): Promise<string | undefined> {
  // A reply address names its key alone: the shard that has it is its conversation's organisation's.
  const keyHash = await sha256Hex(key.toLowerCase());
  const found = await readEveryShard(db, conversationKeys, (shardDb) =>
    shardDb
      .select({ workspaceId: conversations.workspaceId })
      .from(conversationKeys)
      .innerJoin(conversations, eq(conversations.id, conversationKeys.conversationId))
      .where(eq(conversationKeys.keyHash, keyHash))
      .get(),
  );
  const workspaceId = found.find((row) => row)?.workspaceId;
  if (!workspaceId || !(await enterBy(db, 'workspace', workspaceId))) return undefined;
  const row = await db
    .select({ conversationId: conversationKeys.conversationId })
    .from(conversationKeys)
    .where(
      and(
        eq(conversationKeys.keyHash, keyHash),
        eq(conversationKeys.purpose, 'reply'),
        gt(conversationKeys.expiresAt, now),
      ),
    )
    .get();
  return row?.conversationId;
}

/**
 * Whether a visitor bearer (its SHA-256) opens a conversation row: the token intake issued, or a
 * resume key from an email that has not expired. A condition on `conversations`.
 */
export function openedByVisitorToken(tokenHash: string, now: number) {
  return or(
    eq(conversations.tokenHash, tokenHash),
    eq(
      conversations.id,
      sql`(SELECT ${conversationKeys.conversationId} FROM ${conversationKeys} WHERE ${conversationKeys.keyHash} =
        ${tokenHash} AND ${conversationKeys.purpose} = 'resume' AND ${conversationKeys.expiresAt} > ${now})`,
    ),
  )!;
}

/** Keys past their 30 days (housekeeping). */
export function purgeExpiredConversationKeys(db: Database, now: number) {
  return db.delete(conversationKeys).where(sql`${conversationKeys.expiresAt} <= ${now}`);
}
