/**
 * /embed/lead.js: the claimer's live conversation on a lead's page (docs/design/live.md). It opens
 * the lead's live socket (a single-use ticket from the API, then `resume` after the last message on
 * the page), appends messages as text only, shows when the visitor types, sends the expert's typing
 * and read marks, and sends replies over the API without leaving the page. While the tab is hidden,
 * new visitor messages show in the title and the favicon. If the socket cannot open, it polls the
 * lead with backoff. The page works without it: the reply form posts and reloads.
 */
import type { ServerFrame } from './src/types';
import type { LeadDetail } from '../worker/platform/leads/schemas';
import { formatMoney } from '../worker/console/shared/money';

type Message = LeadDetail['messages'][number];

const list = document.querySelector<HTMLOListElement>('ol#transcript[data-live="on"]');
const form = document.querySelector<HTMLFormElement>('form#reply-form');
const typingLine = document.getElementById('typing');
const leadId = list?.dataset.leadId;

const when = (iso: string) => `${iso.replace('T', ' ').slice(0, 16)} UTC`;
const speaker = (message: Message) =>
  message.role === 'visitor'
    ? 'Visitor'
    : message.role === 'system'
      ? 'Platform'
      : message.role === 'agent'
        ? `Agent${message.author_name ? ` · ${message.author_name}` : ''}`
        : (message.author_name ?? 'Expert');

function element(tag: string, className: string, text: string): HTMLElement {
  const node = document.createElement(tag);
  node.className = className;
  node.textContent = text;
  return node;
}

