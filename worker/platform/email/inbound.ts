/**
 * Replies by email (docs/design/email.md): what of an incoming message becomes the visitor's
 * message. Only `reply+{key}@{MAIL_REPLY_DOMAIN}` is taken; the MIME is parsed with postal-mime
 * (maintained, runs in Workers); the plain text is kept (the HTML's text when there is none),
 * without the quoted history mail clients add below or above a reply, at most 4,000 characters.
 */
import { eq, sql } from 'drizzle-orm';
import { type Database, schema } from '../../lib/db';
import { conversationOfReplyKey } from '../conversations';
import { MESSAGE_MAX_CHARS } from '../../vocabulary';

const { conversations, channels, emails, leads } = schema;

/** Larger messages are refused before they are read (a reply is a few KB; attachments are not taken). */
export const INBOUND_MAX_BYTES = 512 * 1024;

/** The reply key of an address, when it is ours: `reply+{52 base32 characters}@{domain}`. */
export function replyKeyOf(address: string, replyDomain: string | undefined): string | undefined {
  const match = address
    .trim()
    .toLowerCase()
    .match(/^reply\+([a-z2-7]{52})@([^@\s]+)$/);
  if (!match) return undefined;
  if (replyDomain && match[2] !== replyDomain.toLowerCase()) return undefined;
  return match[1];
}

/** The text of an HTML part, for a message that has no plain-text part. */
function textOfHtml(html: string): string {
  return html
    .replace(/<(script|style|head)[\s\S]*?<\/\1>/gi, '')
    .replace(/<blockquote[\s\S]*?<\/blockquote>/gi, '')
    .replace(/<br\s*\/?>|<\/(p|div|li|tr|h\d)>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

/** Where the quoted history starts: the first line that introduces or is part of it. */
const HISTORY_MARKERS = [
  /^On .{3,200}wrote:\s*$/i, // Gmail, Apple Mail, Thunderbird
  /^Le .{3,200}a écrit\s*:\s*$/i,
  /^Am .{3,200}schrieb .{0,200}:\s*$/i,
  /^-{2,}\s*Original Message\s*-{2,}$/i, // Outlook
  /^_{10,}$/, // Outlook's rule above From:/Sent:
  /^From:\s.+$/i,
  /^>/,
];

/** A reply's own words: quoted history and the signature removed, whitespace tidied. */
export function stripQuotedHistory(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const end = lines.findIndex((line, index) => {
    const trimmed = line.trim();
    if (trimmed === '--' || line === '-- ') return true; // The signature separator.
    if (HISTORY_MARKERS.some((marker) => marker.test(trimmed))) return true;
    // An "On … wrote:" line that the client wrapped onto two lines.
    return /^On .{3,200}$/i.test(trimmed) && /^.{0,200}wrote:\s*$/i.test(lines[index + 1]?.trim() ?? '');
  });
  return (end === -1 ? lines : lines.slice(0, end))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** What a reply email carries for the conversation (and who its `From:` says wrote it), or why it is refused. */
export type InboundReply = { text: string; from: string } | { refuse: string };

/** Parses a raw message and takes the visitor's words from it. */
export async function readInboundReply(raw: ArrayBuffer | ReadableStream | string): Promise<InboundReply> {
  // Loaded on the first reply only: no request or job but the `email` entry point needs it.
  const { default: PostalMime } = await import('postal-mime');
  let parsed: Awaited<ReturnType<typeof PostalMime.parse>>;
  try {
    parsed = await PostalMime.parse(raw as ArrayBuffer, { maxNestingDepth: 20, maxHeadersSize: 64 * 1024 });
  } catch {
    return { refuse: 'The message could not be read.' };
  }
  const autoSubmitted = parsed.headers.find((header) => header.key === 'auto-submitted')?.value;
  if (autoSubmitted && autoSubmitted.trim().toLowerCase() !== 'no') {
    return { refuse: 'Automatic replies are not added to conversations.' };
  }
  const body = parsed.text ?? (parsed.html ? textOfHtml(parsed.html) : '');
  const text = stripQuotedHistory(body);
  if (!text) return { refuse: 'The message has no text to add to the conversation.' };
  return {
    text: text.length > MESSAGE_MAX_CHARS ? text.slice(0, MESSAGE_MAX_CHARS) : text,
    from: parsed.from?.address ?? '',
  };
}

/**
 * The conversation a reply key opens, with its channel, the links of the email it answers (the
 * links of any email this reply causes), and its lead's contact address and status (a reply is
 * taken only from that address, and only while the lead is open). Undefined when the key is
 * unknown or expired.
 */
export async function replyTarget(db: Database, key: string, now: number) {
  const conversationId = await conversationOfReplyKey(db, key, now);
  if (!conversationId) return undefined;
  const row = await db
    .select({
      channelKey: channels.channelKey,
      contactEmail: leads.contactEmail,
      leadStatus: leads.status,
      linkOrigin: sql<string | null>`(SELECT ${emails.linkOrigin} FROM ${emails} WHERE
        ${emails.conversationId} = ${conversations.id} ORDER BY ${emails.id} DESC LIMIT 1)`,
    })
    .from(conversations)
    .innerJoin(channels, eq(channels.id, conversations.channelId))
    .leftJoin(leads, eq(leads.id, conversations.leadId))
    .where(eq(conversations.id, conversationId))
    .get();
  return row ? { conversationId, ...row } : undefined;
}

/**
 * Whether a reply came from the address the email went to: both the envelope sender and the
 * `From:` header, compared without case. Anyone may guess or be forwarded a reply address; only
 * the visitor's own mailbox may add to the conversation.
 */
export function fromTheVisitor(contactEmail: string | null, envelopeFrom: string, headerFrom: string): boolean {
  if (!contactEmail) return false;
  const expected = contactEmail.trim().toLowerCase();
  return envelopeFrom.trim().toLowerCase() === expected && headerFrom.trim().toLowerCase() === expected;
}
