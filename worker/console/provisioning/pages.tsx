/** @jsxImportSource hono/jsx */
/**
 * Provisioning in the console (docs/design/identity-and-access.md): an owner asks for an API key or
 * a webhook endpoint and follows the request; a platform admin decides; the owner sees the key once.
 */
import { KNOWN_SCOPES, SCOPE_MEANINGS } from '../../platform/access';
import { EVENT_TYPES } from '../../platform/events';
import type { SessionUser } from '../../platform/identity';
import type { ProvisioningRequestView } from '../../platform/provisioning';
import { ChoiceGroup, Field, type FieldErrors } from '../shared/forms';
import { ConsoleLayout, DataTable, StatusPill, when, wsQuery } from '../shared/layout';
import { adminNav } from '../admin/pages';

const KIND_LABELS = { api_key: 'API key', webhook_endpoint: 'Webhook endpoint' } as const;

/** A request's details as one line: the key's name and scopes, or the endpoint's URL and events. */
function detailsOf(request: ProvisioningRequestView): string {
  const details = request.details as { name?: string; scopes?: string[]; url?: string; event_types?: string[] };
  return request.kind === 'api_key'
    ? `${details.name ?? ''} · ${(details.scopes ?? []).join(', ')}`
    : `${details.url ?? ''} · ${(details.event_types ?? []).join(', ')}`;
}

const plain = (markdown: string) => markdown.replaceAll('`', '');

/** The owner's card on the integrations page: the two request forms and the workspace's requests. */
export function ProvisioningCard(props: {
  workspaceId: string;
  canRequest: boolean;
  requests: ProvisioningRequestView[];
  errors?: FieldErrors;
  values?: Record<string, string>;
}) {
  const { workspaceId, requests, errors = {}, values = {} } = props;
  const action = `/integrations/requests${wsQuery(workspaceId)}`;
  return (
    <section class="card" aria-labelledby="requests-title">
      <h2 id="requests-title">Ask for a key or an endpoint</h2>
      <p>
        API keys and webhook endpoints are provisioned by the platform team. Ask for one here: the team is emailed,
        decides, and you are emailed back. An approved key is shown to you once, here.
      </p>
      {props.canRequest ? (
        <div class="grid-2">
          <form method="post" action={action} class="stack" aria-labelledby="request-key-title">
            <h3 id="request-key-title">An API key</h3>
            <input type="hidden" name="kind" value="api_key" />
            <Field
              name="name"
              id="f-request-name"
              label="Key name"
              value={values.kind === 'api_key' ? values.name : ''}
              errors={values.kind === 'api_key' ? errors : {}}
              maxlength={80}
              hint="Where it will be used, such as “CRM sync”."
              required
            />
            <ChoiceGroup
              name="scopes"
              legend="Scopes"
              type="checkbox"
              options={KNOWN_SCOPES.map((scope) => ({
                value: scope,
                label: scope,
                description: plain(SCOPE_MEANINGS[scope]),
              }))}
              checked={values.kind === 'api_key' ? (values.scopes ?? 'execute').split('\n') : ['execute']}
              errors={values.kind === 'api_key' ? errors : {}}
            />
            <Field
              name="purpose"
              id="f-request-key-purpose"
              label="What it is for"
              value={values.kind === 'api_key' ? values.purpose : ''}
              errors={values.kind === 'api_key' ? errors : {}}
              multiline
              maxlength={500}
              required
            />
            <div>
              <button type="submit" class="button primary">
                Ask for the key
              </button>
            </div>
          </form>
          <form method="post" action={action} class="stack" aria-labelledby="request-endpoint-title">
            <h3 id="request-endpoint-title">A webhook endpoint</h3>
            <input type="hidden" name="kind" value="webhook_endpoint" />
            <Field
              name="url"
              id="f-request-url"
              label="Your receiver’s URL"
              type="url"
              value={values.kind === 'webhook_endpoint' ? values.url : ''}
              errors={values.kind === 'webhook_endpoint' ? errors : {}}
              placeholder="https://hooks.example.com/gateway"
              maxlength={500}
              required
            />
            <ChoiceGroup
              name="event_types"
              legend="Events"
              type="checkbox"
              options={EVENT_TYPES.map((type) => ({ value: type, label: type }))}
              checked={values.kind === 'webhook_endpoint' ? (values.event_types ?? '').split('\n') : []}
              errors={values.kind === 'webhook_endpoint' ? errors : {}}
            />
            <Field
              name="purpose"
              id="f-request-endpoint-purpose"
              label="What it is for"
              value={values.kind === 'webhook_endpoint' ? values.purpose : ''}
              errors={values.kind === 'webhook_endpoint' ? errors : {}}
              multiline
              maxlength={500}
              required
            />
            <div>
              <button type="submit" class="button primary">
                Ask for the endpoint
              </button>
            </div>
          </form>
        </div>
      ) : (
        <p class="muted">Only the workspace’s owners ask for keys and endpoints.</p>
      )}
      {requests.length > 0 ? (
        <>
          <h3>Your requests</h3>
          <DataTable
            rows={requests}
            rowId={(request) => request.request_id}
            columns={[
              { header: 'Asked for', rowHeader: true, cell: (request) => KIND_LABELS[request.kind] },
              { header: 'Details', cell: detailsOf },
              { header: 'Status', cell: (request) => <StatusPill status={request.status} /> },
              {
                header: 'When',
                cell: (request) => (
                  <>
                    {when(request.created_at)}
                    {request.decision_note ? <span class="muted"> · {request.decision_note}</span> : null}
                  </>
                ),
              },
              {
                header: 'Actions',
                headerHidden: true,
                cell: (request) =>
                  request.secret_waiting && props.canRequest ? (
                    <form
                      method="post"
                      action={`/integrations/requests/${request.request_id}/secret${wsQuery(workspaceId)}`}
                      class="inline"
                    >
                      <button type="submit" class="button small primary">
                        {request.kind === 'api_key' ? 'Show the key once' : 'Show the secret once'}
                      </button>
                    </form>
                  ) : null,
              },
            ]}
          />
        </>
      ) : null}
    </section>
  );
}

