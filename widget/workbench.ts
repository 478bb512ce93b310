/**
 * /embed/workbench.js: keeps the workbench's lead list current without a reload. It polls the
 * workbench API every few seconds while the tab is visible, stops while it is hidden, and
 * rebuilds the list with DOM nodes and textContent only (visitor text is never markup). The
 * page works without it: this only saves a reload.
 */
import { formatMoney } from '../worker/console/shared/money';
import { leadHeadline } from '../worker/console/shared/lead-headline';
import type { LeadView } from '../worker/platform/leads/schemas';

const POLL_MS = 4000;

const list = document.querySelector<HTMLUListElement>('ul.lead-list[data-tab]');
const onFirstPage = !new URLSearchParams(location.search).has('after');

const when = (iso: string) => `${iso.replace('T', ' ').slice(0, 16)} UTC`;
const URGENCY: Record<string, string> = { high: 'urgent', normal: 'normal', low: 'low' };

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The card's small print, the reference kept on one line, as the server's LeadCard has it. */
function muted(lead: LeadView): HTMLSpanElement {
  const span = element('span', 'muted');
  span.append(element('span', 'nowrap', lead.reference), ` · ${lead.channel_name ?? 'API'} · ${when(lead.created_at)}`);
  return span;
}

/** The same markup as the server's LeadCard. */
function card(lead: LeadView): HTMLLIElement {
  const item = element('li', 'lead-card');
  item.dataset.leadId = lead.lead_id;
  const link = element('a', 'lead-link');
  link.href = `/provider/workbench/leads/${encodeURIComponent(lead.lead_id)}`;
  link.append(element('span', 'lead-summary', leadHeadline(lead.summary)));
  const meta = element('span', 'lead-meta');
  meta.append(
    element('span', `pill status-${lead.status}`, lead.status),
    ' ',
    element('span', `pill urgency-${lead.urgency}`, URGENCY[lead.urgency] ?? lead.urgency),
    ' ',
    element('span', 'pill', lead.topic),
    ' ',
    ...(lead.claim_fee
      ? [element('span', 'pill fee', `fee ${formatMoney(lead.claim_fee.amount_minor, lead.claim_fee.currency)}`), ' ']
      : []),
    muted(lead),
  );
  item.append(link, meta);
  return item;
}

let timer: number | undefined;

async function refresh(): Promise<void> {
  if (!list) return;
  try {
    const response = await fetch(
      `/api/provider/workbench/leads?scope=${encodeURIComponent(list.dataset.tab ?? 'available')}&limit=25`,
      { credentials: 'same-origin', headers: { Accept: 'application/json' } },
    );
    if (!response.ok) return;
    const page = (await response.json()) as { data: LeadView[]; counts: Record<string, number> };
    for (const [tab, count] of Object.entries(page.counts)) {
      const badge = document.querySelector(`[data-count="${tab}"]`);
      if (badge) badge.textContent = String(count);
    }
    if (onFirstPage) {
      list.replaceChildren(...page.data.map(card));
      const empty = document.querySelector<HTMLElement>('.empty');
      if (empty) empty.hidden = page.data.length > 0;
    }
  } catch {
    // Offline for a moment: the next tick tries again.
  }
}

function schedule(): void {
  window.clearInterval(timer);
  timer = undefined;
  if (document.visibilityState === 'visible') timer = window.setInterval(() => void refresh(), POLL_MS);
}

if (list) {
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') void refresh();
    schedule();
  });
  schedule();
}
