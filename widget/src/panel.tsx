/**
 * The chat panel (Preact). The loader mounts it in its shadow root over a customer's page; the
 * hosted inbox mounts it full page. Visitor text is only ever rendered as text.
 */
import { render } from 'preact';
import { useEffect, useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { readableOn, safeColor } from '../../worker/lib/contrast';
// The panel is built once per language (scripts/build-widget.mjs): this import becomes that language's catalog.
import say from '../../worker/lib/i18n/compiled/widget.en.js';
import { type ContactField, deliveryMark, type FieldErrors, type Message, useConversation } from './conversation';
import { connectLive, type LiveConnection } from './live';
import { keepBookmark } from './bookmark';
import { panelCss } from './styles';
import type {
  Attribution,
  FieldRule,
  IntakeAnswer,
  PanelController,
  PanelOptions,
  Problem,
  ServerFrame,
  WidgetConfig,
} from './types';

type Contact = FieldErrors;
type ContactTrigger = 'lead_capture';

const FIELD_TYPES: Record<ContactField, string> = { name: 'text', email: 'email', phone: 'tel' };
const FIELD_AUTOCOMPLETE: Record<ContactField, string> = { name: 'name', email: 'email', phone: 'tel' };
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^[+0-9 ().-]{5,40}$/;
const THREAD_LIMIT = 50;

/** Session and thread survive page loads on the same site (localStorage of that site). */
function store(channelKey: string) {
  const prefix = `egw:${channelKey}:`;
  const read = <T,>(name: string, fallback: T): T => {
    try {
      return (JSON.parse(localStorage.getItem(prefix + name) ?? 'null') as T) ?? fallback;
    } catch {
      return fallback;
    }
  };
  const write = (name: string, value: unknown) => {
    try {
      localStorage.setItem(prefix + name, JSON.stringify(value));
    } catch {}
  };
  return { read, write };
}

/** The others' messages after `seen`, up to the visitor's next own message. */
function newSince(messages: Message[], seen: string | null): Message[] {
  if (!seen) return [];
  const later = messages.filter((message) => message.id && message.id > seen);
  const replied = later.findIndex((message) => message.role === 'visitor');
  return (replied < 0 ? later : later.slice(0, replied)).filter((message) => message.role !== 'visitor');
}

/** The last message the visitor saw (kept as plain text, so the loader reads it without JSON). */
function readSeen(channelKey: string): string | null {
  try {
    return localStorage.getItem(`egw:${channelKey}:seen`);
  } catch {
    return null;
  }
}

class IntakeError extends Error {
  constructor(
    message: string,
    readonly fieldErrors: FieldErrors = {},
  ) {
    super(message);
  }
}

async function sendIntake(config: WidgetConfig, body: Record<string, unknown>): Promise<IntakeAnswer> {
  let response: Response;
  try {
    response = await fetch(config.intake_url, {
      method: 'POST',
      credentials: 'omit',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch {
    throw new IntakeError(say.error_network());
  }
  if (response.ok) {
    keepBookmark(config.channel_key, response);
    return (await response.json()) as IntakeAnswer;
  }
  const problem = ((await response.json().catch(() => ({}))) ?? {}) as Partial<Problem>;
  // The server's words are English: a field it refuses is named in the visitor's language instead.
  const fieldErrors: FieldErrors = {};
  for (const entry of problem.errors ?? []) {
    const field = entry.pointer.split('/')[2] as ContactField | undefined;
    if (entry.pointer.startsWith('/contact/') && field)
      fieldErrors[field] =
        field === 'name' || /required/.test(entry.detail) ? say.required({ field }) : say[`invalid_${field}`]();
  }
  if (response.status === 429) throw new IntakeError(say.error_rate());
  throw new IntakeError(say.error_generic(), fieldErrors);
}

function validateContact(rules: Record<ContactField, FieldRule>, contact: Contact): FieldErrors {
  const errors: FieldErrors = {};
  for (const field of ['name', 'email', 'phone'] as const) {
    const value = contact[field]?.trim() ?? '';
    if (rules[field] === 'required' && !value) errors[field] = say.required({ field });
    else if (value && field === 'email' && !EMAIL.test(value)) errors.email = say.invalid_email();
    else if (value && field === 'phone' && !PHONE.test(value)) errors.phone = say.invalid_phone();
  }
  return errors;
}

interface ContactFormProps {
  config: WidgetConfig;
  busy: boolean;
  serverErrors: FieldErrors;
  onSubmit: (contact: Contact, honeypot: string) => void;
  onDismiss: () => void;
}

function ContactForm({ config, busy, serverErrors, onSubmit, onDismiss }: ContactFormProps) {
  const id = useId();
  const fields = (['name', 'email', 'phone'] as const).filter((field) => config.lead_capture[field] !== 'off');
  const [values, setValues] = useState<Contact>({});
  const [errors, setErrors] = useState<FieldErrors>({});
  const honeypot = useRef<HTMLInputElement>(null);
  const shown = { ...errors, ...serverErrors };

  const submit = (event: Event) => {
    event.preventDefault();
    const found = validateContact(config.lead_capture, values);
    setErrors(found);
    if (Object.keys(found).length === 0) onSubmit(values, honeypot.current?.value ?? '');
  };

  return (
    <form class="card" onSubmit={submit} noValidate aria-labelledby={`${id}-title`}>
      <p class="card-title" id={`${id}-title`}>
        {say.contact_title()}
      </p>
      {fields.map((field) => (
        <div class="field" key={field}>
          <label for={`${id}-${field}`}>
            {say.field({ field })}
            {config.lead_capture[field] === 'required' ? (
              <span aria-hidden="true"> *</span>
            ) : (
              <span class="optional"> {say.optional()}</span>
            )}
          </label>
          <input
            id={`${id}-${field}`}
            name={field}
            type={FIELD_TYPES[field]}
            autocomplete={FIELD_AUTOCOMPLETE[field]}
            required={config.lead_capture[field] === 'required'}
            aria-invalid={shown[field] ? 'true' : undefined}
            aria-describedby={shown[field] ? `${id}-${field}-error` : undefined}
            value={values[field] ?? ''}
            onInput={(event) => setValues({ ...values, [field]: (event.target as HTMLInputElement).value })}
          />
          {shown[field] ? (
            <p class="field-error" id={`${id}-${field}-error`}>
              {shown[field]}
            </p>
          ) : null}
        </div>
      ))}
      <div class="hp" aria-hidden="true">
        <label>
          {say.website()}
          <input ref={honeypot} name="website" type="text" tabIndex={-1} autocomplete="off" />
        </label>
      </div>
      <p class="privacy">{config.copy.privacy_note}</p>
      <div class="row">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? say.sending() : say.send_details()}
        </button>
        <button type="button" class="link" onClick={onDismiss}>
          {say.not_now()}
        </button>
      </div>
    </form>
  );
}

interface PanelProps extends PanelOptions {
  registerFocus: (focus: () => void) => void;
}

/** A request's reference (`D-1D2Z3K`) never breaks at its hyphen: each one in text is kept on one line. */
function keepReferencesWhole(text: string) {
  return text
    .split(/\b(D-[0-9A-Z]{6})\b/)
    .map((part, index) => (index % 2 === 1 ? <span class="ref">{part}</span> : part));
}

function Panel({ config, attribution, mode, onClose, registerFocus }: PanelProps) {
  const titleId = useId();
  const saved =
    mode === 'preview'
      ? { read: <T,>(_name: string, fallback: T) => fallback, write: () => {} }
      : store(config.channel_key);
  const [state, dispatch] = useConversation(
    saved.read<string | undefined>('session', undefined),
    saved.read<Message[]>('thread', []),
  );
  const { sessionId, messages, view, success, busy, error, contactOpen, contactErrors, typing, claimer, closed } =
    state;
  const [draft, setDraft] = useState('');
  const composer = useRef<HTMLTextAreaElement>(null);
  const thread = useRef<HTMLDivElement>(null);
  const live = useRef<LiveConnection>();
  const latest = useRef(messages);
  latest.current = messages;
  const typingSent = useRef(0);
  // The replies that came while the visitor was away (after what they had seen when the panel
  // opened, before they write again), under one "new replies" line.
  const [seenAtOpen] = useState(() => (mode === 'preview' ? null : readSeen(config.channel_key)));
  const unread = newSince(messages, seenAtOpen);
  const firstUnread = unread[0]?.id;
  const unreadAtOpen = unread.length;

  // The live connection of a visitor who has a session: the thread resumes from the server, so
  // it survives a new device or a cleared store, and the expert's replies arrive as they are sent.
  useEffect(() => {
    if (!sessionId || mode === 'preview') return;
    let typingTimer: ReturnType<typeof setTimeout> | undefined;
    const connection = connectLive(config, sessionId, {
      messages: (incoming) => dispatch({ type: 'arrived', messages: incoming }),
      lastId: () => latest.current.filter((message) => message.id).at(-1)?.id ?? null,
      frame: (frame: ServerFrame) => {
        dispatch({ type: 'frame', frame });
        if (frame.type === 'typing' && frame.role === 'provider') {
          // The expert's typing fades after a few quiet seconds.
          clearTimeout(typingTimer);
          typingTimer = setTimeout(() => dispatch({ type: 'typing-quiet' }), 6_000);
        }
      },
    });
    live.current = connection;
    return () => {
      clearTimeout(typingTimer);
      connection.stop();
    };
  }, [sessionId]);

  // What the visitor has seen (only while the panel shows): a read mark for the expert, and the
  // launcher's unread count next time.
  const markSeen = () => {
    const last = latest.current.filter((message) => message.id && message.role !== 'visitor').at(-1)?.id;
    if (!last || document.hidden || !thread.current?.checkVisibility()) return;
    // Kept as plain text: the loader reads it as is, with no JSON to parse.
    if (mode !== 'preview') {
      try {
        localStorage.setItem(`egw:${config.channel_key}:seen`, last);
      } catch {}
    }
    live.current?.read(last);
  };
  useEffect(markSeen, [messages]);

  // Layout effect: registered before mount() returns, so the loader's first focus() lands.
  useLayoutEffect(
    () =>
      registerFocus(() => {
        composer.current?.focus();
        markSeen();
      }),
    [],
  );
  useEffect(() => {
    saved.write('thread', messages.slice(-THREAD_LIMIT));
    thread.current?.scrollTo({ top: thread.current.scrollHeight });
  }, [messages, contactOpen, view]);

  /** One intake request; its answer, or undefined after the failure was shown. */
  const send = async (body: Record<string, unknown>, visitorText?: string): Promise<IntakeAnswer | undefined> => {
    dispatch({ type: 'sending', ...(visitorText ? { text: visitorText } : {}) });
    try {
      const answer = await sendIntake(config, {
        ...body,
        session_id: sessionId,
        attribution,
        // The language the panel speaks: the conversation keeps it (the channel's, else the browser's).
        language: config.language,
      });
      saved.write('session', answer.session_id);
      return answer;
    } catch (failure) {
      const intakeError = failure instanceof IntakeError ? failure : new IntakeError(say.error_generic());
      dispatch({ type: 'failed', message: intakeError.message, fieldErrors: intakeError.fieldErrors });
      return undefined;
    }
  };

  const sendMessage = async (trigger: 'consultation' | 'handoff', text: string) => {
    const trimmed = text.trim();
    if (!trimmed || busy) return;
    setDraft('');
    // The message ends this bout of typing: the next keystroke says so again at once.
    typingSent.current = 0;
    if (mode === 'preview') {
      dispatch({ type: 'preview', text: trimmed, reply: say.preview_reply() });
    } else {
      const answer = await send({ trigger, message: { text: trimmed } }, trimmed);
      if (answer) dispatch({ type: 'answered', answer });
    }
    composer.current?.focus();
  };

  const submitContact = async (contact: Contact, honeypot: string) => {
    const trigger: ContactTrigger = 'lead_capture';
    if (mode === 'preview') {
      return void dispatch({ type: 'contact-sent', answer: { session_id: '', reply: '', next: 'done', messages: [] } });
    }
    const answer = await send({ trigger, contact, ...(honeypot ? { website: honeypot } : {}) });
    if (answer) dispatch({ type: 'contact-sent', answer });
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape' && onClose) {
      event.stopPropagation();
      onClose();
    }
  };

  const onDraft = (text: string) => {
    setDraft(text);
    // Typing, at most every 2 s while it goes on; the expert's view drops it after a few quiet seconds.
    if (Date.now() - typingSent.current > 2_000 && text) {
      typingSent.current = Date.now();
      live.current?.typing(true);
    }
  };

  const delivery = deliveryMark(state);

  const onComposerKey = (event: KeyboardEvent) => {
    // Enter sends; Shift+Enter adds a new line; IME composition is left alone.
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      void sendMessage('consultation', draft);
    }
  };

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: a dialog (or region) at run time; Escape closes it.
    // biome-ignore lint/a11y/useAriaPropsSupportedByRole: dialog and region both take aria-labelledby.
    <div
      class={`panel ${mode}`}
      lang={config.language}
      dir={config.direction}
      role={mode === 'page' ? 'region' : 'dialog'}
      aria-labelledby={titleId}
      onKeyDown={onKeyDown}
    >
      <header class="head">
        {config.brand.logo_url ? <img class="logo" src={config.brand.logo_url} alt="" width={32} height={32} /> : null}
        <div class="titles">
          {/* The hosted inbox is a page of its own: its title is the page's heading. */}
          {mode === 'page' ? <h1 id={titleId}>{config.copy.title}</h1> : <h2 id={titleId}>{config.copy.title}</h2>}
          <p class="brand">{claimer ? say.here_to_help({ name: claimer }) : config.brand.name}</p>
        </div>
        {onClose ? (
          <button type="button" class="close" aria-label={say.close()} onClick={onClose}>
            <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
              <path
                fill="currentColor"
                d="M18.3 5.7 12 12l6.3 6.3-1.4 1.4L10.6 13.4 4.3 19.7 2.9 18.3 9.2 12 2.9 5.7 4.3 4.3l6.3 6.3 6.3-6.3z"
              />
            </svg>
          </button>
        ) : null}
      </header>

      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a long thread scrolls from the keyboard too (WCAG). */}
      <div class="thread" ref={thread} role="log" aria-live="polite" aria-label={say.conversation()} tabIndex={0}>
        <p class="bubble assistant">{config.copy.greeting}</p>
        {(view === 'success' ? messages.filter((message) => message.id !== success.replyId) : messages).map(
          (message, index) => [
            message.id && message.id === firstUnread ? (
              <p class="note unread" key="unread" role="status">
                {say.new_replies({ count: unreadAtOpen })}
              </p>
            ) : null,
            <p class={`bubble ${message.role === 'visitor' ? 'visitor' : 'assistant'}`} key={message.id ?? index}>
              <span class="sr">
                {message.role === 'visitor'
                  ? say.you()
                  : say.author({ name: message.author ?? message.by ?? config.brand.name })}
              </span>
              {message.sources ? (
                <span class="by" aria-hidden="true">
                  {say.knowledge_answer({ brand: config.brand.name })}
                </span>
              ) : message.by ? (
                <span class="by" aria-hidden="true">
                  {say.automated({ name: message.by })}
                </span>
              ) : message.author ? (
                <span class="by" aria-hidden="true">
                  {say.expert_label({ name: message.author })}
                </span>
              ) : null}
              {/* Each message in its own direction: "?What…" never, whatever the panel's. */}
              <span class="text" dir="auto">
                {keepReferencesWhole(message.text)}
              </span>
              {message.sources && message.sources.length > 0 ? (
                <span class="sources">
                  <span class="sr">{say.knowledge_sources()}: </span>
                  {message.sources.map((source) =>
                    source.url && /^https?:\/\//i.test(source.url) ? (
                      <a href={source.url} target="_blank" rel="noopener noreferrer" dir="auto">
                        {source.title}
                      </a>
                    ) : (
                      <span dir="auto">{source.title}</span>
                    ),
                  )}
                </span>
              ) : null}
              {message.sources && !claimer ? (
                <button
                  type="button"
                  class="link person"
                  disabled={busy}
                  onClick={() => void sendMessage('handoff', say.talk_to_expert_text())}
                >
                  {say.talk_to_person()}
                </button>
              ) : null}
              {message === delivery?.message ? (
                <span class="mark">{delivery.mark === 'Read' ? say.read() : say.delivered()}</span>
              ) : null}
            </p>,
          ],
        )}
        {busy ? (
          <p class="bubble assistant thinking" role="status">
            {say.thinking()}
          </p>
        ) : typing ? (
          <p class="bubble assistant thinking" role="status">
            {claimer ? say.typing({ name: claimer }) : say.typing_expert()}
          </p>
        ) : null}
        {closed ? (
          <p class="note" role="status">
            {say.closed()}
          </p>
        ) : null}
        {view === 'success' ? (
          <div class="card success" role="status">
            <p class="card-title">{config.copy.success_message}</p>
            {success.reference ? <p>{keepReferencesWhole(say.reference({ reference: success.reference }))}</p> : null}
            <button type="button" class="link" onClick={() => dispatch({ type: 'back-to-chat' })}>
              {say.back()}
            </button>
          </div>
        ) : null}
        {contactOpen && view === 'chat' ? (
          <ContactForm
            config={config}
            busy={busy}
            serverErrors={contactErrors}
            onSubmit={submitContact}
            onDismiss={() => dispatch({ type: 'contact', open: false })}
          />
        ) : null}
      </div>

      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}

      <form
        class="composer"
        onSubmit={(event) => {
          event.preventDefault();
          void sendMessage('consultation', draft);
        }}
      >
        <textarea
          ref={composer}
          rows={2}
          dir="auto"
          maxLength={4000}
          aria-label={config.copy.placeholder}
          placeholder={config.copy.placeholder}
          value={draft}
          onInput={(event) => onDraft((event.target as HTMLTextAreaElement).value)}
          onKeyDown={onComposerKey}
        />
        <button type="submit" class="send primary" disabled={busy || !draft.trim()} aria-label={say.send()}>
          <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
            <path fill="currentColor" d="M3 20.5 21 12 3 3.5v6.6L15 12 3 13.9z" />
          </svg>
        </button>
      </form>
      <div class="actions">
        {/* An expert has the conversation: there is nobody to hand it to. */}
        {claimer ? null : (
          <button
            type="button"
            class="link"
            disabled={busy}
            onClick={() => void sendMessage('handoff', draft.trim() || say.talk_to_expert_text())}
          >
            {say.talk_to_expert()}
          </button>
        )}
        {!contactOpen && view === 'chat' && messages.length > 0 ? (
          <button type="button" class="link" onClick={() => dispatch({ type: 'contact', open: true })}>
            {say.leave_details()}
          </button>
        ) : null}
        {config.provider_entry.enabled ? (
          <a class="link provider" href={config.provider_entry.url} target="_blank" rel="noopener noreferrer">
            {config.provider_entry.label}
          </a>
        ) : null}
      </div>
    </div>
  );
}

