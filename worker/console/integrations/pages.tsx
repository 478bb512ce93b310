/** @jsxImportSource hono/jsx */
/**
 * Console pages for site owners: workspace onboarding, the channel list, and a channel's page
 * (install, widget editor with live preview, settings, recent intake). Server-rendered; every
 * form works without JavaScript, and /embed/console.js only adds copy buttons and the preview.
 */
import { raw } from 'hono/html';
import type { ChannelView, PublicWidgetConfig } from '../../platform/channels';
import { roleMay } from '../../platform/access';
import type { InvitationView } from '../../platform/identity';
import type { ApiKeyDescription } from '../../platform/identity';
import type { SessionUser } from '../../platform/identity';
import type { IntakeEntry } from '../../platform/leads';
import type { EndpointView } from '../../platform/webhooks';
import { Field, Select, type FieldErrors } from '../shared/forms';
import {
  ConsoleLayout,
  DataTable,
  InvitationsBanner,
  StatusPill,
  when,
  WorkspaceLayout,
  wsQuery,
  type WorkspacePageProps,
} from '../shared/layout';
import { jsonForScriptBlock } from '../shared/security';

export type { FieldErrors } from '../shared/forms';

/** A business user's first step: name the organisation and its first workspace. */
export function OnboardingPage({
  user,
  errors = {},
  values = {},
  invitations = [],
}: {
  user: SessionUser;
  errors?: FieldErrors;
  values?: Record<string, string>;
  invitations?: InvitationView[];
}) {
  return (
    <ConsoleLayout title="Set up your organisation" user={user}>
      <div class="narrow">
        <InvitationsBanner count={invitations.length} />
        <h1>Set up your organisation</h1>
        <p class="lead">
          Your organisation holds workspaces; a workspace holds your channels, keys and team. You will be its owner.
        </p>
        <form method="post" action="/onboarding/workspace" class="card stack">
          <Field
            name="organization_name"
            label="Organisation name"
            value={values.organization_name}
            errors={errors}
            required
            maxlength={120}
          />
          <Field
            name="workspace_name"
            label="First workspace"
            value={values.workspace_name ?? 'Production'}
            errors={errors}
            required
            maxlength={120}
            hint="For example Production, or the name of a brand."
          />
          <button type="submit" class="button primary">
            Create organisation
          </button>
        </form>
      </div>
    </ConsoleLayout>
  );
}

export interface IntegrationsProps extends WorkspacePageProps {
  channels: ChannelView[];
  apiKeys: ApiKeyDescription[];
  /** Invitations waiting for this user's answer. */
  pendingInvitations?: number;
  blockedTerms: string[];
  domains: string[];
  /** Owners: the workspace's webhook endpoints the platform disabled (410 Gone, or failing for 3 days). */
  disabledEndpoints?: EndpointView[];
  errors?: FieldErrors;
  values?: Record<string, string>;
  notice?: string;
  error?: string;
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
        <h2 id="workspace-settings-title">Risk control</h2>
        <p class="muted">
          Messages that contain one of these words or phrases are held for review instead of being offered to experts.
        </p>
        <form method="post" action={`/integrations/settings${wsQuery(current.workspaceId)}`} class="stack">
          <fieldset disabled={!roleMay(current.role, 'workspace.settings')}>
            <legend class="sr-only">Workspace settings</legend>
            <Field
              name="blocked_terms"
              label="Blocked terms"
              value={props.blockedTerms.join('\n')}
              errors={errors}
              multiline
              hint="One per line. Matched as whole words, in any case."
            />
          </fieldset>
          {roleMay(current.role, 'workspace.settings') ? (
            <button type="submit" class="button">
              Save blocked terms
            </button>
          ) : null}
        </form>
      </section>
      <section class="card" aria-labelledby="keys-title">
        <h2 id="keys-title">API keys</h2>
        <p>
          API keys for <code>POST /api/execute</code> are issued by the platform administrator through provisioning, not
          here. To get one, ask your account contact and quote workspace <code>{current.workspaceId}</code> and the
          scopes you need (for example <code>execute</code> and <code>leads:write</code>).
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
    </WorkspaceLayout>
  );
}

