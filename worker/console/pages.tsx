/** @jsxImportSource hono/jsx */
/**
 * Console pages for site owners and providers. Server-rendered; every form works without
 * JavaScript, and /embed/console.js only adds copy buttons and the live widget preview.
 * Visitor text is rendered by JSX, which escapes it: text only, never markup.
 */
import { raw } from 'hono/html';
import type { Child } from 'hono/jsx';
import type { SessionUser } from '../lib/sessions';
import type { InvitationView, MembershipView, WorkspaceRole } from '../platform/accounts';
import type { ChannelView, PublicWidgetConfig } from '../platform/channels/schemas';
import type { IntakeEntry } from '../platform/channels/service';
import type { ApiKeyDescription } from '../platform/identity';
import { Document } from './document';
import { Field, Select, type FieldErrors } from './forms';
import { jsonForScriptBlock } from './security';

export type { FieldErrors } from './forms';

const when = (iso: string | null) => (iso ? iso.replace('T', ' ').slice(0, 16) + ' UTC' : '');
const wsQuery = (workspaceId: string) => `?ws=${encodeURIComponent(workspaceId)}`;

interface LayoutProps {
  title: string;
  user: SessionUser;
  memberships?: MembershipView[];
  current?: MembershipView;
  active?: 'channels' | 'team';
  notice?: string;
  error?: string;
  scripts?: string[];
  children: Child;
}

export function ConsoleLayout({ title, user, memberships = [], current, active, notice, error, scripts = [], children }: LayoutProps) {
  return (
    <Document title={`${title} · Edge Gateway`}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <div class="inner">
          <a class="brand" href="/integrations">
            Edge Gateway
          </a>
          {current ? (
            <nav aria-label="Console" class="console-nav">
              <a href={`/integrations${wsQuery(current.workspaceId)}`} aria-current={active === 'channels' ? 'page' : undefined}>
                Channels
              </a>
              <a href={`/integrations/team${wsQuery(current.workspaceId)}`} aria-current={active === 'team' ? 'page' : undefined}>
                Team
              </a>
              <a href="/docs">API docs</a>
            </nav>
          ) : null}
          {memberships.length > 1 && current ? (
            <form class="switcher" method="get" action="/integrations">
              <label for="workspace-switcher" class="sr-only">
                Workspace
              </label>
              <select id="workspace-switcher" name="ws" data-autosubmit>
                {memberships.map((membership) => (
                  <option value={membership.workspaceId} selected={membership.workspaceId === current.workspaceId}>
                    {membership.organizationName} / {membership.workspaceName}
                  </option>
                ))}
              </select>
              <button type="submit" class="button small">
                Switch
              </button>
            </form>
          ) : null}
          <span class="who">{user.email}</span>
          <form method="post" action="/auth/sign-out" class="inline">
            <button type="submit" class="button small ghost">
              Sign out
            </button>
          </form>
        </div>
      </header>
      <main id="main" class="page">
        {notice ? (
          <div class="alert success" role="status">
            {notice}
          </div>
        ) : null}
        {error ? (
          <div class="alert error" role="alert">
            {error}
          </div>
        ) : null}
        {children}
      </main>
      {scripts.map((src) => (
        <script src={src} defer></script>
      ))}
    </Document>
  );
}

/** A pointer to the invitations page when someone invited this user. */
function InvitationsBanner({ count }: { count: number }) {
  if (count === 0) return null;
  return (
    <div class="alert" role="status">
      You have {count === 1 ? 'an invitation' : `${count} invitations`} to join a workspace. <a href="/invitations">Review {count === 1 ? 'it' : 'them'}</a>
    </div>
  );
}

