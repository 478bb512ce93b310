/** @jsxImportSource hono/jsx */
/**
 * The integrations page: a workspace's channels, API keys, webhook endpoints, and where assistants
 * and agents reach the gateway (MCP, A2A). Server-rendered;
 * every form works without JavaScript, and /embed/console.js only adds copy buttons.
 */
import type { ChannelView } from '../../platform/channels';
import { roleMay } from '../../platform/access';
import type { ApiKeyView } from '../../platform/keys';
import type { ProvisioningRequestView } from '../../platform/provisioning';
import { ProvisioningCard } from '../provisioning/pages';
import type { EndpointView } from '../../platform/webhooks';
import { mcpClientConfig } from '../docs/pages';
import { Field, Select, type FieldErrors } from '../shared/forms';
import {
  DataTable,
  InvitationsBanner,
  StatusPill,
  when,
  WorkspaceLayout,
  wsQuery,
  type WorkspacePageProps,
} from '../shared/layout';

export interface IntegrationsProps extends WorkspacePageProps {
  channels: ChannelView[];
  apiKeys: ApiKeyView[];
  /** The workspace's provisioning requests (owners'). */
  requests: ProvisioningRequestView[];
  /** The gateway's base URL: its MCP endpoint and A2A card are under it, the same for every workspace. */
  gatewayUrl: string;
  /** Invitations waiting for this user's answer. */
  pendingInvitations?: number;
  blockedTerms: string[];
  domains: string[];
  /** The domain a caller's demand gets when it names none and its words point nowhere. */
  defaultDomain: string | null;
  /** Days a conversation stays after its last message. */
  conversationRetentionDays: number;
  /** Owners: the workspace's webhook endpoints the platform disabled (410 Gone, or failing for 3 days). */
  disabledEndpoints?: EndpointView[];
  errors?: FieldErrors;
  values?: Record<string, string>;
  notice?: string;
  error?: string;
}

/** Where AI assistants (MCP) and agents (A2A) reach the gateway with one of the keys above. */
function AssistantsCard({ gatewayUrl }: { gatewayUrl: string }) {
  return (
    <section class="card" aria-labelledby="assistants-title">
      <h2 id="assistants-title">AI assistants and agents</h2>
      <p>
        Any MCP client (an IDE, a desktop assistant) can hand demands to your experts and agents with one of the keys
        above: the same executions, limits and audit as <code>POST /api/execute</code>.{' '}
        <a href="/docs/mcp">How it works</a>
      </p>
      <div class="copy-row">
        <code id="mcp-url">{`${gatewayUrl}/mcp`}</code>
        <button type="button" class="button" data-copy="mcp-url" hidden>
          Copy URL
        </button>
      </div>
      <p>A client configuration to paste (set EGW_API_KEY to the key, or write it in place):</p>
      <div class="copy-row">
        <pre class="snippet">
          <code id="mcp-config">{JSON.stringify(mcpClientConfig(gatewayUrl), null, 2)}</code>
        </pre>
        <button type="button" class="button" data-copy="mcp-config" hidden>
          Copy configuration
        </button>
      </div>
      <p>
        Other agents call it over A2A from its agent card, <code>{`${gatewayUrl}/.well-known/agent-card.json`}</code>,
        with the same key as a bearer token. <a href="/docs/a2a">How it works</a>
      </p>
    </section>
  );
}

