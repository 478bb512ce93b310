/**
 * The visitor's live connection (docs/design/live.md): a socket opened with a single-use ticket,
 * `resume` first so nothing is lost, and, when a socket cannot open or keeps dropping, polling of
 * the thread with backoff. Either way the panel gets the same messages, which it de-duplicates by
 * `message_id`. Sockets only deliver: messages are sent over HTTP (intake).
 */
import type { MessageView, ServerFrame, VisitorThread, WidgetConfig } from './types';
import { bookmarkHeader } from './bookmark';

export interface LiveHandlers {
  /** Messages, in order; some may be known already. */
  messages(messages: MessageView[]): void;
  /** Typing, read marks and lead changes from the other side. */
  frame(frame: ServerFrame): void;
  /** The last message the panel has, to resume (or poll) after. */
  lastId(): string | null;
}

export interface LiveConnection {
  typing(active: boolean): void;
  read(upTo: string): void;
  stop(): void;
}

const POLL_MIN_MS = 2_000;
const POLL_MAX_MS = 30_000;
/** After this many sockets that closed within a few seconds, the connection polls instead. */
const MAX_QUICK_DROPS = 3;

/** Opens the live connection of a visitor's session; it reconnects and falls back on its own. */
export function connectLive(config: WidgetConfig, session: string, on: LiveHandlers): LiveConnection {
  const auth = { Authorization: `Bearer ${session}` };
  // The thread and the ticket live beside intake.
  const route = (name: string) => config.intake_url.replace(/\/intake$/, `/${name}`);
  let socket: WebSocket | undefined;
  let stopped = false;
  let quickDrops = 0;
  let pollDelay = POLL_MIN_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // The visitor's read mark, sent with the next poll when there is no socket to carry it.
  let unsentRead: string | undefined;

  const poll = async () => {
    if (stopped) return;
    try {
      const after = on.lastId();
      const query = new URLSearchParams({
        ...(after ? { after } : {}),
        ...(unsentRead ? { read_up_to: unsentRead } : {}),
      }).toString();
      unsentRead = undefined;
      const url = `${route('messages')}${query ? `?${query}` : ''}`;
      const response = await fetch(url, {
        headers: { ...auth, ...bookmarkHeader(config.channel_key) },
        credentials: 'omit',
      });
      if (response.ok) {
        const thread = (await response.json()) as VisitorThread;
        if (thread.messages.length > 0) pollDelay = POLL_MIN_MS;
        else pollDelay = Math.min(pollDelay * 2, POLL_MAX_MS);
        on.messages(thread.messages);
        if (thread.lead) on.frame({ type: 'lead', ...thread.lead });
      } else pollDelay = Math.min(pollDelay * 2, POLL_MAX_MS);
    } catch {
      pollDelay = Math.min(pollDelay * 2, POLL_MAX_MS);
    }
    timer = setTimeout(poll, pollDelay);
  };

  const open = async () => {
    if (stopped) return;
    if (quickDrops >= MAX_QUICK_DROPS || typeof WebSocket === 'undefined') return void poll();
    let url: string;
    try {
      const response = await fetch(route('live-ticket'), { method: 'POST', headers: auth, credentials: 'omit' });
      if (!response.ok) throw new Error(String(response.status));
      url = ((await response.json()) as { url: string }).url;
    } catch {
      quickDrops++;
      timer = setTimeout(open, 1_000 * quickDrops);
      return;
    }
    const openedAt = Date.now();
    let live: WebSocket;
    try {
      live = new WebSocket(url);
    } catch {
      // Refused outright (a host page's CSP, say): poll instead.
      quickDrops = MAX_QUICK_DROPS;
      return void poll();
    }
    socket = live;
    live.onopen = () => live.send(JSON.stringify({ type: 'resume', after: on.lastId() }));
    live.onmessage = (event) => {
      const frame = JSON.parse(String(event.data)) as ServerFrame;
      if (frame.type === 'message') on.messages([frame.message]);
      else if (frame.type === 'resumed') {
        quickDrops = 0;
        if (frame.lead) on.frame({ type: 'lead', ...frame.lead });
      } else on.frame(frame);
      if (frame.type === 'closed') stopped = true;
    };
    live.onclose = () => {
      socket = undefined;
      if (stopped) return;
      if (Date.now() - openedAt < 5_000) quickDrops++;
      timer = setTimeout(open, 500 * (quickDrops + 1));
    };
  };

  void open();
  const sendFrame = (frame: unknown) => {
    if (socket?.readyState === 1) socket.send(JSON.stringify(frame));
  };
  return {
    typing: (active) => sendFrame({ type: 'typing', active }),
    read: (upTo) => {
      if (socket?.readyState === 1) sendFrame({ type: 'read', up_to: upTo });
      else unsentRead = upTo;
    },
    stop: () => {
      stopped = true;
      clearTimeout(timer);
      socket?.close();
    },
  };
}
