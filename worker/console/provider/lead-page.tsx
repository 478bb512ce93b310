/** @jsxImportSource hono/jsx */
/**
 * One lead: the conversation, its history, and what the claimer can do. Visitor text is rendered by
 * JSX, which escapes it: text only.
 */
import type { LeadDetail, LeadStatus } from '../../platform/leads';
import type { SessionUser } from '../../platform/identity';
import { Field } from '../shared/forms';
import { ConsoleLayout, DataTable, StatusPill, when } from '../shared/layout';
import { providerNav } from './states';
import { URGENCY_LABEL } from './workbench-page';
import { formatMoney } from '../shared/money';

/** The statuses a claimer may move a lead to next (release is its own button). */
const NEXT_STATUSES: Partial<Record<LeadStatus, LeadStatus[]>> = {
  claimed: ['contacted'],
  contacted: ['qualified'],
  qualified: ['won', 'lost'],
};

const WORKING = new Set<LeadStatus>(['claimed', 'contacted', 'qualified']);

/** Who wrote a message, as the expert reads the transcript. */
function speakerOf(message: LeadDetail['messages'][number]): string {
  if (message.role === 'visitor') return 'Visitor';
  if (message.role === 'system') return 'Platform';
  if (message.role === 'agent') return message.author_name ? `Agent · ${message.author_name}` : 'Agent';
  return message.author_name ?? 'Expert';
}

