/**
 * The way out of every email (docs/design/email.md, RFC 8058): a link that needs no sign-in.
 * Its token names what it stops: `a.{provider_id}` (an expert's lead alerts), `v.{conversation_id}`
 * (the visitor emails to that conversation's address) or `u.{user_id}` (an owner's escalations), signed with an
 * HMAC under SECRETS_KEY, so nothing is stored per email and a token cannot be made for another
 * expert or address. GET shows a confirmation (mail scanners follow links); POST applies it.
 */
import { eq } from 'drizzle-orm';
import { hmacSha256, sha256Hex, toHex } from '../../lib/crypto';
import { type Database, schema } from '../../lib/db';

const { providers, conversations, leads, users, emailSuppressions } = schema;

const encoder = new TextEncoder();

/** What an unsubscribe token stops. */
export type UnsubscribeTarget =
  | { kind: 'alerts'; providerId: string }
  | { kind: 'visitor'; conversationId: string }
  | { kind: 'owner'; userId: string };

const PREFIXES = { alerts: 'a', visitor: 'v', owner: 'u' } as const;

async function signature(secret: string, payload: string): Promise<string> {
  return toHex(await hmacSha256(secret, `unsubscribe:${payload}`)).slice(0, 32);
}

/** The token of a target. */
export async function unsubscribeToken(secret: string, target: UnsubscribeTarget): Promise<string> {
  const subject =
    target.kind === 'alerts' ? target.providerId : target.kind === 'visitor' ? target.conversationId : target.userId;
  const payload = `${PREFIXES[target.kind]}.${subject}`;
  return `${payload}.${await signature(secret, payload)}`;
}

/** The target a token names, if its signature holds (compared in constant time). */
export async function readUnsubscribeToken(secret: string, token: string): Promise<UnsubscribeTarget | undefined> {
  const match = token.match(/^([avu])\.([a-z]{2,4}_[0-9a-z_]{1,40})\.([0-9a-f]{32})$/);
  if (!match) return undefined;
  const [, kind, subject, given] = match;
  const expected = await signature(secret, `${kind}.${subject}`);
  const [a, b] = await Promise.all(
    [given!, expected].map((value) => crypto.subtle.digest('SHA-256', encoder.encode(value))),
  );
  if (!crypto.subtle.timingSafeEqual(a!, b!)) return undefined;
  if (kind === 'a') return { kind: 'alerts', providerId: subject! };
  return kind === 'v' ? { kind: 'visitor', conversationId: subject! } : { kind: 'owner', userId: subject! };
}

/** The SHA-256 a suppressed address is kept as. */
export const addressHash = (address: string) => sha256Hex(address.trim().toLowerCase());

/**
 * Applies a target: the expert's lead alerts go `off`; the visitor's address (the conversation's
 * lead's) joins the suppression list, which every later visitor email to it respects.
 */
export async function applyUnsubscribe(db: Database, target: UnsubscribeTarget, now: number): Promise<void> {
  if (target.kind === 'alerts') {
    await db.update(providers).set({ leadAlerts: 'off', updatedAt: now }).where(eq(providers.id, target.providerId));
    return;
  }
  if (target.kind === 'owner') {
    const user = await db.select({ email: users.email }).from(users).where(eq(users.id, target.userId)).get();
    if (user) await suppress(db, user.email, now);
    return;
  }
  const row = await db
    .select({ email: leads.contactEmail })
    .from(conversations)
    .innerJoin(leads, eq(leads.id, conversations.leadId))
    .where(eq(conversations.id, target.conversationId))
    .get();
  if (row?.email) await suppress(db, row.email, now);
}

async function suppress(db: Database, address: string, now: number) {
  await db
    .insert(emailSuppressions)
    .values({ addressHash: await addressHash(address), createdAt: now })
    .onConflictDoNothing();
}

/** Whether an address unsubscribed (a visitor's from their conversations' emails, an owner's from escalations). */
export async function isSuppressed(db: Database, address: string): Promise<boolean> {
  const row = await db
    .select({ hash: emailSuppressions.addressHash })
    .from(emailSuppressions)
    .where(eq(emailSuppressions.addressHash, await addressHash(address)))
    .get();
  return row !== undefined;
}
