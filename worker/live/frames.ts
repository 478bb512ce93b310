/**
 * The JSON frames of a live conversation socket (docs/design/live.md). Sockets only deliver:
 * messages are sent over HTTP (intake, the reply route) and written to D1 first. The widget and
 * the workbench import these types (types only).
 */
import { z } from 'zod';
import type { MessageView, VisitorThread } from '../platform/conversations/schemas';
import type { LeadStatus } from '../vocabulary';

/** Who holds a socket: the visitor of the conversation, or the expert who claimed its lead. */
export type ParticipantRole = 'visitor' | 'provider';

const messageId = z.string().startsWith('msg_').max(64);

/** What a client may send: `resume` first, then typing and read marks. Anything else is ignored. */
export const clientFrameSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('resume'), after: messageId.nullable() }),
  z.object({ type: z.literal('typing'), active: z.boolean() }),
  z.object({ type: z.literal('read'), up_to: messageId }),
]);
export type ClientFrame = z.infer<typeof clientFrameSchema>;

/** Why a live session ended: the lead closed or went back to open, or this participant lost the right. */
export type ClosedReason = 'lead_won' | 'lead_lost' | 'released' | 'lead_open' | 'revoked';

/** What the server sends. */
export type ServerFrame =
  | { type: 'message'; message: MessageView }
  | { type: 'typing'; role: ParticipantRole; active: boolean }
  | { type: 'read'; role: ParticipantRole; up_to: string }
  | { type: 'lead'; status: LeadStatus; claimed_by_name: string | null }
  | { type: 'resumed'; lead: VisitorThread['lead'] }
  | { type: 'closed'; reason: ClosedReason };

/** The bounds of a live session. */
export const LIVE_LIMITS = {
  /** A ticket opens one socket, within this long. */
  ticketMs: 60_000,
  /** Sockets per conversation and participant (a visitor's tabs, an expert's windows). */
  socketsPerParticipant: 5,
  /** The largest frame a client may send; a larger one closes the socket (1009). */
  clientFrameBytes: 1024,
  /** Tickets one participant may hold unspent at once, and mint per minute. */
  ticketsPerParticipant: 5,
  ticketsPerMinute: 20,
  /** Frames a socket may send per window (typing, read marks); more are dropped. */
  framesPerWindow: 20,
  frameWindowMs: 10_000,
  /** A socket that keeps sending this many frames over its window is closed (1008). */
  framesBeforeClose: 100,
} as const;
