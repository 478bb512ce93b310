/** @jsxImportSource hono/jsx */
/** The form of each onboarding step, and what the platform read from an agent's card or expects of a robot. */
import type { Child } from 'hono/jsx';
import type { AgentCardSummary } from '../../platform/agents';
import type { DomainEntry } from '../../platform/domains';
import type { SessionUser } from '../../platform/identity';
import type { ProviderProfileView } from '../../platform/providers';
import { ChoiceGroup, Field, type FieldErrors } from '../shared/forms';
import { CodeChoice } from '../shared/code-choice';
import { counted, DataTable, when } from '../shared/layout';
import { KIND_LABELS, type OnboardingStep } from './states';

const joinList = (items: string[]) => items.join(', ');

/** What the onboarding page and its step form are rendered from. */
export interface OnboardingProps {
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

/** The exact request a robot receives and the answer it must give (docs/design/agents-and-robots.md). */
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

/** The form of the step at hand, filled from the profile (or the values just refused). */
export function StepForm({ props }: { props: OnboardingProps }) {
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
        <CodeChoice field="languages" kind="language" label="Add a language" />
        <Field
          name="regions"
          label="Regions"
          value={values.regions ?? joinList(profile.regions)}
          errors={errors}
          required
          hint="Two-letter country codes, comma-separated (DE, US), or global."
        />
        <CodeChoice field="regions" kind="region" label="Add a region" />
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
                `${counted(profile.agent_card.skills.length, 'skill')})`
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
