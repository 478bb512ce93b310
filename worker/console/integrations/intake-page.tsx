/** @jsxImportSource hono/jsx */
/**
 * A channel's recent intake, on its own page: the newest conversations with their lead's state,
 * each opening its read-only transcript (conversation-page.tsx). No contact details here: they
 * reach the expert who claims the lead, and nobody else. Visitor text is rendered as text.
 */
import type { IntakeEntry } from '../../platform/leads';
import { leadTimes } from './lead-operations';
import { DataTable, StatusPill, when, WorkspaceLayout, wsQuery, type WorkspacePageProps } from '../shared/layout';

/** How many conversations the page lists, newest first. */
export const INTAKE_PAGE_SIZE = 50;

/** The two views of a channel: its set-up and its recent intake. */
export function ChannelTabs({
  channelKey,
  ws,
  current,
}: {
  channelKey: string;
  ws: string;
  current: 'set-up' | 'intake';
}) {
  const base = `/integrations/channels/${channelKey}`;
  return (
    <nav class="tabs" aria-label="Channel">
      <a href={`${base}${ws}`} aria-current={current === 'set-up' ? 'page' : undefined}>
        Set-up
      </a>
      <a href={`${base}/intake${ws}`} aria-current={current === 'intake' ? 'page' : undefined}>
        Recent intake
      </a>
    </nav>
  );
}

export interface IntakePageProps extends WorkspacePageProps {
  channel: { channel_key: string; name: string; status: string };
  intake: IntakeEntry[];
}

/** The channel's newest conversations. */
export function IntakePage(props: IntakePageProps) {
  const { channel, current } = props;
  const base = `/integrations/channels/${channel.channel_key}`;
  const ws = wsQuery(current.workspaceId);
  return (
    <WorkspaceLayout page={props} title={`Recent intake · ${channel.name}`} active="channels">
      <p class="eyebrow">
        <a href={`/integrations${ws}`}>Channels</a> / <a href={`${base}${ws}`}>{channel.name}</a> / recent intake
      </p>
      <div class="title-row">
        <h1>{channel.name}</h1>
        <StatusPill status={channel.status} />
      </div>
      <ChannelTabs channelKey={channel.channel_key} ws={ws} current="intake" />
      <p class="lead">
        The {INTAKE_PAGE_SIZE} newest conversations from the widget and the hosted inbox. Open one to read it: read
        only, and without the visitor’s contact details, which reach the expert who claims the lead.
      </p>
      <section class="card" aria-labelledby="intake-title">
        <h2 id="intake-title">Conversations</h2>
        {props.intake.length === 0 ? (
          <p class="muted">Nothing yet. Messages from the widget and the hosted inbox appear here.</p>
        ) : (
          <DataTable
            rows={props.intake}
            columns={[
              { header: 'Time', class: 'nowrap', cell: (entry) => when(entry.created_at) },
              {
                header: 'Request',
                cell: (entry) => (
                  <>
                    <a href={`${base}/conversations/${entry.conversation_id}${ws}`}>
                      <code class="nowrap">{entry.reference}</code>
                      <span class="sr-only"> (read the conversation)</span>
                    </a>
                    <br />
                    <span class="muted">
                      {entry.trigger?.replace('_', ' ')} · {entry.topic}
                    </span>
                  </>
                ),
              },
              {
                header: 'First message',
                class: 'message',
                cell: (entry) => entry.text ?? <span class="muted">(contact details only)</span>,
              },
              {
                header: 'Lead',
                cell: (entry) =>
                  entry.lead ? (
                    <>
                      <StatusPill status={entry.lead.status} />
                      {entry.lead.claimed_by ? <span> by {entry.lead.claimed_by}</span> : null}
                      <br />
                      <span class="muted">
                        {entry.lead.contact_fields.length
                          ? `gave ${entry.lead.contact_fields.join(', ')}`
                          : 'no contact yet'}
                        <br />
                        {leadTimes(entry.lead)}
                      </span>
                    </>
                  ) : entry.disposition !== 'routed' ? (
                    <StatusPill status={entry.disposition} />
                  ) : (
                    <span class="muted">none</span>
                  ),
              },
              {
                header: 'Source',
                class: 'source',
                cell: (entry) => (
                  <>
                    {entry.attribution?.source_site ?? ''}
                    {entry.attribution?.campaign && Object.keys(entry.attribution.campaign).length ? (
                      <>
                        <br />
                        <span class="muted">
                          {Object.entries(entry.attribution.campaign)
                            .map(([name, value]) => `${name.replace('utm_', '')}: ${value}`)
                            .join(', ')}
                        </span>
                      </>
                    ) : null}
                  </>
                ),
              },
            ]}
          />
        )}
      </section>
    </WorkspaceLayout>
  );
}