/** One lead: the conversation, where it came from, its history, and what the expert can do with it. */
export function LeadPage({
  user,
  lead,
  notice,
  error,
}: {
  user: SessionUser;
  lead: LeadDetail;
  notice?: string;
  error?: string;
}) {
  const mine = lead.contact !== undefined;
  const next = NEXT_STATUSES[lead.status] ?? [];
  const base = `/provider/workbench/leads/${lead.lead_id}`;
  // The claimer writes in the conversation while working the lead (docs/design/live.md).
  const canReply = mine && WORKING.has(lead.status) && lead.messages.length > 0;
  return (
    <ConsoleLayout
      title={`Lead ${lead.reference}`}
      user={user}
      nav={providerNav('workbench', { status: 'active', kind: 'expert' })}
      notice={notice}
      error={error}
      scripts={canReply ? ['/embed/lead.js'] : []}
    >
      <p class="eyebrow">
        <a href={`/provider/workbench?tab=${mine ? 'mine' : 'available'}`}>Workbench</a> / {lead.reference}
      </p>
      <div class="title-row">
        <h1>
          Lead <span class="nowrap">{lead.reference}</span>
        </h1>
        <StatusPill status={lead.status} />
        <span class={`pill urgency-${lead.urgency}`}>{URGENCY_LABEL[lead.urgency]}</span>
      </div>
      <div class="grid-2">
        <section class="card" aria-labelledby="conversation-title">
          <h2 id="conversation-title">Conversation</h2>
          {lead.messages.length > 0 ? (
            <>
              <ol
                class="transcript"
                id="transcript"
                data-lead-id={lead.lead_id}
                data-live={canReply ? 'on' : undefined}
                aria-live="polite"
                aria-relevant="additions"
              >
                {lead.messages.map((message) => (
                  <li class={`turn ${message.role}`} data-message-id={message.message_id}>
                    <span class="speaker">{speakerOf(message)}</span>
                    <span class="when">{when(message.created_at)}</span>
                    <p dir="auto">{message.text}</p>
                  </li>
                ))}
              </ol>
              {canReply ? (
                <>
                  <p class="typing muted" id="typing" role="status" />
                  <form method="post" action={`${base}/messages`} class="reply stack" id="reply-form">
                    <Field
                      name="text"
                      label="Reply to the visitor"
                      multiline
                      maxlength={4000}
                      hint="They read it in the chat window right away, and find it there when they come back."
                    />
                    <button type="submit" class="button primary">
                      Send reply
                    </button>
                  </form>
                </>
              ) : null}
            </>
          ) : (
            // An API call without a session is one request, with no chat to show: show what it asked.
            <>
              <p class="muted">Sent through the API as one request, not a chat. It begins:</p>
              <ol class="transcript">
                <li class="turn visitor">
                  <span class="speaker">Request</span>
                  <span class="when">{when(lead.created_at)}</span>
                  <p>{lead.summary || '(no text)'}</p>
                </li>
              </ol>
            </>
          )}
        </section>
        <div>
          <section class="card" aria-labelledby="actions-title">
            <h2 id="actions-title">{mine ? 'Your lead' : 'Open lead'}</h2>
            {lead.status === 'open' ? (
              <form method="post" action={`${base}/claim`}>
                <p>
                  Claim it to see the contact details and follow up. The first expert to claim it gets it.
                  {lead.claim_fee
                    ? ` Claiming it costs ${formatMoney(lead.claim_fee.amount_minor, lead.claim_fee.currency)}, ` +
                      'paid from your credits (you may ask for it back within 7 days if the visitor was spam or ' +
                      'unreachable).'
                    : ' Claiming it is free.'}
                </p>
                <button type="submit" class="button primary">
                  {lead.claim_fee
                    ? `Claim this lead for ${formatMoney(lead.claim_fee.amount_minor, lead.claim_fee.currency)}`
                    : 'Claim this lead'}
                </button>
              </form>
            ) : null}
            {mine && lead.contact ? (
              <dl class="contact">
                <dt>Name</dt>
                <dd>{lead.contact.name ?? '—'}</dd>
                <dt>Email</dt>
                <dd>{lead.contact.email ? <a href={`mailto:${lead.contact.email}`}>{lead.contact.email}</a> : '—'}</dd>
                <dt>Phone</dt>
                <dd>{lead.contact.phone ?? '—'}</dd>
              </dl>
            ) : null}
            {mine && next.length > 0 ? (
              <form method="post" action={`${base}/status`} class="stack">
                <div class="field">
                  <label for="f-status">Next status</label>
                  <select id="f-status" name="status">
                    {next.map((status) => (
                      <option value={status}>{status}</option>
                    ))}
                  </select>
                </div>
                <Field
                  name="note"
                  label="Note (optional)"
                  multiline
                  maxlength={1000}
                  hint="Kept in the lead's history."
                />
                {next.includes('won') ? (
                  <fieldset class="won-value">
                    <legend>If won: what was it worth? (optional)</legend>
                    <Field
                      name="value_amount"
                      label="Amount"
                      placeholder="1200.50"
                      hint="The site owner sees the total."
                    />
                    <Field name="value_currency" label="Currency" value="EUR" maxlength={3} />
                  </fieldset>
                ) : null}
                <button type="submit" class="button primary">
                  Update status
                </button>
              </form>
            ) : null}
            {mine && next.length > 0 ? (
              <form method="post" action={`${base}/status`} class="release">
                <input type="hidden" name="status" value="open" />
                <button type="submit" class="button ghost">
                  Release it to other experts
                </button>
              </form>
            ) : null}
          </section>
          <section class="card" aria-labelledby="about-title">
            <h2 id="about-title">About</h2>
            <DataTable
              headless
              rows={[
                ['Domain', lead.domain],
                ['Topic', lead.topic],
                ['Trigger', lead.trigger.replace('_', ' ')],
                ['Channel', lead.channel_name ?? 'API'],
                ['Source', lead.attribution?.source_site ?? '—'],
                ['Page', lead.attribution?.page_url ?? '—'],
                [
                  'Campaign',
                  Object.entries(lead.attribution?.campaign ?? {})
                    .map(([name, value]) => `${name.replace('utm_', '')}: ${value}`)
                    .join(', ') || '—',
                ],
                ['Created', when(lead.created_at)],
              ]}
              columns={[
                { header: 'Field', rowHeader: true, cell: ([label]) => label },
                { header: 'Value', class: 'message', cell: ([, shown]) => shown },
              ]}
            />
          </section>
          <section class="card" aria-labelledby="history-title">
            <h2 id="history-title">History</h2>
            <ol class="history">
              {lead.history.map((entry) => (
                <li>
                  <span class="when">{when(entry.at)}</span>{' '}
                  {!entry.from
                    ? `created (${entry.to})`
                    : entry.from === entry.to
                      ? 'routing'
                      : `${entry.from} → ${entry.to}`}
                  {entry.value ? (
                    <strong> · {formatMoney(entry.value.value_minor, entry.value.currency)}</strong>
                  ) : null}
                  {entry.by_you ? <span class="muted"> by you</span> : null}
                  {entry.note ? <p class="note">{entry.note}</p> : null}
                </li>
              ))}
            </ol>
          </section>
        </div>
      </div>
    </ConsoleLayout>
  );
}
