/**
 * One Durable Object per conversation, for live delivery over WebSockets (docs/design/live.md).
 * It uses the hibernation API: sockets stay connected while the object sleeps, so an idle
 * conversation costs nothing. D1 stays the record of every message; this only delivers:
 * - a socket opens with a single-use ticket that an HTTP route issued after checking who may listen,
 *   and the right is checked again when it opens (a ticket minted before a release opens nothing);
 * - a participant who loses the right (a release, a lapse, a new claimer, a suspension) has every
 *   socket closed and every unspent ticket dropped; tickets, frames and frame sizes are bounded;
 * - its first frame is `resume`, answered from D1 with every message after the one it names, and
 *   anything fanned out meanwhile is held and sent after, so nothing is lost and the order holds;
 * - committed events arrive through `deliver` (jobs/publish.ts) and go to every resumed socket;
 * - typing and read marks travel between the participants (the last read mark is kept).
 */
import { DurableObject } from 'cloudflare:workers';
import type { Bindings } from '../env';
import { newSecretToken } from '../lib/crypto';
import { idBefore } from '../lib/ids';
import { buildServices } from '../lib/services';
import type { Database } from '../lib/db';
import { enterBy } from '../platform/shards';
import {
  type LiveParticipant,
  messageInConversation,
  participantMayListen,
  threadAfter,
  visitorReadUpTo,
} from '../platform/conversations';
import {
  type ClientFrame,
  type ClosedReason,
  clientFrameSchema,
  LIVE_LIMITS,
  type ParticipantRole,
  type ServerFrame,
} from './frames';
import { clock } from '../lib/clock';

/** Who a ticket admits. */
export interface Participant {
  role: ParticipantRole;
  /** The conversation for a visitor, the provider id for an expert. */
  id: string;
}

interface Ticket extends Participant {
  conversationId: string;
  expiresAt: number;
}

/** What each socket carries through hibernation. */
interface SocketState extends Participant {
  conversationId: string;
  resumed: boolean;
}

/** How long a resumed socket remembers its backlog's ids, against a late fan-out of the same messages. */
const BACKLOG_MEMORY_MS = 10_000;
/** How far before the named message a resume reads again (publishes of a moment apart may cross). */
const RESUME_OVERLAP_MS = 5_000;

/** The result of asking for a ticket: the ticket, or why not (too many unspent, or too fast). */
export type TicketResult = { ticket: string } | { refused: string };

/** Whom to close: a role (all of it, or all but one participant), or one participant. */
export type CloseTarget =
  | { role: ParticipantRole | 'all'; reason: ClosedReason; except?: string }
  | { participant: LiveParticipant; reason: ClosedReason };

const tagOf = (participant: LiveParticipant) => `${participant.role}:${participant.id}`;

/** A refusal as problem+json, with the id of the request the route forwarded (X-Request-Id). */
const problem = (request: Request, status: number, code: string, detail: string) =>
  new Response(
    JSON.stringify({
      type: `about:blank#${code}`,
      title: code,
      status,
      code,
      detail,
      request_id: request.headers.get('X-Request-Id') ?? 'req_unknown',
    }),
    { status, headers: { 'Content-Type': 'application/problem+json' } },
  );

/** The live room of one conversation. */
export class ConversationRoom extends DurableObject<Bindings> {
  /** Sockets answering `resume`: what is fanned out meanwhile waits here, to follow the backlog. */
  private readonly resuming = new Map<WebSocket, ServerFrame[]>();
  /**
   * The messages a resume sent from D1, per socket, for a few seconds: a message committed just
   * before the resume read is in its backlog and may still be on its way here through `deliver`.
   */
  private readonly backlogs = new Map<WebSocket, { ids: Set<string>; until: number }>();

  /**
   * The database of one call of this object (lib/services.ts), in the conversation's organisation:
   * the room keeps the workspace its first ticket named (docs/design/scale.md#the-layout).
   */
  private async db(): Promise<Database> {
    const { db } = buildServices(this.env, { kind: 'object' });
    const workspaceId = await this.ctx.storage.get<string>('workspace');
    if (!workspaceId || !(await enterBy(db, 'workspace', workspaceId)))
      throw new Error('This conversation room does not know its workspace.');
    return db;
  }

  /** Frames each socket sent in its current window (memory only: a woken room starts afresh). */
  private readonly frameCounts = new Map<WebSocket, { since: number; count: number }>();