export function OnboardingPage({ user, errors = {}, values = {}, invitations = [] }: { user: SessionUser; errors?: FieldErrors; values?: Record<string, string>; invitations?: InvitationView[] }) {
  return (
    <ConsoleLayout title="Set up your organisation" user={user}>
      <div class="narrow">
        <InvitationsBanner count={invitations.length} />
        <h1>Set up your organisation</h1>
        <p class="lead">Your organisation holds workspaces; a workspace holds your channels, keys and team. You will be its owner.</p>
        <form method="post" action="/onboarding/workspace" class="card stack">
          <Field name="organization_name" label="Organisation name" value={values.organization_name} errors={errors} required maxlength={120} />
          <Field name="workspace_name" label="First workspace" value={values.workspace_name ?? 'Production'} errors={errors} required maxlength={120} hint="For example Production, or the name of a brand." />
          <button type="submit" class="button primary">
            Create organisation
          </button>
        </form>
      </div>
    </ConsoleLayout>
  );
}

function StatusPill({ status }: { status: string }) {
  return <span class={`pill status-${status}`}>{status}</span>;
}

export interface IntegrationsProps {
  user: SessionUser;
  memberships: MembershipView[];
  current: MembershipView;
  channels: ChannelView[];
  apiKeys: ApiKeyDescription[];
  /** Invitations waiting for this user's answer. */
  pendingInvitations?: number;
  domains: string[];
  errors?: FieldErrors;
  values?: Record<string, string>;
  notice?: string;
  error?: string;
}