/** Colours from the configuration, made safe and readable, as CSS custom properties. */
function themeCss(config: WidgetConfig): string {
  const primary = safeColor(config.colors.primary, '#2450c9');
  const onPrimary = readableOn(primary, safeColor(config.colors.on_primary, '#ffffff'));
  // Links and outlines sit on white: use the brand colour only if it is readable there.
  const accent = readableOn('#ffffff', primary) === primary ? primary : '#1d4ed8';
  const side = config.position.side === 'bottom-left' ? 'left' : 'right';
  const x = Math.min(Math.max(Number(config.position.offset_x) || 0, 0), 200);
  const y = Math.min(Math.max(Number(config.position.offset_y) || 0, 0), 200);
  return (
    `:host,:root{--egw-primary:${primary};--egw-on-primary:${onPrimary};--egw-accent:${accent}}` +
    `.panel.embedded{${side}:${x}px;bottom:${y + 68}px}`
  );
}

function mount(container: HTMLElement, root: ShadowRoot | Document, options: PanelOptions): PanelController {
  const sheet = new CSSStyleSheet();
  root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  let focus = () => {};
  const draw = (next: PanelOptions) => {
    sheet.replaceSync(panelCss + themeCss(next.config));
    render(<Panel {...next} registerFocus={(registered) => (focus = registered)} />, container);
  };
  draw(options);
  return { focus: () => focus(), update: draw };
}

window.egwPanel = { mount };

// The hosted inbox page carries its configuration as a JSON data block and mounts full page.
const inbox = document.getElementById('egw-inbox');
const inboxConfig = document.getElementById('egw-config');
if (inbox && inboxConfig?.textContent) {
  const config = JSON.parse(inboxConfig.textContent) as WidgetConfig;
  // An email's link (`?resume=egv_…`) opens its conversation here: the key becomes this page's
  // session, the thread reloads from the server, and the key leaves the address bar at once.
  const resume = new URLSearchParams(location.search).get('resume');
  if (resume && /^egv_[1-9A-HJ-NP-Za-km-z]{20,60}$/.test(resume)) {
    try {
      localStorage.setItem(`egw:${config.channel_key}:session`, JSON.stringify(resume));
      localStorage.removeItem(`egw:${config.channel_key}:thread`);
    } catch {}
    history.replaceState(null, '', location.pathname);
  }
  const attribution: Attribution = {
    source_site: location.origin,
    page_url: location.href,
    referrer: document.referrer || undefined,
  };
  mount(inbox, document, { config, attribution, mode: 'page' }).focus();
}