  /**
   * A single-use ticket that opens one socket for this participant within 60 s; at most 5 unspent
   * at once and 20 a minute per participant. The room keeps the conversation's workspace, to read
   * from its organisation's shard.
   */
  async issueTicket(conversationId: string, participant: Participant, workspaceId: string): Promise<TicketResult> {
    const now = clock.now();
    await this.ctx.storage.put('workspace', workspaceId);
    const stored = await this.ctx.storage.list<Ticket>({ prefix: 'ticket:' });
    const expired = [...stored].filter(([, ticket]) => ticket.expiresAt <= now).map(([key]) => key);
    if (expired.length > 0) await this.ctx.storage.delete(expired);
    const unspent = [...stored].filter(
      ([, ticket]) => ticket.expiresAt > now && ticket.role === participant.role && ticket.id === participant.id,
    );
    if (unspent.length >= LIVE_LIMITS.ticketsPerParticipant) {
      return { refused: `At most ${LIVE_LIMITS.ticketsPerParticipant} unused live tickets at once: use one first.` };
    }
    const rateKey = `ticket-rate:${tagOf(participant)}`;
    const rate = await this.ctx.storage.get<{ since: number; count: number }>(rateKey);
    const window = rate && now - rate.since < 60_000 ? rate : { since: now, count: 0 };
    if (window.count >= LIVE_LIMITS.ticketsPerMinute) {
      return { refused: `At most ${LIVE_LIMITS.ticketsPerMinute} live tickets a minute.` };
    }
    const ticket = newSecretToken('lvt_', 24);
    await this.ctx.storage.put({
      [rateKey]: { since: window.since, count: window.count + 1 },
      [`ticket:${ticket}`]: { ...participant, conversationId, expiresAt: now + LIVE_LIMITS.ticketMs } satisfies Ticket,
    });
    return { ticket };
  }

  /** Opens a socket for the ticket's participant, if they may still listen: the ticket is spent whatever happens. */
  override async fetch(request: Request): Promise<Response> {
    const key = `ticket:${new URL(request.url).searchParams.get('ticket') ?? ''}`;
    const ticket = await this.ctx.storage.get<Ticket>(key);
    if (ticket) await this.ctx.storage.delete(key);
    if (!ticket || ticket.expiresAt <= clock.now())
      return problem(request, 401, 'invalid_token', 'This live ticket is unknown, used or expired. Ask for a new one.');
    if (request.headers.get('Upgrade')?.toLowerCase() !== 'websocket')
      return problem(request, 426, 'upgrade_required', 'Open this URL as a WebSocket.');
    // The right is the one in force now, not when the ticket was minted.
    if (!(await participantMayListen(await this.db(), ticket.conversationId, ticket))) {
      return problem(request, 403, 'not_claimer', 'You no longer take part in this conversation.');
    }
    const tag = tagOf(ticket);
    if (this.ctx.getWebSockets(tag).length >= LIVE_LIMITS.socketsPerParticipant) {
      return problem(
        request,
        429,
        'rate_limited',
        `At most ${LIVE_LIMITS.socketsPerParticipant} live connections per conversation and participant.`,
      );
    }
    const { 0: client, 1: server } = new WebSocketPair();
    this.ctx.acceptWebSocket(server, [ticket.role, tag]);
    const state: SocketState = {
      role: ticket.role,
      id: ticket.id,
      conversationId: ticket.conversationId,
      resumed: false,
    };
    server.serializeAttachment(state);
    return new Response(null, { status: 101, webSocket: client });
  }

  /** Closes the sockets of whoever `target` names, with a `closed` frame, and drops their unspent tickets. */
  async close(target: CloseTarget): Promise<number> {
    const sockets =
      'participant' in target
        ? this.ctx.getWebSockets(tagOf(target.participant))
        : (target.role === 'all' ? this.ctx.getWebSockets() : this.ctx.getWebSockets(target.role)).filter(
            (socket) => (socket.deserializeAttachment() as SocketState | null)?.id !== target.except,
          );
    for (const socket of sockets) {
      send(socket, { type: 'closed', reason: target.reason });
      socket.close(1000, target.reason);
      this.forget(socket);
    }
    const tickets = await this.ctx.storage.list<Ticket>({ prefix: 'ticket:' });
    const dropped = [...tickets]
      .filter(([, ticket]) =>
        'participant' in target
          ? ticket.role === target.participant.role && ticket.id === target.participant.id
          : (target.role === 'all' || ticket.role === target.role) && ticket.id !== target.except,
      )
      .map(([key]) => key);
    if (dropped.length > 0) await this.ctx.storage.delete(dropped);
    return sockets.length;
  }

  /**
   * Delivers committed frames to every resumed socket (and holds them for those resuming). With
   * `close`, the given role's sockets get a `closed` frame and are closed: the lead was released,
   * won or lost, so that live session is over.
   */
  async deliver(frames: ServerFrame[], close?: CloseTarget): Promise<number> {
    let reached = 0;
    for (const socket of this.ctx.getWebSockets()) {
      const pending = this.resuming.get(socket);
      if (pending) {
        pending.push(...frames);
        continue;
      }
      const state = socket.deserializeAttachment() as SocketState | null;
      if (!state?.resumed) continue; // Its resume reads D1 after this commit: it will see these.
      const backlog = this.backlogs.get(socket);
      if (backlog && backlog.until < clock.now()) this.backlogs.delete(socket);
      for (const frame of frames) {
        if (frame.type === 'message' && backlog?.ids.has(frame.message.message_id)) continue;
        send(socket, frame);
      }
      reached++;
    }
    if (close) await this.close(close);
    return reached;
  }

