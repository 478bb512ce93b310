/** @jsxImportSource hono/jsx */
/**
 * A channel's page: install, the widget editor with live preview, settings. Its recent intake has
 * its own page (intake-page.tsx).
 * Server-rendered; every form works without JavaScript, and /embed/console.js adds the preview.
 */
import { catalogStatus, type Language } from '../../lib/i18n';
import { CopyByLanguage, LanguageField } from './copy-languages';
import { raw } from 'hono/html';
import type { ChannelView, CspFinding, PublicWidgetConfig } from '../../platform/channels';
import { roleMay } from '../../platform/access';
import { RoutingFields } from './lead-operations';
import { ChannelTabs } from './intake-page';
import { Field, Select, type FieldErrors } from '../shared/forms';
import { StatusPill, WorkspaceLayout, wsQuery, type WorkspacePageProps } from '../shared/layout';
import { jsonForScriptBlock } from '../shared/security';

export interface ChannelPageProps extends WorkspacePageProps {
  channel: ChannelView;
  previewConfig: PublicWidgetConfig;
  domains: string[];
  errors?: FieldErrors;
  notice?: string;
  error?: string;
  /** The site policy check, when the owner asked for it. */
  cspFindings?: CspFinding[];
  /** The language whose copy the page edits (`?copy=`), and that form's errors. */
  copyLanguage?: Language;
  copyErrors?: FieldErrors;
}

const FIELD_RULES: [string, string][] = [
  ['off', 'Not asked'],
  ['optional', 'Optional'],
  ['required', 'Required'],
];

/** One channel: install snippet, widget editor with live preview, and settings. */
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
      <ChannelTabs channelKey={channel.channel_key} ws={ws} current="set-up" />

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
        <h3 id="csp-title">Your site’s Content-Security-Policy</h3>
        <p>
          A page with a strict policy must allow the widget’s script, its calls and its live socket, or the widget falls
          back to polling and the browser reports a violation on every page view.
        </p>
        {props.cspFindings ? (
          <>
            <CspFindings findings={props.cspFindings} />
            <p>
              <a href={`${base}${ws}&check=csp#csp-title`}>Check again</a> after you change a policy.
            </p>
          </>
        ) : (
          <p>
            <a class="button small" href={`${base}${ws}&check=csp#csp-title`}>
              Check my sites’ policies
            </a>
          </p>
        )}
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
              <Select
                name="copy_language"
                label="The language this copy is written in"
                value={widget.copy_language}
                options={catalogStatus().map(({ language, name }): [string, string] => [
                  language,
                  `${name} (${language})`,
                ])}
              />
              <p class="hint">
                Visitors in this language read it; visitors in another read your words for theirs under Copy in each
                language, else the default wording in their language.
              </p>
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

      <CopyByLanguage
        channel={channel}
        language={props.copyLanguage ?? 'de'}
        pageUrl={`${base}${ws}`}
        canManage={canManage}
        errors={props.copyErrors}
      />

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
            <LanguageField value={channel.language} />
            <RoutingFields routing={channel.routing} errors={errors} />
          </fieldset>
          {canManage ? (
            <button type="submit" class="button">
              Save settings
            </button>
          ) : null}
        </form>
      </section>
    </WorkspaceLayout>
  );
}

const CSP_STATUS: Record<CspFinding['status'], string> = {
  ok: 'Fine',
  missing: 'Sources missing',
  no_policy: 'No policy',
  unreachable: 'Not checked',
};

const WARNING = new Set<CspFinding['status']>(['missing', 'unreachable']);

/** What the policy check found, origin by origin, with the exact sources to add. */
function CspFindings({ findings }: { findings: CspFinding[] }) {
  if (findings.length === 0)
    return <p>Add the sites that embed the widget (allowed origins) to check their policies.</p>;
  return (
    <ul class="csp-findings" aria-live="polite">
      {findings.map((finding) => (
        <li>
          <strong>{finding.origin}</strong>{' '}
          <span class={`pill ${WARNING.has(finding.status) ? 'status-failing' : 'status-active'}`}>
            {CSP_STATUS[finding.status]}
          </span>
          {finding.missing.length === 0 ? <p>{finding.detail}</p> : null}
          {finding.missing.length > 0 ? (
            <ul>
              {finding.missing.map((entry) => (
                <li>
                  Add <code>{entry.source}</code> to <code>{entry.directive}</code>, for {entry.needed_for}.
                </li>
              ))}
            </ul>
          ) : null}
        </li>
      ))}
    </ul>
  );
}