if (list && form && leadId && typingLine) {
  const api = `/api/provider/workbench/leads/${encodeURIComponent(leadId)}`;
  const title = document.title;
  // The favicon notice: a red dot while messages wait unseen; the page's own icon (if any) after.
  const icon = document.querySelector<HTMLLinkElement>('link[rel="icon"]') ?? document.createElement('link');
  const iconHref = icon.getAttribute('href');
  icon.rel = 'icon';
  let unseen = 0;
  let socket: WebSocket | undefined;
  let drops = 0;
  let pollMs = 4_000;
  let closed = false;
  let typingTimer: ReturnType<typeof setTimeout> | undefined;
  let typingSent = 0;

  const lastId = () => list.querySelector<HTMLElement>('li[data-message-id]:last-child')?.dataset.messageId ?? null;
  const lastVisitorId = () =>
    [...list.querySelectorAll<HTMLElement>('li.turn.visitor[data-message-id]')].at(-1)?.dataset.messageId ?? null;

  const send = (frame: unknown) => {
    if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(frame));
  };

  const markRead = () => {
    const upTo = lastVisitorId();
    if (upTo && !document.hidden) send({ type: 'read', up_to: upTo });
  };

  const notify = () => {
    if (!document.hidden) return markRead();
    unseen++;
    document.title = `(${unseen}) New message · ${title}`;
    icon.href =
      'data:image/svg+xml,%3Csvg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"%3E' +
      '%3Ccircle cx="8" cy="8" r="7" fill="%23b42318"/%3E%3C/svg%3E';
    if (!icon.isConnected) document.head.append(icon);
  };

  document.addEventListener('visibilitychange', () => {
    if (document.hidden) return;
    unseen = 0;
    document.title = title;
    if (iconHref) icon.href = iconHref;
    else icon.remove();
    markRead();
  });

  const add = (message: Message) => {
    if (list.querySelector(`li[data-message-id="${CSS.escape(message.message_id)}"]`)) return;
    const item = element('li', `turn ${message.role}`, '');
    item.dataset.messageId = message.message_id;
    item.append(element('span', 'speaker', speaker(message)), element('span', 'when', when(message.created_at)));
    const text = element('p', '', message.text);
    // Each message in its own direction: English inside an Arabic conversation keeps its punctuation.
    text.dir = 'auto';
    item.append(text);
    // In id order: two messages committed a moment apart may arrive the other way round.
    const later = [...list.querySelectorAll<HTMLElement>('li[data-message-id]')].find(
      (other) => (other.dataset.messageId ?? '') > message.message_id,
    );
    if (later) later.before(item);
    else list.append(item);
    if (message.role === 'visitor') {
      typingLine.textContent = '';
      notify();
    }
  };

  // The lead's status moves on (the first reply makes it `contacted`): the pill and the next steps follow.
  const NEXT: Record<string, string[]> = {
    claimed: ['contacted'],
    contacted: ['qualified'],
    qualified: ['won', 'lost'],
  };
  // The history as the page draws it (lead-page.tsx), drawn again from the lead when its status moves.
  const history = document.querySelector<HTMLOListElement>('ol.history');
  const drawHistory = (entries: LeadDetail['history']) => {
    history?.replaceChildren(
      ...entries.map((entry) => {
        const item = document.createElement('li');
        const move = !entry.from
          ? `created (${entry.to})`
          : entry.from === entry.to
            ? 'routing'
            : `${entry.from} → ${entry.to}`;
        item.append(element('span', 'when', when(entry.at)), ` ${move}`);
        if (entry.value) {
          const worth = document.createElement('strong');
          worth.textContent = ` · ${formatMoney(entry.value.value_minor, entry.value.currency)}`;
          item.append(worth);
        }
        if (entry.by_you) item.append(element('span', 'muted', ' by you'));
        if (entry.note) item.append(element('p', 'note', entry.note));
        return item;
      }),
    );
  };
  const refreshHistory = async () => {
    try {
      const response = await fetch(api, { credentials: 'same-origin' });
      if (response.ok) drawHistory(((await response.json()) as LeadDetail).history);
    } catch {}
  };
  let shownStatus = document.querySelector('.title-row .pill[class*="status-"]')?.textContent ?? '';
  const showStatus = (status: string) => {
    if (status !== shownStatus) void refreshHistory();
    shownStatus = status;
    const pill = document.querySelector('.title-row .pill[class*="status-"]');
    if (pill) {
      pill.className = `pill status-${status}`;
      pill.textContent = status;
    }
    const select = document.querySelector<HTMLSelectElement>('select#f-status');
    if (select && NEXT[status]) {
      select.replaceChildren(
        ...NEXT[status].map((next) =>
          Object.assign(document.createElement('option'), { value: next, textContent: next }),
        ),
      );
    }
  };

  const onFrame = (frame: ServerFrame) => {
    if (frame.type === 'message') add(frame.message);
    else if (frame.type === 'typing' && frame.role === 'visitor') {
      typingLine.textContent = frame.active ? 'The visitor is typing…' : '';
      clearTimeout(typingTimer);
      typingTimer = setTimeout(() => (typingLine.textContent = ''), 6_000);
    } else if (frame.type === 'read' && frame.role === 'visitor') {
      for (const seen of list.querySelectorAll('.seen')) seen.remove();
      const mine = [...list.querySelectorAll<HTMLElement>('li.turn.provider[data-message-id]')].filter(
        (item) => (item.dataset.messageId ?? '') <= frame.up_to,
      );
      mine.at(-1)?.append(element('span', 'seen muted', 'Seen'));
    } else if (frame.type === 'lead') showStatus(frame.status);
    else if (frame.type === 'resumed') {
      if (frame.lead) showStatus(frame.lead.status);
      markRead();
    } else if (frame.type === 'closed') {
      closed = true;
      typingLine.textContent = 'This conversation is closed. Reload the page to see the lead as it is now.';
      for (const control of form.elements) (control as HTMLButtonElement).disabled = true;
    }
  };

  const poll = async () => {
    if (closed) return;
    try {
      const response = await fetch(api, { credentials: 'same-origin' });
      if (response.ok) {
        const before = lastId();
        for (const message of ((await response.json()) as LeadDetail).messages) add(message);
        pollMs = lastId() === before ? Math.min(pollMs * 2, 30_000) : 4_000;
      }
    } catch {}
    setTimeout(poll, pollMs);
  };

  const connect = async () => {
    if (closed) return;
    if (drops >= 3) return void poll();
    try {
      const response = await fetch(`${api}/live-ticket`, { method: 'POST', credentials: 'same-origin' });
      if (!response.ok) throw new Error(String(response.status));
      const live = new WebSocket(((await response.json()) as { url: string }).url);
      const opened = Date.now();
      socket = live;
      live.onopen = () => live.send(JSON.stringify({ type: 'resume', after: lastId() }));
      live.onmessage = (event) => onFrame(JSON.parse(String(event.data)) as ServerFrame);
      live.onclose = () => {
        socket = undefined;
        if (Date.now() - opened < 5_000) drops++;
        if (!closed) setTimeout(connect, 1_000 * (drops + 1));
      };
    } catch {
      drops++;
      setTimeout(connect, 1_000 * drops);
    }
  };

  const textarea = form.querySelector('textarea');
  textarea?.addEventListener('input', () => {
    if (Date.now() - typingSent < 2_000) return;
    typingSent = Date.now();
    send({ type: 'typing', active: true });
  });
  textarea?.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const text = textarea?.value ?? '';
    if (!text.trim()) return;
    const button = form.querySelector('button');
    if (button) button.disabled = true;
    try {
      const response = await fetch(`${api}/messages`, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ text }),
      });
      if (response.status === 201) {
        const { message_id, created_at } = (await response.json()) as { message_id: string; created_at: string };
        add({ message_id, created_at, role: 'provider', author_name: 'You', text });
        // Only what was sent is cleared: the expert may have typed the next reply while this one flew.
        if (textarea && textarea.value === text) textarea.value = '';
        send({ type: 'typing', active: false });
        typingSent = 0;
      } else {
        const problem = (await response.json().catch(() => ({}))) as { detail?: string };
        typingLine.textContent = problem.detail ?? 'The reply could not be sent. Try again.';
      }
    } catch {
      typingLine.textContent = 'The reply could not be sent. Check your connection and try again.';
    } finally {
      if (button) button.disabled = false;
      textarea?.focus();
    }
  });

  void connect();
}