/** /integrations: the workspace's channels, the create form, and its API keys (metadata only). */
export function IntegrationsPage(props: IntegrationsProps) {
  const { current, channels, apiKeys, domains, errors = {}, values = {} } = props;
  const canManage = roleMay(current.role, 'channels.write');
  return (
    <WorkspaceLayout page={props} title="Channels" active="channels" scripts={['/embed/console.js']}>
      <p class="eyebrow">
        {current.organizationName} / {current.workspaceName} · <span class="pill">{current.role}</span>
      </p>
      <InvitationsBanner count={props.pendingInvitations ?? 0} />
      {(props.disabledEndpoints ?? []).map((endpoint) => (
        <div class="alert warning" role="status">
          <strong>A webhook endpoint was disabled:</strong> {endpoint.url}{' '}
          {endpoint.disabled_reason === 'gone' ? 'answered 410 Gone' : 'failed every delivery for 3 days'} and was
          disabled at {when(endpoint.disabled_at)}. Its events are kept and go out when the platform team enables it
          again (within 3 days of each event).{' '}
          <a href={`/integrations/webhooks/${endpoint.webhook_id}${wsQuery(current.workspaceId)}`}>
            See its deliveries
          </a>
        </div>
      ))}
      <h1>Channels</h1>
      <p class="lead">
        A channel is one place where visitors reach you: a chat widget on your site and a hosted inbox page, both
        captured here.
      </p>
      <div class="grid-2">
        <section class="card" aria-labelledby="channels-title">
          <h2 id="channels-title">Your channels</h2>
          {channels.length === 0 ? (
            <p class="muted">No channels yet. Create your first one to get a snippet for your site.</p>
          ) : (
            <ul class="channel-list">
              {channels.map((channel) => (
                <li>
                  <a
                    href={`/integrations/channels/${channel.channel_key}${wsQuery(current.workspaceId)}`}
                    class="channel-link"
                  >
                    <strong>{channel.name}</strong>
                    <span class="muted"> · {channel.domain}</span>
                  </a>
                  <StatusPill status={channel.status} />
                  <code class="key">{channel.channel_key}</code>
                </li>
              ))}
            </ul>
          )}
        </section>
        {canManage ? (
          <section class="card" aria-labelledby="create-title">
            <h2 id="create-title">Create a channel</h2>
            <form method="post" action={`/integrations/channels${wsQuery(current.workspaceId)}`} class="stack">
              <Field
                name="name"
                label="Name"
                value={values.name}
                errors={errors}
                required
                maxlength={80}
                placeholder="Main website"
              />
              <Select
                name="domain"
                label="Domain (where the demand goes)"
                value={values.domain ?? domains[0] ?? ''}
                options={domains.map((domain) => [domain, domain])}
              />
              <Field
                name="allowed_origins"
                label="Sites that may embed the widget"
                value={values.allowed_origins}
                errors={errors}
                multiline
                hint="One origin per line, such as https://www.example.com (no path)."
              />
              <Field
                name="first_party_origins"
                label="Your own sites (first-party)"
                value={values.first_party_origins}
                errors={errors}
                multiline
                hint="Sites you run yourself: there the widget also shows the provider sign-up link."
              />
              <button type="submit" class="button primary">
                Create channel
              </button>
            </form>
          </section>
        ) : (
          <section class="card">
            <h2>Create a channel</h2>
            <p class="muted">
              Members can view channels. Ask an owner or admin of this workspace to create or change them.
            </p>
          </section>
        )}
      </div>
      <section class="card" aria-labelledby="workspace-settings-title">
        <h2 id="workspace-settings-title">Workspace settings</h2>
        <form method="post" action={`/integrations/settings${wsQuery(current.workspaceId)}`} class="stack">
          <fieldset disabled={!roleMay(current.role, 'workspace.settings')}>
            <legend class="sr-only">Workspace settings</legend>
            <Select
              name="default_domain"
              label="Default domain"
              value={values.default_domain ?? props.defaultDomain ?? ''}
              options={[['', 'None: the gateway picks by the words'], ...domains.map((d): [string, string] => [d, d])]}
            />
            <p class="muted">
              An assistant or agent (MCP, A2A) may send a demand without a domain. The gateway picks the domain its
              words match best; when none matches, it uses this one.
            </p>
            <Field
              name="blocked_terms"
              label="Blocked terms"
              value={values.blocked_terms ?? props.blockedTerms.join('\n')}
              errors={errors}
              multiline
              hint={
                'Messages with one of these words or phrases are held for review instead of being offered to ' +
                'experts. One per line, matched as whole words, in any case.'
              }
            />
            <Field
              name="conversation_retention_days"
              label="Keep conversations for (days after their last message)"
              type="number"
              value={values.conversation_retention_days ?? props.conversationRetentionDays}
              errors={errors}
              hint="Then a conversation and its messages go to the archive (30 to 3,650 days; 365 by default)."
            />
          </fieldset>
          {roleMay(current.role, 'workspace.settings') ? (
            <button type="submit" class="button">
              Save settings
            </button>
          ) : null}
        </form>
      </section>
      <section class="card" aria-labelledby="keys-title">
        <h2 id="keys-title">API keys</h2>
        <p>
          API keys for <code>POST /api/execute</code> are provisioned by the platform team: an owner asks for one below,
          and sees it once when it is approved.
        </p>
        {apiKeys.length === 0 ? (
          <p class="muted">This workspace has no API keys yet.</p>
        ) : (
          <DataTable
            rows={apiKeys}
            columns={[
              { header: 'Name', cell: (key) => key.name },
              {
                header: 'Key',
                cell: (key) => (
                  <>
                    <code>{key.token_prefix}…</code>
                    <br />
                    <span class="muted">{key.key_id}</span>
                  </>
                ),
              },
              { header: 'Scopes', cell: (key) => key.scopes.join(', ') },
              {
                header: 'Limits',
                cell: (key) =>
                  `${key.rate_limit_per_minute ?? 'default'} / ` +
                  `min${key.monthly_quota !== null ? `, ${key.monthly_quota} / month` : ''}`,
              },
              { header: 'State', cell: (key) => <StatusPill status={key.state} /> },
              { header: 'Created', cell: (key) => when(key.created_at) },
            ]}
          />
        )}
      </section>
      <ProvisioningCard
        workspaceId={current.workspaceId}
        canRequest={roleMay(current.role, 'provisioning.request')}
        requests={props.requests}
        errors={errors}
        values={values}
      />
      <AssistantsCard gatewayUrl={props.gatewayUrl} />
    </WorkspaceLayout>
  );
}
