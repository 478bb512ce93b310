/** @jsxImportSource hono/jsx */
/**
 * The provider's pages: onboarding in steps (kind, profile, accepted scope, languages and regions,
 * review and submit), and the workbench (available and claimed leads, a lead's detail). Every
 * form works without JavaScript; /embed/workbench.js only refreshes the lists while visible.
 * Visitor text is rendered by JSX, which escapes it: text only.
 */
import type { Child } from 'hono/jsx';
import type { DomainEntry } from '../../platform/domains';
import type { AgentCardSummary, AgentHealth } from '../../platform/agents';
import type { LeadDetail, LeadStatus, LeadView } from '../../platform/leads';
import type { ProviderProfileView } from '../../platform/providers';
import type { SessionUser } from '../../platform/identity';
import { ChoiceGroup, Field, type FieldErrors } from '../shared/forms';
import { AgentHealthSummary, AgentLastErrors } from '../shared/agent-health';
import { ConsoleLayout, DataTable, InvitationsBanner, StatusPill, when, type NavItem } from '../shared/layout';

export const ONBOARDING_STEPS = [
  { id: 'kind', title: 'What you are' },
  { id: 'profile', title: 'Your profile' },
  { id: 'scope', title: 'What you accept' },
  { id: 'reach', title: 'Languages and regions' },
  { id: 'review', title: 'Review and submit' },
] as const;
export type OnboardingStep = (typeof ONBOARDING_STEPS)[number]['id'];

/** The provider's navigation: the workbench for active experts, operations for agents and robots. */
export function providerNav(
  active: 'onboarding' | 'workbench' | 'operations',
  profile: { status: string; kind: string | null },
): NavItem[] {
  const executes = profile.kind === 'agent' || profile.kind === 'robot';
  return [
    { href: '/provider/onboarding', label: 'Profile', current: active === 'onboarding' },
    ...(profile.status === 'active' && profile.kind === 'expert'
      ? [{ href: '/provider/workbench', label: 'Workbench', current: active === 'workbench' }]
      : []),
    ...(executes ? [{ href: '/provider/operations', label: 'Operations', current: active === 'operations' }] : []),
  ];
}

const KIND_LABELS: Record<string, string> = {
  expert: 'An expert',
  agent: 'An AI agent (A2A)',
  robot: 'A robot (signed HTTPS endpoint)',
};

/** What happens next, for each state: the provider always knows where they stand. */
export function nextStepText(profile: ProviderProfileView): string {
  const executes = profile.kind === 'agent' || profile.kind === 'robot';
  switch (profile.status) {
    case 'registered':
      return (
        'Tell us what you do, in five short steps. Nothing is shown to anyone until you submit your profile for ' +
        'review.'
      );
    case 'profile_incomplete':
      return profile.review_note
        ? 'Your profile came back from review. Read the note, update your profile, and submit it again.'
        : 'Complete the steps, then submit your profile for review by the platform team.';
    case 'pending_review':
      return (
        'Your profile is with the platform team. The decision appears here. You can still edit your profile ' +
        'meanwhile.'
      );
    case 'active':
      return executes
        ? 'You are active: executions in your domains are sent to your endpoint. Changing your kind, scope or ' +
            'endpoint sends your profile back to review.'
        : 'You are active: leads in your scope appear in your workbench. Changing your kind or scope sends your ' +
            'profile back to review.';
    case 'suspended':
      return (
        'Your account is suspended: you receive no leads or executions. Read the note, update your profile, and ' +
        'resubmit it for review.'
      );
  }
}

interface OnboardingProps {
  user: SessionUser;
  profile: ProviderProfileView;
  step: OnboardingStep;
  domains: DomainEntry[];
  referredBy: string | null;
  pendingInvitations: number;
  errors?: FieldErrors;
  values?: Record<string, string>;
  notice?: string;
  error?: string;
}