export function IntegrationsPage(props: IntegrationsProps) {
  const { current, channels, apiKeys, domains, errors = {}, values = {} } = props;
  const canManage = current.role === 'owner' || current.role === 'admin';
  return (
    <ConsoleLayout
      title="Channels"
      user={props.user}
      memberships={props.memberships}
      current={current}
      active="channels"
      notice={props.notice}
      error={props.error}
      scripts={['/embed/console.js']}
    >
      <p class="eyebrow">
        {current.organizationName} / {current.workspaceName} · <span class="pill">{current.role}</span>
      </p>
      <InvitationsBanner count={props.pendingInvitations ?? 0} />
      <h1>Channels</h1>
      <p class="lead">A channel is one place where visitors reach you: a chat widget on your site and a hosted inbox page, both captured here.</p>
      <div class="grid-2">
        <section class="card" aria-labelledby="channels-title">
          <h2 id="channels-title">Your channels</h2>
          {channels.length === 0 ? (
            <p class="muted">No channels yet. Create your first one to get a snippet for your site.</p>
          ) : (
            <ul class="channel-list">
              {channels.map((channel) => (
                <li>
                  <a href={`/integrations/channels/${channel.channel_key}${wsQuery(current.workspaceId)}`} class="channel-link">
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
              <Field name="name" label="Name" value={values.name} errors={errors} required maxlength={80} placeholder="Main website" />
              <Select name="domain" label="Domain (where the demand goes)" value={values.domain ?? domains[0] ?? ''} options={domains.map((domain) => [domain, domain])} />
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
            <p class="muted">Members can view channels. Ask an owner or admin of this workspace to create or change them.</p>
          </section>
        )}
      </div>
      <section class="card" aria-labelledby="keys-title">
        <h2 id="keys-title">API keys</h2>
        <p>
          API keys for <code>POST /api/execute</code> are issued by the platform administrator through provisioning, not here. To get one, ask your account
          contact and quote workspace <code>{current.workspaceId}</code> and the scopes you need (for example <code>execute</code> and <code>leads:write</code>).
        </p>
        {apiKeys.length === 0 ? (
          <p class="muted">This workspace has no API keys yet.</p>
        ) : (
          <div class="table-scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Key</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">Limits</th>
                  <th scope="col">State</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {apiKeys.map((key) => (
                  <tr>
                    <td>{key.name}</td>
                    <td>
                      <code>{key.token_prefix}…</code>
                      <br />
                      <span class="muted">{key.key_id}</span>
                    </td>
                    <td>{key.scopes.join(', ')}</td>
                    <td>
                      {key.rate_limit_per_minute ?? 'default'} / min
                      {key.monthly_quota !== null ? `, ${key.monthly_quota} / month` : ''}
                    </td>
                    <td>
                      <StatusPill status={key.state} />
                    </td>
                    <td>{when(key.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </ConsoleLayout>
  );
}

export interface ChannelPageProps {
  user: SessionUser;
  memberships: MembershipView[];
  current: MembershipView;
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

export function ChannelPage(props: ChannelPageProps) {
  const { channel, current, errors = {} } = props;
  const widget = channel.widget;
  const canManage = current.role === 'owner' || current.role === 'admin';
  const base = `/integrations/channels/${channel.channel_key}`;
  const ws = wsQuery(current.workspaceId);
  return (
    <ConsoleLayout
      title={channel.name}
      user={props.user}
      memberships={props.memberships}
      current={current}
      active="channels"
      notice={props.notice}
      error={props.error}
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
              <Field name="brand.name" label="Brand name" value={widget.brand.name} errors={errors} required maxlength={60} />
              <Field name="brand.logo_url" label="Logo URL (https, optional)" value={widget.brand.logo_url} errors={errors} type="url" />
              <div class="row-2">
                <Field name="colors.primary" label="Main colour" value={widget.colors.primary} errors={errors} type="color" />
                <Field name="colors.on_primary" label="Text on main colour" value={widget.colors.on_primary} errors={errors} type="color" />
              </div>
              <div class="row-3">
                <Select name="position.side" label="Position" value={widget.position.side} options={[['bottom-right', 'Bottom right'], ['bottom-left', 'Bottom left']]} />
                <Field name="position.offset_x" label="Side offset (px)" value={widget.position.offset_x} errors={errors} type="number" />
                <Field name="position.offset_y" label="Bottom offset (px)" value={widget.position.offset_y} errors={errors} type="number" />
              </div>
            </fieldset>
            <fieldset disabled={!canManage}>
              <legend>Copy</legend>
              <Field name="copy.title" label="Title" value={widget.copy.title} errors={errors} required maxlength={60} />
              <Field name="copy.greeting" label="Greeting" value={widget.copy.greeting} errors={errors} required multiline maxlength={280} />
              <Field name="copy.placeholder" label="Message placeholder" value={widget.copy.placeholder} errors={errors} required maxlength={80} />
              <Field name="copy.launcher_label" label="Launcher label (for screen readers)" value={widget.copy.launcher_label} errors={errors} required maxlength={40} />
              <Field name="copy.success_message" label="After contact details are sent" value={widget.copy.success_message} errors={errors} required maxlength={200} />
              <Field name="copy.privacy_note" label="Privacy note" value={widget.copy.privacy_note} errors={errors} required multiline maxlength={280} />
            </fieldset>
            <fieldset disabled={!canManage}>
              <legend>Lead capture and provider entry</legend>
              <div class="row-3">
                <Select name="lead_capture.name" label="Name" value={widget.lead_capture.name} options={FIELD_RULES} />
                <Select name="lead_capture.email" label="Email" value={widget.lead_capture.email} options={FIELD_RULES} />
                <Select name="lead_capture.phone" label="Phone" value={widget.lead_capture.phone} options={FIELD_RULES} />
              </div>
              <div class="row-2">
                <Select
                  name="provider_entry.mode"
                  label="“Become an expert” link"
                  value={widget.provider_entry.mode}
                  options={[['auto', 'Auto: on my own sites only'], ['on', 'Always'], ['off', 'Never']]}
                />
                <Field name="provider_entry.label" label="Link label" value={widget.provider_entry.label} errors={errors} required maxlength={40} />
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
            <Select name="domain" label="Domain" value={channel.domain} options={props.domains.map((domain) => [domain, domain])} />
            <Field name="allowed_origins" label="Sites that may embed the widget" value={channel.allowed_origins.join('\n')} errors={errors} multiline hint="One origin per line." />
            <Field name="first_party_origins" label="Your own sites (first-party)" value={channel.first_party_origins.join('\n')} errors={errors} multiline hint="One origin per line." />
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
          <div class="table-scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Trigger</th>
                  <th scope="col">Message</th>
                  <th scope="col">Lead</th>
                  <th scope="col">Source</th>
                </tr>
              </thead>
              <tbody>
                {props.intake.map((entry) => (
                  <tr>
                    <td class="nowrap">{when(entry.created_at)}</td>
                    <td>{entry.trigger}</td>
                    <td class="message">{entry.text ?? <span class="muted">(contact details only)</span>}</td>
                    <td>
                      {entry.lead ? (
                        <>
                          <StatusPill status={entry.lead.status} />
                          <br />
                          <span class="muted">{entry.lead.contact_fields.length ? `gave ${entry.lead.contact_fields.join(', ')}` : 'no contact yet'}</span>
                        </>
                      ) : (
                        <span class="muted">none</span>
                      )}
                    </td>
                    <td class="source">
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
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </ConsoleLayout>
  );
}

export interface TeamPageProps {
  user: SessionUser;
  memberships: MembershipView[];
  current: MembershipView;
  members: { userId: string; email: string; role: WorkspaceRole; since: number }[];
  invitations: InvitationView[];
  errors?: FieldErrors;
  notice?: string;
  error?: string;
}

const ROLE_OPTIONS: [string, string][] = [
  ['owner', 'Owner'],
  ['admin', 'Admin'],
  ['member', 'Member'],
];

export function TeamPage(props: TeamPageProps) {
  const { current } = props;
  const isOwner = current.role === 'owner';
  const ws = wsQuery(current.workspaceId);
  return (
    <ConsoleLayout title="Team" user={props.user} memberships={props.memberships} current={current} active="team" notice={props.notice} error={props.error}>
      <p class="eyebrow">
        {current.organizationName} / {current.workspaceName}
      </p>
      <h1>Team</h1>
      <p class="lead">Owners manage the team; owners and admins manage channels; members can look.</p>
      <section class="card" aria-labelledby="members-title">
        <h2 id="members-title">Members</h2>
        <div class="table-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                {isOwner ? <th scope="col">Change</th> : null}
              </tr>
            </thead>
            <tbody>
              {props.members.map((member) => (
                <tr>
                  <td>
                    {member.email}
                    {member.userId === props.user.id ? <span class="muted"> (you)</span> : null}
                  </td>
                  <td>
                    <span class="pill">{member.role}</span>
                  </td>
                  {isOwner ? (
                    <td>
                      <form method="post" action={`/integrations/team/${member.userId}/role${ws}`} class="inline">
                        <label class="sr-only" for={`role-${member.userId}`}>
                          Role for {member.email}
                        </label>
                        <select id={`role-${member.userId}`} name="role">
                          {ROLE_OPTIONS.map(([value, label]) => (
                            <option value={value} selected={value === member.role}>
                              {label}
                            </option>
                          ))}
                        </select>
                        <button type="submit" class="button small">
                          Update
                        </button>
                      </form>{' '}
                      <form method="post" action={`/integrations/team/${member.userId}/remove${ws}`} class="inline">
                        <button type="submit" class="button small ghost">
                          Remove
                        </button>
                      </form>
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      {props.invitations.length > 0 ? (
        <section class="card" aria-labelledby="invitations-title">
          <h2 id="invitations-title">Open invitations</h2>
          <div class="table-scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <th scope="col">Expires</th>
                  {isOwner ? <th scope="col">Change</th> : null}
                </tr>
              </thead>
              <tbody>
                {props.invitations.map((invitation) => (
                  <tr>
                    <td>{invitation.email}</td>
                    <td>
                      <span class="pill">{invitation.role}</span>
                    </td>
                    <td class="nowrap">{when(new Date(invitation.expiresAt).toISOString())}</td>
                    {isOwner ? (
                      <td>
                        <form method="post" action={`/integrations/team/invitations/${invitation.invitationId}/revoke${ws}`} class="inline">
                          <button type="submit" class="button small ghost">
                            Withdraw
                          </button>
                        </form>
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      ) : null}
      {isOwner ? (
        <section class="card narrow" aria-labelledby="invite-title">
          <h2 id="invite-title">Invite someone</h2>
          <p class="muted">They accept the invitation in the console after signing in with this address (or after signing up with it). It expires in 7 days.</p>
          <form method="post" action={`/integrations/team/invite${ws}`} class="stack">
            <Field name="email" label="Email" type="email" errors={props.errors} required />
            <Select name="role" label="Role" value="member" options={ROLE_OPTIONS} />
            <button type="submit" class="button primary">
              Send invitation
            </button>
          </form>
        </section>
      ) : null}
    </ConsoleLayout>
  );
}

/** The invitations waiting for the signed-in user: accept or decline each. */
export function InvitationsPage({ user, invitations, notice }: { user: SessionUser; invitations: InvitationView[]; notice?: string }) {
  return (
    <ConsoleLayout title="Invitations" user={user} notice={notice}>
      <div class="narrow">
        <h1>Invitations</h1>
        {invitations.length === 0 ? (
          <p class="lead">No invitations are waiting for you.</p>
        ) : (
          <ul class="invitation-list">
            {invitations.map((invitation) => (
              <li class="card">
                <p>
                  Join <strong>{invitation.organizationName} / {invitation.workspaceName}</strong> as <span class="pill">{invitation.role}</span>
                </p>
                <p class="muted">Expires {when(new Date(invitation.expiresAt).toISOString())}</p>
                <div class="row-actions">
                  <form method="post" action={`/invitations/${invitation.invitationId}/accept`} class="inline">
                    <button type="submit" class="button primary">
                      Accept
                    </button>
                  </form>
                  <form method="post" action={`/invitations/${invitation.invitationId}/decline`} class="inline">
                    <button type="submit" class="button ghost">
                      Decline
                    </button>
                  </form>
                </div>
              </li>
            ))}
          </ul>
        )}
        <p>
          <a href="/integrations">Back to the console</a>
        </p>
      </div>
    </ConsoleLayout>
  );
}

const PROVIDER_STEPS = ['Create your account', 'Complete your profile', 'Review by the platform team', 'Claim leads in the workbench'];
/** How far along the steps each provider state is. */
const STEPS_DONE: Record<string, number> = { registered: 1, profile_incomplete: 1, pending_review: 2, active: 4, suspended: 2 };

export function ProviderOnboardingPage({ user, status, referredBy, pendingInvitations = 0 }: { user: SessionUser; status: string; referredBy: string | null; pendingInvitations?: number }) {
  const done = STEPS_DONE[status] ?? 1;
  return (
    <ConsoleLayout title="Provider onboarding" user={user}>
      <div class="narrow">
        <InvitationsBanner count={pendingInvitations} />
        <p class="eyebrow">Provider onboarding</p>
        <h1>{status === 'active' ? 'You are an active expert' : 'Welcome, you are registered'}</h1>
        <p>
          Your provider account is <StatusPill status={status} />.{' '}
          {status === 'active'
            ? 'Leads that match your accepted scope appear in the workbench.'
            : 'Next, complete your profile (what you do, which domains and topics you accept, languages and regions) and submit it for review. Once approved you can claim leads in the workbench.'}
        </p>
        {referredBy ? (
          <p class="muted">
            You came from channel <code>{referredBy}</code>.
          </p>
        ) : null}
        <ol class="steps">
          {PROVIDER_STEPS.map((step, index) => (
            <li class={index < done ? 'done' : undefined}>{step}</li>
          ))}
        </ol>
      </div>
    </ConsoleLayout>
  );
}
