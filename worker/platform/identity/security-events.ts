/**
 * An account's security events (docs/design/identity-and-access.md#security-events): sign-ins,
 * failed sign-ins, a password reset, the second factor turned on or off, other sessions ended,
 * each with the device and country it came from; the account reads the latest on its security
 * page. Each is written in the batch (or beside the statement) of what it records.
 */
import { desc, eq, sql, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { type Database, schema } from '../../lib/db';
import { accountEmailInsert } from '../email';
import { normalizeEmail } from './email-address';
import type { SessionPlace } from './sessions';

const { securityEvents, users } = schema;

/** What a security event records. */
export type SecurityEventKind = (typeof securityEvents.$inferSelect)['kind'];

/** How many events the page shows. */
export const RECENT_EVENTS = 20;

/** The insert of one event for a known account, written only when `when` holds (the change went in). */
export function securityEventInsert(
  db: Database,
  event: { userId: string; kind: SecurityEventKind; where?: SessionPlace },
  now: number,
  when: SQL = sql`1`,
): BatchItem<'sqlite'> {
  return db.run(sql`INSERT INTO ${securityEvents} (user_id, kind, device, place, created_at)
    SELECT ${event.userId}, ${event.kind}, ${event.where?.device ?? null}, ${event.where?.place ?? null}, ${now}
    WHERE ${when}`);
}

/**
 * A failed sign-in, recorded for the account of `email` when there is one: the same single
 * statement either way, so the record says nothing to the person signing in.
 */
export async function recordFailedSignIn(db: Database, email: string, where: SessionPlace, now: number) {
  await db.run(sql`INSERT INTO ${securityEvents} (user_id, kind, device, place, created_at)
    SELECT ${users.id}, 'sign_in_failed', ${where.device}, ${where.place}, ${now}
    FROM ${users} WHERE ${users.email} = ${normalizeEmail(email)}`);
}

/** The account's latest events, newest first. */
export async function recentSecurityEvents(db: Database, userId: string, limit = RECENT_EVENTS) {
  return db
    .select({
      kind: securityEvents.kind,
      device: securityEvents.device,
      place: securityEvents.place,
      createdAt: securityEvents.createdAt,
    })
    .from(securityEvents)
    .where(eq(securityEvents.userId, userId))
    .orderBy(desc(securityEvents.createdAt), desc(securityEvents.id))
    .limit(limit);
}

/** The events its owner is also told of by email, and the subject that tells it. */
const EMAILED: Partial<Record<SecurityEventKind, string>> = {
  factor_on: 'Two-step sign-in was turned on',
  factor_off: 'Two-step sign-in was turned off',
  sessions_ended: 'Your other sessions were signed out',
  passkey_added: 'A passkey was added to your account',
  passkey_removed: 'A passkey was removed from your account',
};

/** Records an event the account's own page caused, and emails its owner when it is one of EMAILED. */
export async function recordSecurityEvent(
  db: Database,
  event: { userId: string; kind: SecurityEventKind; where: SessionPlace; linkOrigin: string },
  now: number,
): Promise<void> {
  const subject = EMAILED[event.kind];
  await db.batch([
    securityEventInsert(db, event, now),
    ...(subject
      ? [
          accountEmailInsert(
            db,
            {
              kind: 'notice',
              account: sql`FROM ${users} WHERE ${users.id} = ${event.userId}`,
              subject,
              linkOrigin: event.linkOrigin,
              linkPath: '/account/security',
            },
            now,
          ),
        ]
      : []),
  ]);
}

/**
 * Records a sign-in; one from a device the account has not signed in from before (not the first
 * one, at sign-up) is also emailed to its owner, so a stolen password used elsewhere is noticed.
 */
export async function recordSignIn(
  db: Database,
  event: { userId: string; where: SessionPlace; linkOrigin: string },
  now: number,
): Promise<void> {
  const signIns = (device: SQL) => sql`SELECT 1 FROM ${securityEvents} WHERE ${securityEvents.userId} =
    ${event.userId} AND ${securityEvents.kind} = 'signed_in' AND ${device}`;
  const device = event.where.device;
  const sameDevice = signIns(sql`${securityEvents.device} IS ${device}`);
  const newDevice = sql`EXISTS (${signIns(sql`1`)}) AND NOT EXISTS (${sameDevice})`;
  // The email's statement runs first: it reads the sign-ins before this one.
  await db.batch([
    accountEmailInsert(
      db,
      {
        kind: 'notice',
        account: sql`FROM ${users} WHERE ${users.id} = ${event.userId}`,
        subject: `A new sign-in to your account${device ? ` (${device})` : ''}`,
        linkOrigin: event.linkOrigin,
        linkPath: '/account/security',
      },
      now,
      newDevice,
    ),
    securityEventInsert(db, { userId: event.userId, kind: 'signed_in', where: event.where }, now),
  ]);
}