/** The one showing of an approved request's secret. */
export function SecretOncePage(props: {
  user: SessionUser;
  workspaceId: string;
  request: ProvisioningRequestView;
  secret: string;
}) {
  const { request } = props;
  const isKey = request.kind === 'api_key';
  return (
    <ConsoleLayout
      title={isKey ? 'Your new API key' : 'Your endpoint’s signing secret'}
      user={props.user}
      scripts={['/embed/console.js']}
    >
      <h1>{isKey ? 'Your new API key' : 'Your endpoint’s signing secret'}</h1>
      <section class="card stack">
        <p>
          <strong>Copy it now: it is shown this once.</strong> The platform keeps only its{' '}
          {isKey ? 'hash' : 'encrypted copy for signing'}; if it is lost, ask for a new one.
        </p>
        <p>
          <code class="secret" id="secret">
            {props.secret}
          </code>
        </p>
        <p>
          <button type="button" class="button" data-copy="#secret">
            Copy
          </button>
        </p>
        <p class="muted">
          {isKey ? `Key ${request.result_id}` : `Endpoint ${request.result_id}`} · {detailsOf(request)}
        </p>
        <p>
          <a href={`/integrations${wsQuery(props.workspaceId)}#requests-title`}>Back to the integrations</a>
        </p>
      </section>
    </ConsoleLayout>
  );
}

/** The platform admins' queue of requests. */
export function AdminRequestsPage(props: {
  user: SessionUser;
  requests: Array<ProvisioningRequestView & { workspace_name: string | null }>;
  notice?: string;
  error?: string;
}) {
  return (
    <ConsoleLayout
      title="Requests"
      user={props.user}
      nav={adminNav('requests')}
      notice={props.notice}
      error={props.error}
    >
      <h1>Requests</h1>
      <p class="lead">
        Workspaces’ requests for API keys and webhook endpoints, oldest first. Each decision is audited and emailed to
        the workspace’s owners.
      </p>
      {props.requests.length === 0 ? (
        <p class="card muted">No request waits for a decision.</p>
      ) : (
        <DataTable
          rows={props.requests}
          rowId={(request) => request.request_id}
          columns={[
            {
              header: 'Request',
              rowHeader: true,
              cell: (request) => (
                <>
                  {KIND_LABELS[request.kind]} for {request.workspace_name ?? request.workspace_id}
                  <br />
                  <small class="muted">
                    {request.workspace_id} · {when(request.created_at)}
                  </small>
                </>
              ),
            },
            { header: 'Details', cell: detailsOf },
            { header: 'Purpose', cell: (request) => String((request.details as { purpose?: string }).purpose ?? '') },
            {
              header: 'Decide',
              cell: (request) => (
                <form method="post" action={`/admin/requests/${request.request_id}`} class="stack">
                  <Field
                    name="note"
                    id={`f-note-${request.request_id}`}
                    label="Note to the owners (optional)"
                    maxlength={500}
                  />
                  <div class="row">
                    <button type="submit" name="decision" value="approve" class="button small primary">
                      Approve
                    </button>{' '}
                    <button type="submit" name="decision" value="decline" class="button small">
                      Decline
                    </button>
                  </div>
                </form>
              ),
            },
          ]}
        />
      )}
    </ConsoleLayout>
  );
}