export interface ChannelPageProps extends WorkspacePageProps {
  channel: ChannelView;
  previewConfig: PublicWidgetConfig;
  intake: IntakeEntry[];
  domains: string[];
  errors?: FieldErrors;
  notice?: string;
  error?: string;
}

const FIELD_RULES: [string, string][] = [
  ['off', 'Not asked'],
  ['optional', 'Optional'],
  ['required', 'Required'],
];

/** One channel: install snippet, widget editor with live preview, settings and recent intake. */
export function ChannelPage(props: ChannelPageProps) {
  const { channel, current, errors = {} } = props;
  const widget = channel.widget;
  const canManage = roleMay(current.role, 'channels.write');
  const base = `/integrations/channels/${channel.channel_key}`;
  const ws = wsQuery(current.workspaceId);
  return (
    <WorkspaceLayout
      page={props}
      title={channel.name}
      active="channels"
      scripts={['/embed/panel.js', '/embed/console.js']}
    >
      <p class="eyebrow">
        <a href={`/integrations${ws}`}>Channels</a> / {channel.name}
      </p>
      <div class="title-row">
        <h1>{channel.name}</h1>
        <StatusPill status={channel.status} />
        {canManage ? (
          <form method="post" action={`${base}/status${ws}`} class="inline">
            <input type="hidden" name="status" value={channel.status === 'active' ? 'disabled' : 'active'} />
            <button type="submit" class="button small">
              {channel.status === 'active' ? 'Disable channel' : 'Enable channel'}
            </button>
          </form>
        ) : null}
      </div>

      <section class="card" aria-labelledby="install-title">
        <h2 id="install-title">Install</h2>
        <p>Paste this snippet into your site, just before &lt;/body&gt;:</p>
        <div class="copy-row">
          <pre class="snippet">
            <code id="snippet">{channel.snippet}</code>
          </pre>
          <button type="button" class="button" data-copy="snippet" hidden>
            Copy snippet
          </button>
        </div>
        <p>Or share the hosted inbox, which needs no code:</p>
        <div class="copy-row">
          <a id="inbox-link" href={channel.hosted_inbox_url} target="_blank" rel="noopener">
            {channel.hosted_inbox_url}
          </a>
          <button type="button" class="button" data-copy="inbox-link" hidden>
            Copy link
          </button>
        </div>
      </section>

      <section class="card" aria-labelledby="widget-title">
        <h2 id="widget-title">Widget</h2>
        <div class="editor">
          <form id="widget-form" method="post" action={`${base}/widget${ws}`} class="stack">
            <fieldset disabled={!canManage}>
              <legend>Brand and colours</legend>
              <Field
                name="brand.name"
                label="Brand name"
                value={widget.brand.name}
                errors={errors}
                required
                maxlength={60}
              />
              <Field
                name="brand.logo_url"
                label="Logo URL (https, optional)"
                value={widget.brand.logo_url}
                errors={errors}
                type="url"
              />
              <div class="row-2">
                <Field
                  name="colors.primary"
                  label="Main colour"
                  value={widget.colors.primary}
                  errors={errors}
                  type="color"
                />
                <Field
                  name="colors.on_primary"
                  label="Text on main colour"
                  value={widget.colors.on_primary}
                  errors={errors}
                  type="color"
                />
              </div>
              <div class="row-3">
                <Select
                  name="position.side"
                  label="Position"
                  value={widget.position.side}
                  options={[
                    ['bottom-right', 'Bottom right'],
                    ['bottom-left', 'Bottom left'],
                  ]}
                />
                <Field
                  name="position.offset_x"
                  label="Side offset (px)"
                  value={widget.position.offset_x}
                  errors={errors}
                  type="number"
                />
                <Field
                  name="position.offset_y"
                  label="Bottom offset (px)"
                  value={widget.position.offset_y}
                  errors={errors}
                  type="number"
                />
              </div>
            </fieldset>
            <fieldset disabled={!canManage}>
              <legend>Copy</legend>
              <Field
                name="copy.title"
                label="Title"
                value={widget.copy.title}
                errors={errors}
                required
                maxlength={60}
              />
              <Field
                name="copy.greeting"
                label="Greeting"
                value={widget.copy.greeting}
                errors={errors}
                required
                multiline
                maxlength={280}
              />
              <Field
                name="copy.placeholder"
                label="Message placeholder"
                value={widget.copy.placeholder}
                errors={errors}
                required
                maxlength={80}
              />
              <Field
                name="copy.launcher_label"
                label="Launcher label (for screen readers)"
                value={widget.copy.launcher_label}
                errors={errors}
                required
                maxlength={40}
              />
              <Field
                name="copy.success_message"
                label="After contact details are sent"
                value={widget.copy.success_message}
                errors={errors}
                required
                maxlength={200}
              />
              <Field
                name="copy.privacy_note"
                label="Privacy note"
                value={widget.copy.privacy_note}
                errors={errors}
                required
                multiline
                maxlength={280}
              />
            </fieldset>
            <fieldset disabled={!canManage}>
              <legend>Lead capture and provider entry</legend>
              <div class="row-3">
                <Select name="lead_capture.name" label="Name" value={widget.lead_capture.name} options={FIELD_RULES} />
                <Select
                  name="lead_capture.email"
                  label="Email"
                  value={widget.lead_capture.email}
                  options={FIELD_RULES}
                />
                <Select
                  name="lead_capture.phone"
                  label="Phone"
                  value={widget.lead_capture.phone}
                  options={FIELD_RULES}
                />
              </div>
              <div class="row-2">
                <Select
                  name="provider_entry.mode"
                  label="“Become an expert” link"
                  value={widget.provider_entry.mode}
                  options={[
                    ['auto', 'Auto: on my own sites only'],
                    ['on', 'Always'],
                    ['off', 'Never'],
                  ]}
                />
                <Field
                  name="provider_entry.label"
                  label="Link label"
                  value={widget.provider_entry.label}
                  errors={errors}
                  required
                  maxlength={40}
                />
              </div>
            </fieldset>
            {canManage ? (
              <button type="submit" class="button primary">
                Save widget
              </button>
            ) : null}
          </form>
          <div class="preview-pane">
            <p class="muted">Live preview (nothing is sent from here)</p>
            <div id="widget-preview"></div>
            <script type="application/json" id="preview-config">
              {raw(jsonForScriptBlock(props.previewConfig))}
            </script>
          </div>
        </div>
      </section>

      <section class="card" aria-labelledby="settings-title">
        <h2 id="settings-title">Settings</h2>
        <form method="post" action={`${base}/settings${ws}`} class="stack">
          <fieldset disabled={!canManage}>
            <legend class="sr-only">Channel settings</legend>
            <Field name="name" label="Name" value={channel.name} errors={errors} required maxlength={80} />
            <Select
              name="domain"
              label="Domain"
              value={channel.domain}
              options={props.domains.map((domain) => [domain, domain])}
            />
            <Field
              name="allowed_origins"
              label="Sites that may embed the widget"
              value={channel.allowed_origins.join('\n')}
              errors={errors}
              multiline
              hint="One origin per line."
            />
            <Field
              name="first_party_origins"
              label="Your own sites (first-party)"
              value={channel.first_party_origins.join('\n')}
              errors={errors}
              multiline
              hint="One origin per line."
            />
            <Select
              name="routing_pool"
              label="Who may see this channel’s leads"
              value={channel.routing_pool}
              options={[
                ['platform', 'Every matching active expert on the platform'],
                ['workspace', 'Only experts who are members of this workspace'],
              ]}
            />
          </fieldset>
          {canManage ? (
            <button type="submit" class="button">
              Save settings
            </button>
          ) : null}
        </form>
      </section>

      <section class="card" aria-labelledby="intake-title">
        <h2 id="intake-title">Recent intake</h2>
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
                    <code>{entry.reference}</code>
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
