/**
 * The panel's conversation, as state and the events that change it: a pure reducer (tested in
 * conversation.test.ts) and the hook the panel uses. The panel keeps the side effects (intake
 * requests, the live connection, storage, focus); everything it shows comes from here.
 */
import say from '../../worker/lib/i18n/compiled/widget.en.js';
import { useReducer } from 'preact/hooks';
import type { IntakeAnswer, MessageView, ServerFrame } from './types';

export type Role = 'visitor' | 'assistant' | 'provider';

/** A message of the thread as the panel shows it. */
export interface Message {
  /** The server's `message_id`; a message being sent has none yet. */
  id?: string;
  role: Role;
  text: string;
  /** Set when an agent or robot wrote it: visitors are told when no person answered. */
  by?: string;
  /** The expert who wrote it. */
  author?: string;
  /** A knowledge answer's sources (the site's own help): shown as links under it. */
  sources?: Array<{ title: string; url: string | null }>;
}

export type ContactField = 'name' | 'email' | 'phone';
export type FieldErrors = Partial<Record<ContactField, string>>;

export interface ConversationState {
  sessionId: string | undefined;
  messages: Message[];
  /** `success`: the contact form went through; its card stands in for the reply's bubble. */
  view: 'chat' | 'success';
  success: { replyId?: string; reference?: string };
  /** An intake request is on its way (the panel says it is thinking). */
  busy: boolean;
  error: string | null;
  contactOpen: boolean;
  contactErrors: FieldErrors;
  /** The expert is typing. */
  typing: boolean;
  /** The expert's read mark. */
  readUpTo: string | null;
  /** Who claimed the conversation's lead (the header names them). */
  claimer: string | null;
  /** The live session ended (the lead was closed). */
  closed: boolean;
}

export type ConversationEvent =
  | { type: 'sending'; text?: string }
  | { type: 'answered'; answer: IntakeAnswer }
  | { type: 'failed'; message: string; fieldErrors: FieldErrors }
  | { type: 'arrived'; messages: MessageView[] }
  | { type: 'frame'; frame: ServerFrame }
  | { type: 'typing-quiet' }
  | { type: 'contact'; open: boolean }
  | { type: 'contact-sent'; answer: IntakeAnswer }
  | { type: 'back-to-chat' }
  | { type: 'preview'; text?: string; reply: string };

/** A message of the server as the panel shows it. */
export function fromView(view: MessageView): Message {
  if (view.role === 'visitor') return { id: view.message_id, role: 'visitor', text: view.text };
  if (view.role === 'provider')
    return { id: view.message_id, role: 'provider', text: view.text, author: view.author_name ?? say.expert() };
  return {
    id: view.message_id,
    role: 'assistant',
    text: view.text,
    ...(view.role === 'agent' && view.author_name ? { by: view.author_name } : {}),
    ...(view.sources ? { sources: view.sources } : {}),
  };
}

/**
 * Adds messages not shown yet, each once (by id). A visitor message that comes back from the
 * server takes the place of the same text still being sent. A copy that says where it comes from
 * (a knowledge answer's sources) completes one shown without them, whichever copy came first.
 */
export function merge(current: Message[], incoming: MessageView[]): Message[] {
  const known = new Set(current.map((message) => message.id));
  let next = current;
  for (const view of incoming) {
    if (known.has(view.message_id)) {
      if (view.sources && next.some((message) => message.id === view.message_id && !message.sources))
        next = next.map((message) => (message.id === view.message_id ? fromView(view) : message));
      continue;
    }
    known.add(view.message_id);
    const pending =
      view.role === 'visitor' ? next.findIndex((message) => !message.id && message.text === view.text) : -1;
    if (pending >= 0) {
      next = next.map((message, index) => (index === pending ? fromView(view) : message));
      continue;
    }
    // In id order: two messages committed a moment apart may arrive the other way round.
    const later = next.findIndex((message) => message.id !== undefined && message.id > view.message_id);
    next = later < 0 ? [...next, fromView(view)] : [...next.slice(0, later), fromView(view), ...next.slice(later)];
  }
  return next;
}

/** The state a panel starts with: the stored session and thread, if any. */
export function initialConversation(sessionId: string | undefined, messages: Message[]): ConversationState {
  return {
    sessionId,
    messages,
    view: 'chat',
    success: {},
    busy: false,
    error: null,
    contactOpen: false,
    contactErrors: {},
    typing: false,
    readUpTo: null,
    claimer: null,
    closed: false,
  };
}

/** What an event makes of the conversation. */
export function conversationReducer(state: ConversationState, event: ConversationEvent): ConversationState {
  switch (event.type) {
    case 'sending':
      return {
        ...state,
        busy: true,
        error: null,
        messages: event.text ? [...state.messages, { role: 'visitor', text: event.text }] : state.messages,
      };
    case 'answered':
      return {
        ...state,
        busy: false,
        sessionId: event.answer.session_id,
        closed: false,
        messages: merge(state.messages, event.answer.messages),
        contactOpen: state.contactOpen || event.answer.next === 'collect_contact',
      };
    case 'failed':
      return { ...state, busy: false, error: event.message, contactErrors: event.fieldErrors };
    case 'arrived':
      return { ...state, messages: merge(state.messages, event.messages) };
    case 'frame': {
      const { frame } = event;
      if (frame.type === 'typing' && frame.role === 'provider') return { ...state, typing: frame.active };
      if (frame.type === 'read' && frame.role === 'provider') return { ...state, readUpTo: frame.up_to };
      if (frame.type === 'lead') {
        const claimer = frame.status === 'open' ? null : frame.claimed_by_name;
        // An expert has it: "an expert will get back to you" no longer applies, card or form (the
        // visitor may still leave their details from the actions below).
        return claimer ? { ...state, claimer, view: 'chat', contactOpen: false } : { ...state, claimer };
      }
      if (frame.type === 'closed') return { ...state, closed: true };
      return state;
    }
    case 'typing-quiet':
      return { ...state, typing: false };
    case 'contact':
      return { ...state, contactOpen: event.open };
    case 'contact-sent': {
      const reply = event.answer.messages.filter((message) => message.role !== 'visitor').at(-1);
      return {
        ...conversationReducer(state, { type: 'answered', answer: event.answer }),
        success: {
          ...(reply ? { replyId: reply.message_id } : {}),
          ...(event.answer.reference ? { reference: event.answer.reference } : {}),
        },
        contactOpen: false,
        view: 'success',
      };
    }
    case 'back-to-chat':
      return { ...state, view: 'chat' };
    case 'preview':
      // The console's preview shows the look and the flow; it never creates demand.
      return {
        ...state,
        contactOpen: true,
        messages: [
          ...state.messages,
          ...(event.text ? [{ role: 'visitor' as const, text: event.text }] : []),
          { role: 'assistant' as const, text: event.reply },
        ],
      };
  }
}

/** "Delivered" or "Read" under the visitor's last message (none before the server has it). */
export function deliveryMark(state: ConversationState): { message: Message; mark: 'Read' | 'Delivered' } | null {
  const last = state.messages.filter((message) => message.role === 'visitor').at(-1);
  if (!last?.id) return null;
  return { message: last, mark: state.readUpTo && state.readUpTo >= last.id ? 'Read' : 'Delivered' };
}

/** The conversation's state and its dispatcher, for the panel. */
export function useConversation(sessionId: string | undefined, messages: Message[]) {
  return useReducer(conversationReducer, undefined, () => initialConversation(sessionId, messages));
}