  /**
   * A client's frame: `resume` once, then typing and read marks. Anything else is ignored; an
   * oversized frame closes the socket, and frames past the rate are dropped (a flood closes it).
   */
  override async webSocketMessage(socket: WebSocket, data: string | ArrayBuffer): Promise<void> {
    const size = typeof data === 'string' ? data.length : data.byteLength;
    if (size > LIVE_LIMITS.clientFrameBytes) {
      socket.close(1009, 'Frame too large');
      this.forget(socket);
      return;
    }
    if (!this.withinFrameRate(socket)) return;
    if (typeof data !== 'string') return;
    let frame: ClientFrame;
    try {
      const parsed = clientFrameSchema.safeParse(JSON.parse(data));
      if (!parsed.success) return;
      frame = parsed.data;
    } catch {
      return;
    }
    const state = socket.deserializeAttachment() as SocketState;
    if (frame.type === 'resume') return this.resume(socket, state, frame.after);
    if (!state.resumed) return;
    if (frame.type === 'typing') {
      this.toOthers(state.role, { type: 'typing', role: state.role, active: frame.active });
      return;
    }
    // A read mark only moves forward, and only to a message of this conversation; the last one is
    // kept for sockets that resume later.
    const key = `read:${state.role}`;
    const previous = await this.ctx.storage.get<string>(key);
    if (previous && previous >= frame.up_to) return;
    const db = await this.db();
    if (!(await messageInConversation(db, state.conversationId, frame.up_to))) return;
    await this.ctx.storage.put(key, frame.up_to);
    this.toOthers(state.role, { type: 'read', role: state.role, up_to: frame.up_to });
    // The visitor's read mark is also D1's: a reply read live is not sent again by email.
    if (state.role === 'visitor') {
      await db.batch([visitorReadUpTo(db, state.conversationId, frame.up_to)]);
    }
  }

  /** Counts a frame of this socket: false past the rate (dropped); a flood closes the socket. */
  private withinFrameRate(socket: WebSocket): boolean {
    const now = clock.now();
    const current = this.frameCounts.get(socket);
    const window = current && now - current.since < LIVE_LIMITS.frameWindowMs ? current : { since: now, count: 0 };
    window.count += 1;
    this.frameCounts.set(socket, window);
    if (window.count > LIVE_LIMITS.framesBeforeClose) {
      socket.close(1008, 'Too many frames');
      this.forget(socket);
      return false;
    }
    return window.count <= LIVE_LIMITS.framesPerWindow;
  }

  private forget(socket: WebSocket): void {
    this.resuming.delete(socket);
    this.backlogs.delete(socket);
    this.frameCounts.delete(socket);
  }

  /** Completes the closing handshake (workerd logs an error without this handler). */
  override async webSocketClose(socket: WebSocket, code: number, reason: string): Promise<void> {
    this.forget(socket);
    // 1005 and 1006 say "no code was given" and may not be sent back.
    try {
      if (code === 1005 || code === 1006) socket.close(1000, 'closed');
      else socket.close(code, reason);
    } catch {
      // Already closed.
    }
  }

  /** A socket that failed is forgotten like a closed one. */
  override async webSocketError(socket: WebSocket): Promise<void> {
    this.forget(socket);
  }

  /**
   * The backlog from D1, the read marks, then whatever was fanned out meanwhile (each message once).
   * The backlog starts a few seconds before the message the client names: two messages committed
   * a moment apart can reach the room in either order, and a client that dropped between them
   * holds the later one but not the earlier. Clients de-duplicate by id.
   */
  private async resume(socket: WebSocket, state: SocketState, after: string | null): Promise<void> {
    if (state.resumed || this.resuming.has(socket)) return;
    this.resuming.set(socket, []);
    try {
      const from = after ? idBefore(after, RESUME_OVERLAP_MS) : null;
      const thread = await threadAfter(await this.db(), state.conversationId, from);
      const sent = new Set<string>();
      for (const message of thread.messages) {
        sent.add(message.message_id);
        send(socket, { type: 'message', message });
      }
      for (const role of ['visitor', 'provider'] as const) {
        const upTo = role === state.role ? undefined : await this.ctx.storage.get<string>(`read:${role}`);
        if (upTo) send(socket, { type: 'read', role, up_to: upTo });
      }
      send(socket, { type: 'resumed', lead: thread.lead });
      for (const frame of this.resuming.get(socket) ?? []) {
        if (frame.type === 'message' && sent.has(frame.message.message_id)) continue;
        send(socket, frame);
      }
      socket.serializeAttachment({ ...state, resumed: true } satisfies SocketState);
      this.backlogs.set(socket, { ids: sent, until: clock.now() + BACKLOG_MEMORY_MS });
    } finally {
      this.resuming.delete(socket);
    }
  }

  private toOthers(role: ParticipantRole, frame: ServerFrame): void {
    for (const other of this.ctx.getWebSockets()) {
      const state = other.deserializeAttachment() as SocketState | null;
      if (state?.resumed && state.role !== role) send(other, frame);
    }
  }
}

function send(socket: WebSocket, frame: ServerFrame): void {
  try {
    socket.send(JSON.stringify(frame));
  } catch {
    // The socket closed meanwhile: its client resumes from its last message.
  }
}
