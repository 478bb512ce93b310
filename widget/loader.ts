/**
 * /embed/widget.js: the tiny snippet target (budget: 2 KB gzip; no Preact here).
 * It reads its own <script> tag, records first-touch attribution, fetches the channel's public
 * configuration and draws the launcher in a shadow root. The Preact panel (panel.js) is
 * fetched only when the visitor opens the widget. If the configuration or the panel cannot
 * load, the launcher opens the hosted inbox in a new tab instead.
 *
 * Queue API (Plausible style): window.egw('open'), window.egw('close'), callable before load.
 */
import { safeColor } from '../worker/lib/contrast';
import type { Attribution, PanelController, WidgetConfig } from './src/types';

declare const __PANEL_VERSION__: string;

type Command = 'open' | 'close';
type Queue = ((command: Command) => void) & { q?: IArguments[] };

((w, d) => {
  const script = (d.currentScript ?? d.querySelector('script[data-channel-id]')) as HTMLScriptElement | null;
  const key = script?.dataset.channelId;
  if (!script || !key || (w as { egwLoaded?: boolean }).egwLoaded) return;
  (w as { egwLoaded?: boolean }).egwLoaded = true;
  const base = (script.dataset.consoleOrigin ?? new URL(script.src).origin).replace(/\/+$/, '');
  const keyPath = encodeURIComponent(key);
  const inboxUrl = `${base}/widget/${keyPath}`;

  // First-touch attribution: the landing page's, kept for the browsing session.
  const storageKey = `egw:${key}:attribution`;
  let attribution: Attribution | undefined;
  try {
    attribution = JSON.parse(sessionStorage.getItem(storageKey) ?? 'null') ?? undefined;
  } catch {}
  if (!attribution) {
    const params = new URLSearchParams(location.search);
    const campaign: Record<string, string> = {};
    for (const name of ['source', 'medium', 'campaign', 'term', 'content']) {
      const value = params.get(`utm_${name}`);
      if (value) campaign[`utm_${name}`] = value.slice(0, 200);
    }
    attribution = {
      source_site: location.origin,
      page_url: location.href.slice(0, 2000),
      referrer: d.referrer.slice(0, 2000) || undefined,
      campaign,
    };
    try {
      sessionStorage.setItem(storageKey, JSON.stringify(attribution));
    } catch {}
  }

  const host = d.createElement('div');
  host.setAttribute('data-egw', '');
  const shadow = host.attachShadow({ mode: 'open' });
  const sheet = new CSSStyleSheet();
  shadow.adoptedStyleSheets = [sheet];
  const launcher = d.createElement('button');
  launcher.type = 'button';
  launcher.className = 'l';
  launcher.ariaExpanded = 'false';
  launcher.ariaLabel = 'Open chat';
  // A fixed, trusted icon; nothing from the network goes through innerHTML.
  launcher.innerHTML =
    '<svg viewBox="0 0 24 24" width="28" height="28" aria-hidden="true" focusable="false"><path fill="currentColor" ' +
    'd="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H8l-4 4V6a2 2 0 0 1 2-2zm3 6v2h2v-2zm4 0v2h2v-2zm4 0v2h2v-2z"/></svg>';
  const panelBox = d.createElement('div');
  panelBox.hidden = true;
  shadow.append(panelBox, launcher);

  let config: WidgetConfig | undefined;
  let panel: PanelController | undefined;
  let loading = false;
  let open = false;
  let configFailed = false;
  let openWhenReady = false;

  const style = (side: string, x: number, y: number, primary: string, onPrimary: string) => {
    sheet.replaceSync(
      `:host{all:initial}.l{all:initial;position:fixed;${side}:${x}px;bottom:${y}px;z-index:2147483000;` +
        `width:56px;height:56px;border-radius:50%;background:${primary};color:${onPrimary};display:flex;` +
        `align-items:center;justify-content:center;cursor:pointer;` +
        `box-shadow:0 4px 16px rgba(0,0,0,.25)}.l:focus-visible{outline:3px solid ${primary};outline-offset:3px}` +
        `.l:hover{filter:brightness(1.08)}[hidden]{display:none!important}` +
        `.l[data-n]::after{content:attr(data-n);position:absolute;top:0;right:0;padding:0 6px;` +
        `border-radius:9px;background:#b42318;color:#fff}` +
        // On a narrow screen the open panel is full screen and has its own close button.
        `@media (max-width:479px){.l[aria-expanded=true]{display:none}}`,
    );
  };
  style('right', 20, 20, '#2450c9', '#ffffff');

  const fallback = () => w.open(inboxUrl, '_blank', 'noopener');

  const setOpen = (next: boolean) => {
    open = next;
    delete launcher.dataset.n;
    panelBox.hidden = !next;
    launcher.ariaExpanded = String(next);
    if (next) panel?.focus();
    else launcher.focus();
  };

  const mount = () => {
    try {
      panel = w.egwPanel!.mount(panelBox, shadow, {
        config: config!,
        attribution: attribution!,
        mode: 'embedded',
        onClose: () => setOpen(false),
      });
      setOpen(true);
    } catch {
      fallback();
    }
  };

  const openWidget = () => {
    if (!config) {
      // Still loading: open once it arrives. Failed: the hosted inbox instead.
      if (configFailed) return fallback();
      openWhenReady = true;
      return;
    }
    if (panel) return setOpen(true);
    if (loading) return;
    loading = true;
    const panelScript = d.createElement('script');
    panelScript.src = `${base}/embed/panel.${config.language}.js?v=${__PANEL_VERSION__}`;
    panelScript.async = true;
    panelScript.onload = mount;
    panelScript.onerror = () => {
      loading = false;
      fallback();
    };
    d.head.append(panelScript);
  };

  launcher.addEventListener('click', () => (open ? setOpen(false) : openWidget()));

  const run = (command: Command) =>
    command === 'open' ? openWidget() : command === 'close' && open ? setOpen(false) : undefined;
  const queued = (w as { egw?: Queue }).egw?.q ?? [];
  (w as { egw?: Queue }).egw = run;

  fetch(`${base}/api/public/widget/${keyPath}/config`, { credentials: 'omit' })
    .then((response) => (response.ok ? (response.json() as Promise<WidgetConfig>) : Promise.reject()))
    .then((loaded) => {
      config = loaded;
      const primary = safeColor(loaded.colors.primary, '#2450c9');
      const { side, offset_x: x, offset_y: y } = loaded.position;
      style(
        side === 'bottom-left' ? 'left' : 'right',
        Math.min(+x || 0, 200),
        Math.min(+y || 0, 200),
        primary,
        // The configuration's text colour is already made readable on the primary (public config).
        safeColor(loaded.colors.on_primary, '#ffffff'),
      );
      launcher.ariaLabel = loaded.copy.launcher_label;
    })
    .catch(() => {
      // Config unavailable: the launcher stays, and opens the hosted inbox.
      configFailed = true;
      launcher.ariaLabel = 'Open chat (opens in a new tab)';
    })
    .finally(() => {
      for (const args of queued) run(args[0] as Command);
      if (openWhenReady && !configFailed) openWidget();
    });

  // A returning visitor with a session: the answers that arrived since they last looked, in one request.
  // No session: localStorage has no entry, JSON.parse throws, and nothing is asked.
  try {
    const session = JSON.parse(localStorage[`egw:${key}:session`]);
    fetch(`${base}/api/public/widget/${keyPath}/messages?after=${localStorage[`egw:${key}:seen`] ?? ''}`, {
      headers: { Authorization: `Bearer ${session}` },
    })
      .then((response) => response.json())
      .then((thread: { messages: Array<{ role: string }> }) => {
        const unread = thread.messages.filter((message) => message.role !== 'visitor').length;
        if (unread && !open) {
          launcher.dataset.n = String(unread);
          // The count alone: the loader carries no catalog, and the label before it is in the visitor's language.
          launcher.ariaLabel += ` (${unread})`;
        }
      });
  } catch {}

  const attach = () => d.body.append(host);
  if (d.body) attach();
  else d.addEventListener('DOMContentLoaded', attach);
})(window, document);
