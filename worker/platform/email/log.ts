/**
 * A workspace's email log (docs/design/email.md), for its owners and admins: each email about its
 * leads and conversations, the recipient masked, its subject, status and attempts. An alert that
 * went into a digest shows the digest's status.
 */
import { desc, eq, inArray, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import { type Database, schema } from '../../lib/db';
import type { EmailKind, EmailStatus } from '../../vocabulary';
import { maskAddress } from './addresses';

const { emails, providers, users, leads } = schema;

/** One row of the log. */
export interface EmailLogEntry {
  email_id: string;
  kind: EmailKind;
  status: EmailStatus;
  /** Set when the alert went into an hourly digest. */
  in_digest: boolean;
  recipient: string;
  subject: string;
  attempts: number;
  last_error: string | null;
  created_at: number;
  sent_at: number | null;
}

/**
 * The newest emails of a workspace. Two round trips: the emails (on the workspace's shard, with a
 * continuation's visitor address), then the experts' addresses (the directory's, with the people).
 */
export async function emailLog(db: Database, workspaceId: string, limit = 100): Promise<EmailLogEntry[]> {
  const digest = alias(emails, 'digest');
  const found = await db
    .select({
      email: emails,
      visitorAddress: leads.contactEmail,
      digestStatus: digest.status,
      digestAttempts: digest.attempts,
      digestSentAt: digest.sentAt,
    })
    .from(emails)
    .leftJoin(leads, sql`${leads.id} = ${emails.leadId} AND ${emails.kind} = 'visitor_continuation'`)
    .leftJoin(digest, eq(digest.id, emails.digestId))
    .where(eq(emails.workspaceId, workspaceId))
    .orderBy(desc(emails.id))
    .limit(limit);
  const expertIds = [...new Set(found.flatMap((row) => (row.email.providerId ? [row.email.providerId] : [])))];
  const experts = expertIds.length
    ? await db
        .select({ id: providers.id, address: users.email })
        .from(providers)
        .innerJoin(users, eq(users.id, providers.userId))
        .where(inArray(providers.id, expertIds))
    : [];
  const addressOf = new Map(experts.map((expert) => [expert.id, expert.address]));
  const rows = found.map((row) => ({
    ...row,
    address: (row.email.providerId ? addressOf.get(row.email.providerId) : null) ?? row.visitorAddress,
  }));
  return rows.map(({ email, address, digestStatus, digestAttempts, digestSentAt }) => ({
    email_id: email.id,
    kind: email.kind,
    status: digestStatus ?? email.status,
    in_digest: digestStatus !== null,
    recipient: address ? maskAddress(address) : '(no address)',
    subject: email.subject,
    attempts: digestStatus !== null ? (digestAttempts ?? 0) : email.attempts,
    last_error: digestStatus !== null ? null : email.lastError,
    created_at: email.createdAt,
    sent_at: digestStatus !== null ? (digestSentAt ?? null) : email.sentAt,
  }));
}
