/** @jsxImportSource hono/jsx */
/**
 * A workspace owner's view of its webhook endpoints and their delivery log: read only, since
 * endpoints are provisioned by the platform team (docs/design/README.md). A disabled endpoint says why.
 */
import type { EndpointView } from '../../platform/webhooks';
import { DataTable, StatusPill, when, WorkspaceLayout, wsQuery, type WorkspacePageProps } from '../shared/layout';

const DISABLED_BECAUSE: Record<string, string> = {
  admin: 'by the platform team',
  gone: 'because it answered 410 Gone',
  failing: 'because every delivery to it failed for 3 days',
};

/** An active endpoint whose deliveries fail says so in its pill, not "active" in green. */
function shownStatus(endpoint: EndpointView): string {
  return endpoint.status === 'active' && endpoint.failing_since ? 'failing' : endpoint.status;
}

/** Why an endpoint is in its state, in a sentence. */
function stateNote(endpoint: EndpointView): string | null {
  if (endpoint.status === 'disabled') {
    return (
      `Disabled ${when(endpoint.disabled_at)} ${DISABLED_BECAUSE[endpoint.disabled_reason ?? 'admin']}. Nothing ` +
      `is sent to it meanwhile: its events wait, and go out when the platform team enables it again (within 3 days ` +
      `of each event).`
    );
  }
  if (endpoint.failing_since)
    return (
      `Failing since ${when(endpoint.failing_since)}: deliveries are retried for 3 days, then the endpoint is ` +
      `disabled.`
    );
  return null;
}

/** The endpoints of a workspace. */
export function WebhooksPage(props: WorkspacePageProps & { endpoints: EndpointView[] }) {
  const ws = wsQuery(props.current.workspaceId);
  return (
    <WorkspaceLayout page={props} title="Webhooks" active="webhooks">
      <h1>Webhooks</h1>
      <p class="lead">
        Your systems hear about leads, executions and conversations as they happen: each event is POSTed to your
        endpoints, signed (Standard Webhooks), at least once, and retried for about 3 days. The platform team sets
        endpoints up for you:{' '}
        <a href={`/integrations${wsQuery(props.current.workspaceId)}#requests-title`}>ask for one</a>, and see its
        signing secret once when it is approved. This page shows them and their deliveries.
      </p>
      {props.endpoints.length === 0 ? (
        <section class="card">
          <p>
            No endpoints yet.{' '}
            <a href={`/integrations${wsQuery(props.current.workspaceId)}#requests-title`}>Ask for one</a> with its https
            URL and the events you want.
          </p>
        </section>
      ) : (
        props.endpoints.map((endpoint) => {
          const note = stateNote(endpoint);
          return (
            <section class="card" aria-labelledby={`endpoint-${endpoint.webhook_id}`}>
              <div class="title-row">
                <h2 id={`endpoint-${endpoint.webhook_id}`}>{endpoint.url}</h2>
                <StatusPill status={shownStatus(endpoint)} />
              </div>
              {note ? (
                <div class={`alert ${endpoint.status === 'disabled' ? 'error' : 'warning'}`} role="alert">
                  {note}
                </div>
              ) : null}
              <p>
                Events: <span class="muted">{endpoint.event_types.join(', ')}</span>
              </p>
              {endpoint.description ? <p class="muted">{endpoint.description}</p> : null}
              <p>
                <a href={`/integrations/webhooks/${endpoint.webhook_id}${ws}`}>Delivery log</a>
              </p>
            </section>
          );
        })
      )}
      <section class="card" aria-labelledby="receiving-title">
        <h2 id="receiving-title">Receiving events</h2>
        <p>
          Verify <code>webhook-id</code>, <code>webhook-timestamp</code> and <code>webhook-signature</code> with your
          endpoint’s <code>whsec_</code> secret (the npm <code>standardwebhooks</code> library does it). Delivery is at
          least once and may arrive out of order: keep the <code>webhook-id</code>s you have handled and ignore repeats.
          See <a href="/docs/webhooks">the docs</a>.
        </p>
      </section>
    </WorkspaceLayout>
  );
}

type LogEntry = {
  attempt_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  at: string | null;
  delivery_status: string;
  next_attempt_at: string | null;
};

/** An attempt's outcome: the HTTP status, and the error when it says more than the status. */
function AttemptResult({ entry }: { entry: LogEntry }) {
  const status = entry.status_code === null ? 'no answer' : `HTTP ${entry.status_code}`;
  const detail = entry.error && entry.error !== `${status}.` ? entry.error : null;
  return (
    <>
      <span class={entry.status_code !== null && entry.status_code < 300 ? 'ok' : 'bad'}>
        {entry.status_code !== null && entry.status_code < 300 ? `✓ ${status}` : `✗ ${status}`}
      </span>
      {detail ? (
        <>
          <br />
          <small class="muted">{detail}</small>
        </>
      ) : null}
    </>
  );
}

/** One endpoint's delivery log, newest attempt first. */
export function DeliveryLogPage(props: WorkspacePageProps & { endpoint: EndpointView; log: LogEntry[] }) {
  const note = stateNote(props.endpoint);
  return (
    <WorkspaceLayout page={props} title="Delivery log" active="webhooks">
      <p class="eyebrow">
        <a href={`/integrations/webhooks${wsQuery(props.current.workspaceId)}`}>Webhooks</a> / delivery log
      </p>
      <div class="title-row">
        <h1>{props.endpoint.url}</h1>
        <StatusPill status={shownStatus(props.endpoint)} />
      </div>
      {note ? (
        <div class={`alert ${props.endpoint.status === 'disabled' ? 'error' : 'warning'}`} role="alert">
          {note}
        </div>
      ) : null}
      <section class="card" aria-labelledby="log-title">
        <h2 id="log-title">Attempts</h2>
        {props.log.length === 0 ? (
          <p class="muted">Nothing delivered yet.</p>
        ) : (
          <DataTable
            rows={props.log}
            columns={[
              { header: 'When', class: 'nowrap', cell: (entry) => when(entry.at) },
              { header: 'Result', class: 'nowrap', cell: (entry) => <AttemptResult entry={entry} /> },
              {
                header: 'Event',
                cell: (entry) => (
                  <>
                    <code>{entry.event_type}</code>
                    <br />
                    <small class="muted">webhook-id {entry.event_id}</small>
                  </>
                ),
              },
              { header: 'Attempt', cell: (entry) => String(entry.attempt) },
              { header: 'Time', class: 'nowrap', cell: (entry) => `${entry.duration_ms} ms` },
              {
                header: 'Event now',
                cell: (entry) =>
                  entry.delivery_status === 'pending' && entry.next_attempt_at
                    ? `next try ${when(entry.next_attempt_at)}`
                    : entry.delivery_status === 'paused'
                      ? 'paused: waits for the endpoint'
                      : entry.delivery_status,
              },
            ]}
          />
        )}
      </section>
    </WorkspaceLayout>
  );
}