function StepNav({ step, profile }: { step: OnboardingStep; profile: ProviderProfileView }) {
  const missing = new Set(profile.missing_fields.map((field) => field.split('.')[0]));
  const stepMissing: Record<OnboardingStep, boolean> = {
    kind: missing.has('kind'),
    profile:
      missing.has('display_name') ||
      missing.has('headline') ||
      missing.has('endpoint_url') ||
      missing.has('agent_card_url'),
    scope: missing.has('accepted_scope'),
    reach: missing.has('languages') || missing.has('regions'),
    review: false,
  };
  return (
    <nav aria-label="Onboarding steps">
      <ol class="stepper">
        {ONBOARDING_STEPS.map((item, index) => (
          <li class={item.id === step ? 'current' : stepMissing[item.id] ? 'todo' : 'done'}>
            <a href={`/provider/onboarding?step=${item.id}`} aria-current={item.id === step ? 'step' : undefined}>
              <span class="step-number">{index + 1}</span> {item.title}
            </a>
          </li>
        ))}
      </ol>
    </nav>
  );
}

const joinList = (items: string[]) => items.join(', ');

/** What the platform read from an agent's card: what it will call. */
function AgentCardPanel({ card }: { card: AgentCardSummary }) {
  return (
    <div class="card inset" role="status" aria-labelledby="card-title">
      <h3 id="card-title">Card found: {card.name}</h3>
      <p class="muted">
        A2A {card.protocol_version} over {card.protocol_binding === 'JSONRPC' ? 'JSON-RPC' : 'HTTP+JSON'} · version{' '}
        {card.version || '—'} · fetched {when(card.fetched_at)}
      </p>
      {card.description ? <p>{card.description}</p> : null}
      <p>
        Calls go to <code>{card.endpoint}</code>.
      </p>
      {card.skills.length > 0 ? (
        <ul class="skills">
          {card.skills.map((skill) => (
            <li>
              <strong>{skill.name}</strong>
              {skill.description ? ` — ${skill.description}` : ''}
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">The card lists no skills.</p>
      )}
    </div>
  );
}

const ROBOT_REQUEST = `POST {your endpoint}
Content-Type: application/json
webhook-id: call_01j…
webhook-timestamp: 1795400000
webhook-signature: v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=

{
  "execution_id": "exe_01j…",
  "domain": "consultation",
  "text": "What does the Pro plan cost?",
  "structured_input": { "seats": 12 },
  "attachments": [],
  "request_id": "req_01j…",
  "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736",
  "workspace_id": "ws_01j…",
  "memory": [{ "role": "visitor", "text": "Hi", "created_at": "2026-11-23T09:00:00.000Z" }]
}`;

const ROBOT_ANSWER = `200 OK
Content-Type: application/json

{
  "output": { "price": 240, "currency": "EUR" },
  "reply": "The Pro plan costs €240 a month for 12 seats.",
  "usage": [{ "meter": "tokens", "quantity": 812, "unit": "token" }]
}`;

/** The exact request a robot receives and the answer it must give (PRODUCT.md section 7). */
function RobotContract() {
  return (
    <details class="contract">
      <summary>The request your robot receives, and the answer it gives</summary>
      <p>
        One POST per execution. Verify the three <code>webhook-*</code> headers with your signing secret (Standard
        Webhooks; the npm <code>standardwebhooks</code> library does it), and refuse anything else. Fields with nothing
        to say are left out; <code>memory</code> is the conversation's earlier turns, when the caller allows it.
      </p>
      <pre>
        <code>{ROBOT_REQUEST}</code>
      </pre>
      <p>
        Answer within your timeout with JSON: <code>output</code> (an object, required) is returned to API callers;{' '}
        <code>reply</code> is what a widget visitor reads (needed for chat); <code>usage</code> lines are added to the
        caller's <code>usage_applications</code>. Any other answer, a status other than 2xx, or a redirect counts as a
        failure, and the next provider or an expert takes over.
      </p>
      <pre>
        <code>{ROBOT_ANSWER}</code>
      </pre>
    </details>
  );
}

function StepForm({ props }: { props: OnboardingProps }) {
  const { profile, step, errors = {}, values = {} } = props;
  const value = (name: string, current: string | number | null) =>
    values[name] ?? (current === null ? '' : String(current));
  const action = `/provider/onboarding/${step}`;
  const save = (label = 'Save and continue') => (
    <button type="submit" class="button primary">
      {label}
    </button>
  );
  if (step === 'kind') {
    return (
      <form method="post" action={action} class="stack">
        <ChoiceGroup
          name="kind"
          legend="I am joining as"
          type="radio"
          checked={[values.kind ?? profile.kind ?? 'expert']}
          errors={errors}
          options={[
            {
              value: 'expert',
              label: KIND_LABELS.expert!,
              description: 'I claim leads in the workbench and follow up with people myself.',
            },
            {
              value: 'agent',
              label: KIND_LABELS.agent!,
              description: 'An A2A agent answers executions; you give its agent card URL.',
            },
            {
              value: 'robot',
              label: KIND_LABELS.robot!,
              description: 'Your HTTPS endpoint answers executions, signed by the platform.',
            },
          ]}
        />
        {save()}
      </form>
    );
  }
  if (step === 'profile') {
    const kind = profile.kind ?? 'expert';
    return (
      <form method="post" action={action} class="stack">
        <Field
          name="display_name"
          label="Display name"
          value={value('display_name', profile.display_name)}
          errors={errors}
          required
          maxlength={80}
          hint="What site owners and visitors see, such as your name or your firm's."
        />
        <Field
          name="headline"
          label="Headline"
          value={value('headline', profile.headline)}
          errors={errors}
          required
          maxlength={140}
          hint="One line: what you help with."
        />
        <Field
          name="bio"
          label="About (optional)"
          value={value('bio', profile.bio)}
          errors={errors}
          multiline
          maxlength={2000}
        />
        {kind === 'robot' ? (
          <>
            <Field
              name="endpoint_url"
              label="Endpoint URL"
              type="url"
              value={value('endpoint_url', profile.endpoint_url)}
              errors={errors}
              required
              hint={
                'A public https URL on the default port. The platform POSTs each execution there, signed ' +
                '(Standard Webhooks).'
              }
            />
            <RobotContract />
          </>
        ) : null}
        {kind === 'agent' ? (
          <>
            <Field
              name="agent_card_url"
              label="Agent card URL"
              type="url"
              value={value('agent_card_url', profile.agent_card_url)}
              errors={errors}
              required
              hint={
                'The https URL of your A2A agent card (A2A 1.0, or 0.3), such as ' +
                'https://agent.example.com/.well-known/agent-card.json. We fetch and check it when you save.'
              }
            />
            {profile.agent_card ? <AgentCardPanel card={profile.agent_card} /> : null}
            <Field
              name="agent_bearer_token"
              label="Bearer token (optional)"
              type="password"
              value={values.agent_bearer_token ?? ''}
              errors={errors}
              autocomplete="off"
              hint={
                profile.agent_bearer_token_set
                  ? 'A token is stored, encrypted; it is never shown. Enter a new one to replace it.'
                  : 'If your agent wants one, it is sent as Authorization: Bearer on every call, and stored encrypted.'
              }
            />
            {profile.agent_bearer_token_set ? (
              <label class="check">
                <input type="checkbox" name="remove_bearer_token" value="1" /> Remove the stored token
              </label>
            ) : null}
          </>
        ) : null}
        {kind !== 'expert' ? (
          <>
            <Field
              name="priority"
              label="Priority (0 to 100)"
              type="number"
              value={value('priority', profile.priority)}
              errors={errors}
              hint="Agents and robots of a domain are tried highest first."
            />
            <Field
              name="timeout_seconds"
              label="Timeout (seconds, 1 to 25)"
              type="number"
              value={values.timeout_seconds ?? String(profile.timeout_ms / 1000)}
              errors={errors}
              hint="How long one call may take before the next agent or an expert takes over."
            />
          </>
        ) : null}
        {save()}
      </form>
    );
  }
  if (step === 'scope') {
    return (
      <form method="post" action={action} class="stack">
        <ChoiceGroup
          name="domains"
          legend="Domains you accept"
          type="checkbox"
          checked={values.domains !== undefined ? values.domains.split('\n') : profile.accepted_scope.domains}
          errors={errors}
          hint="Demand arrives by domain. Pick at least one."
          options={props.domains.map((domain) => ({
            value: domain.domain,
            label: domain.name,
            ...(domain.description ? { description: domain.description } : {}),
          }))}
        />
        <Field
          name="topics"
          label="Topics (optional)"
          value={values.topics ?? joinList(profile.accepted_scope.topics)}
          errors={errors}
          hint={
            'Comma-separated, such as payroll, vat returns. With topics you see only demand about them; without, ' +
            'every demand of your domains.'
          }
        />
        {save()}
      </form>
    );
  }
  if (step === 'reach') {
    return (
      <form method="post" action={action} class="stack">
        <Field
          name="languages"
          label="Languages"
          value={values.languages ?? joinList(profile.languages)}
          errors={errors}
          required
          hint="Language codes, comma-separated: en, de, pt-BR."
        />
        <Field
          name="regions"
          label="Regions"
          value={values.regions ?? joinList(profile.regions)}
          errors={errors}
          required
          hint="Two-letter country codes, comma-separated (DE, US), or global."
        />
        {save()}
      </form>
    );
  }
  const rows: [string, Child][] = [
    ['Kind', profile.kind ? KIND_LABELS[profile.kind] : '—'],
    ['Display name', profile.display_name ?? '—'],
    ['Headline', profile.headline ?? '—'],
    ['About', profile.bio ?? '—'],
    ['Domains', joinList(profile.accepted_scope.domains) || '—'],
    ['Topics', joinList(profile.accepted_scope.topics) || 'every topic'],
    ['Languages', joinList(profile.languages) || '—'],
    ['Regions', joinList(profile.regions) || '—'],
    ...(profile.kind === 'robot' ? ([['Endpoint', profile.endpoint_url ?? '—']] as [string, Child][]) : []),
    ...(profile.kind === 'agent'
      ? ([
          ['Agent card', profile.agent_card_url ?? '—'],
          [
            'Agent',
            profile.agent_card
              ? `${profile.agent_card.name} (A2A ${profile.agent_card.protocol_version}, ` +
                `${profile.agent_card.skills.length} skills)`
              : 'not fetched yet',
          ],
        ] as [string, Child][])
      : []),
    ...(profile.kind === 'agent' || profile.kind === 'robot'
      ? ([
          ['Priority', String(profile.priority)],
          ['Timeout', `${profile.timeout_ms / 1000} s`],
        ] as [string, Child][])
      : []),
  ];
  const canSubmit =
    profile.missing_fields.length === 0 && ['registered', 'profile_incomplete', 'suspended'].includes(profile.status);
  return (
    <div class="stack">
      <DataTable
        headless
        rows={rows}
        columns={[
          { header: 'Field', rowHeader: true, cell: ([label]) => label },
          { header: 'Value', class: 'message', cell: ([, shown]) => shown },
        ]}
      />
      {profile.missing_fields.length > 0 ? (
        <div class="alert" role="status">
          Still missing:{' '}
          {profile.missing_fields.map((field) => field.replace('accepted_scope.', '').replace('_', ' ')).join(', ')}.
          Fill them in, then submit.
        </div>
      ) : null}
      {canSubmit ? (
        <form method="post" action="/provider/onboarding/submit">
          <button type="submit" class="button primary">
            Submit for review
          </button>
        </form>
      ) : profile.status === 'pending_review' ? (
        <p class="muted">Submitted {when(profile.submitted_at)}: waiting for review.</p>
      ) : null}
    </div>
  );
}

/** Onboarding: where the provider stands, what happens next, and the step at hand. */
export function ProviderOnboardingPage(props: OnboardingProps) {
  const { profile } = props;
  const title = ONBOARDING_STEPS.find((item) => item.id === props.step)!.title;
  return (
    <ConsoleLayout
      title="Provider onboarding"
      user={props.user}
      nav={providerNav('onboarding', profile)}
      notice={props.notice}
      error={props.error}
    >
      <div class="narrow">
        <InvitationsBanner count={props.pendingInvitations} />
        <p class="eyebrow">Provider onboarding</p>
        <h1>{profile.display_name ?? 'Your provider profile'}</h1>
        <section class="card status-card" aria-labelledby="state-title">
          <h2 id="state-title">
            State: <StatusPill status={profile.status} />
          </h2>
          <p>{nextStepText(profile)}</p>
          {profile.review_note && (profile.status === 'profile_incomplete' || profile.status === 'suspended') ? (
            <div class="alert error" role="alert">
              <strong>Note from the platform team:</strong> {profile.review_note}
            </div>
          ) : null}
          {profile.status === 'active' && profile.kind === 'expert' ? (
            <p>
              <a class="button primary" href="/provider/workbench">
                Open the workbench
              </a>
            </p>
          ) : null}
          {props.referredBy ? (
            <p class="muted">
              You came from channel <code>{props.referredBy}</code>.
            </p>
          ) : null}
        </section>
        <StepNav step={props.step} profile={profile} />
        <section class="card" aria-labelledby="step-title">
          <h2 id="step-title">{title}</h2>
          <StepForm props={props} />
        </section>
      </div>
    </ConsoleLayout>
  );
}

const URGENCY_LABEL: Record<string, string> = { high: 'urgent', normal: 'normal', low: 'low' };

/** One lead in a list. The same markup is built by /embed/workbench.js when it refreshes the list. */
function LeadCard({ lead }: { lead: LeadView }) {
  return (
    <li class="lead-card" data-lead-id={lead.lead_id}>
      <a href={`/provider/workbench/leads/${lead.lead_id}`} class="lead-link">
        <span class="lead-summary">{lead.summary || '(contact details only)'}</span>
      </a>
      <span class="lead-meta">
        <StatusPill status={lead.status} />{' '}
        <span class={`pill urgency-${lead.urgency}`}>{URGENCY_LABEL[lead.urgency]}</span>{' '}
        <span class="pill">{lead.topic}</span>{' '}
        <span class="muted">
          {lead.reference} · {lead.channel_name ?? 'API'} · {when(lead.created_at)}
        </span>
      </span>
    </li>
  );
}

interface WorkbenchProps {
  user: SessionUser;
  profile: ProviderProfileView;
  tab: 'available' | 'mine';
  leads: LeadView[];
  counts: { available: number; mine: number };
  hasMore: boolean;
  notice?: string;
  error?: string;
}

/** The workbench: open leads in the expert's scope, and the ones they claimed. */
export function WorkbenchPage(props: WorkbenchProps) {
  const tabs = [
    { id: 'available', label: 'Available' },
    { id: 'mine', label: 'Mine' },
  ] as const;
  return (
    <ConsoleLayout
      title="Workbench"
      user={props.user}
      nav={providerNav('workbench', props.profile)}
      notice={props.notice}
      error={props.error}
      scripts={['/embed/workbench.js']}
    >
      <h1>Workbench</h1>
      <p class="lead">
        Leads in {props.profile.accepted_scope.domains.join(', ')}
        {props.profile.accepted_scope.topics.length ? ` about ${props.profile.accepted_scope.topics.join(', ')}` : ''}.
        New ones appear here by themselves.
      </p>
      <nav class="tabs" aria-label="Leads">
        {tabs.map((tab) => (
          <a href={`/provider/workbench?tab=${tab.id}`} aria-current={props.tab === tab.id ? 'page' : undefined}>
            {tab.label}{' '}
            <span class="count" data-count={tab.id}>
              {props.counts[tab.id]}
            </span>
          </a>
        ))}
      </nav>
      <section class="card" aria-live="polite" aria-labelledby="leads-title">
        <h2 id="leads-title" class="sr-only">
          {props.tab === 'available' ? 'Available leads' : 'My leads'}
        </h2>
        <p class="muted empty" hidden={props.leads.length > 0}>
          {props.tab === 'available'
            ? 'No open leads in your scope right now. This list refreshes by itself.'
            : 'You have not claimed any lead yet.'}
        </p>
        <ul class="lead-list" data-tab={props.tab}>
          {props.leads.map((lead) => (
            <LeadCard lead={lead} />
          ))}
        </ul>
        {props.hasMore ? (
          <p>
            <a
              href={`/provider/workbench?tab=${props.tab}&after=${props.leads[props.leads.length - 1]?.lead_id ?? ''}`}
            >
              Older leads
            </a>
          </p>
        ) : null}
      </section>
    </ConsoleLayout>
  );
}

/** The statuses a claimer may move a lead to next (release is its own button). */
const NEXT_STATUSES: Partial<Record<LeadStatus, LeadStatus[]>> = {
  claimed: ['contacted'],
  contacted: ['qualified'],
  qualified: ['won', 'lost'],
};

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
  return (
    <ConsoleLayout
      title={`Lead ${lead.reference}`}
      user={user}
      nav={providerNav('workbench', { status: 'active', kind: 'expert' })}
      notice={notice}
      error={error}
    >
      <p class="eyebrow">
        <a href={`/provider/workbench?tab=${mine ? 'mine' : 'available'}`}>Workbench</a> / {lead.reference}
      </p>
      <div class="title-row">
        <h1>Lead {lead.reference}</h1>
        <StatusPill status={lead.status} />
        <span class={`pill urgency-${lead.urgency}`}>{URGENCY_LABEL[lead.urgency]}</span>
      </div>
      <div class="grid-2">
        <section class="card" aria-labelledby="conversation-title">
          <h2 id="conversation-title">Conversation</h2>
          {lead.messages.length > 0 ? (
            <ol class="transcript">
              {lead.messages.map((message) => (
                <li class={`turn ${message.role}`}>
                  <span class="speaker">
                    {message.role === 'visitor'
                      ? 'Visitor'
                      : message.role === 'system'
                        ? 'Platform'
                        : message.role === 'agent'
                          ? 'Agent'
                          : 'Expert'}
                  </span>
                  <span class="when">{when(message.created_at)}</span>
                  <p>{message.text}</p>
                </li>
              ))}
            </ol>
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
                <p>Claim it to see the contact details and follow up. The first expert to claim it gets it.</p>
                <button type="submit" class="button primary">
                  Claim this lead
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
                  {entry.from ? `${entry.from} → ${entry.to}` : `created (${entry.to})`}
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

/** A provider who may not use the workbench yet: why, and what to do next. */
/**
 * What a provider sees on a page its state or kind does not open (the same policy as the
 * provider API): why, and where to go instead. Answered with 403.
 */
export function ProviderClosedPage({
  user,
  profile,
  area,
}: {
  user: SessionUser;
  profile: ProviderProfileView;
  area: 'workbench' | 'operations';
}) {
  // A provider who has not chosen a kind yet is told the next step, not that the kind is wrong.
  const wrongKind =
    profile.kind !== null &&
    (area === 'workbench' ? profile.kind !== 'expert' : profile.kind !== 'agent' && profile.kind !== 'robot');
  return (
    <ConsoleLayout
      title={area === 'workbench' ? 'Workbench' : 'Operations'}
      user={user}
      nav={providerNav(area, profile)}
    >
      <div class="narrow">
        <h1>{area === 'workbench' ? 'The workbench is not open to you yet' : 'Operations are not open to you'}</h1>
        <p>
          Your provider account is <StatusPill status={profile.status} />
          {profile.kind && wrongKind ? ` and you are registered as ${KIND_LABELS[profile.kind]?.toLowerCase()}` : ''}.
        </p>
        <p>
          {wrongKind
            ? area === 'workbench'
              ? 'The workbench is where experts claim leads; agents and robots answer executions instead.'
              : 'Operations are for agents and robots: their signing secret and their health. Experts claim leads in ' +
                'the workbench.'
            : area === 'workbench'
              ? nextStepText(profile)
              : 'Operations open once your profile is submitted for review.'}
        </p>
        <p>
          <a class="button primary" href="/provider/onboarding">
            Go to your profile
          </a>
        </p>
      </div>
    </ConsoleLayout>
  );
}

interface OperationsProps {
  user: SessionUser;
  profile: ProviderProfileView;
  health: AgentHealth;
  /** A secret shown now, once: after the reveal, or after a rotation. */
  shownSecret?: { value: string; previousValidUntil: string | null };
  notice?: string;
  error?: string;
}

/** An agent's or robot's operations: its signing secret, and its last 24 hours. */
export function OperationsPage({ user, profile, health, shownSecret, notice, error }: OperationsProps) {
  const secret = profile.signing_secret;
  return (
    <ConsoleLayout
      title="Operations"
      user={user}
      nav={providerNav('operations', profile)}
      notice={notice}
      error={error}
    >
      <h1>Operations</h1>
      <p class="lead">
        {profile.display_name ?? `Your ${profile.kind ?? 'provider'}`} is <StatusPill status={profile.status} />.{' '}
        {profile.status === 'active' ? 'Executions in your domains are sent to you.' : 'It receives no executions now.'}
      </p>
      <div class="grid-2">
        <section class="card" aria-labelledby="secret-title">
          <h2 id="secret-title">Signing secret</h2>
          <p>
            Every call carries <code>webhook-id</code>, <code>webhook-timestamp</code> and{' '}
            <code>webhook-signature</code> (Standard Webhooks) over its exact body. Verify them and refuse anything
            else.
          </p>
          {shownSecret ? (
            <div class="alert success" role="status">
              <p>
                <strong>Copy it now: it is not shown again.</strong>
              </p>
              <p>
                <code class="secret">{shownSecret.value}</code>
              </p>
              {shownSecret.previousValidUntil ? (
                <p>Your previous secret also signs until {when(shownSecret.previousValidUntil)}.</p>
              ) : null}
            </div>
          ) : null}
          {!secret.issued ? <p class="muted">It is issued when the platform team approves you.</p> : null}
          {secret.issued ? (
            <form method="post" action="/provider/operations/secret/rotate" class="stack">
              {secret.previous_valid_until && !shownSecret ? (
                <p class="muted">
                  A rotation is under way: the previous secret also signs until {when(secret.previous_valid_until)}.
                </p>
              ) : null}
              {!shownSecret ? (
                <p>
                  The secret issued at your approval was shown once, to the platform team who approved you. Rotate it to
                  get one that only you have seen.
                </p>
              ) : null}
              <p class="muted">
                Rotating issues a new secret, shown once; for 24 hours calls are signed with both the old and the new
                one, so you can deploy it without missing one.
              </p>
              <button type="submit" class="button ghost">
                Rotate the secret
              </button>
            </form>
          ) : null}
        </section>
        <AgentHealthSummary health={health} />
      </div>
      <AgentLastErrors health={health} />
    </ConsoleLayout>
  );
}
