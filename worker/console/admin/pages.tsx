/** @jsxImportSource hono/jsx */
/** /admin/providers: the platform admins' review queue, and one provider's review page. */
import { PROVIDER_STATUSES } from '../../vocabulary';
import type { AgentHealth } from '../../platform/agents';
import type { ProviderProfileView } from '../../platform/providers';
import type { SessionUser } from '../../platform/identity';
import { AgentHealthSummary, AgentLastErrors } from '../shared/agent-health';
import { Field, type FieldErrors } from '../shared/forms';
import { ConsoleLayout, DataTable, StatusPill, when, type NavItem } from '../shared/layout';

type QueueRow = {
  provider_id: string;
  email: string;
  status: string;
  kind: string | null;
  display_name: string | null;
  accepted_scope: { domains: string[]; topics: string[] };
  submitted_at: string | null;
};

/** The platform admins' areas. */
export const adminNav = (active: 'providers' | 'requests' | 'billing' | 'insights' = 'providers'): NavItem[] => [
  { href: '/admin/providers', label: 'Provider review', current: active === 'providers' },
  { href: '/admin/requests', label: 'Requests', current: active === 'requests' },
  { href: '/admin/billing', label: 'Billing', current: active === 'billing' },
  { href: '/admin/insights', label: 'Insights', current: active === 'insights' },
];
const STATE_LABELS: Record<string, string> = {
  pending_review: 'To review',
  active: 'Active',
  suspended: 'Suspended',
  profile_incomplete: 'Incomplete',
  registered: 'Registered',
};

/** The review queue, one state at a time. */
export function ProviderQueuePage({
  user,
  status,
  rows,
  counts,
  notice,
}: {
  user: SessionUser;
  status: string;
  rows: QueueRow[];
  counts: Partial<Record<string, number>>;
  notice?: string;
}) {
  return (
    <ConsoleLayout title="Provider review" user={user} nav={adminNav()} notice={notice}>
      <h1>Provider review</h1>
      <nav class="tabs" aria-label="Provider states">
        {[...PROVIDER_STATUSES.filter((state) => state !== 'registered'), 'registered'].map((state) => (
          <a href={`/admin/providers?status=${state}`} aria-current={state === status ? 'page' : undefined}>
            {STATE_LABELS[state]} <span class="count">{counts[state] ?? 0}</span>
          </a>
        ))}
      </nav>
      <section class="card" aria-labelledby="queue-title">
        <h2 id="queue-title">{STATE_LABELS[status]}</h2>
        {rows.length === 0 ? (
          <p class="muted">Nobody in this state.</p>
        ) : (
          <DataTable
            rows={rows}
            columns={[
              {
                header: 'Provider',
                cell: (row) => (
                  <a href={`/admin/providers/${row.provider_id}`}>{row.display_name ?? '(no name yet)'}</a>
                ),
              },
              { header: 'Kind', cell: (row) => row.kind ?? '—' },
              { header: 'Account', cell: (row) => row.email },
              { header: 'Domains', cell: (row) => row.accepted_scope.domains.join(', ') || '—' },
              { header: 'Topics', cell: (row) => row.accepted_scope.topics.join(', ') || 'every topic' },
              { header: 'Submitted', class: 'nowrap', cell: (row) => when(row.submitted_at) || '—' },
            ]}
          />
        )}
      </section>
    </ConsoleLayout>
  );
}

/** One provider: the profile as submitted, its history, and the decisions the state allows. */
export function ProviderReviewPage({
  user,
  provider,
  health,
  issuedSecret,
  errors = {},
  notice,
  error,
}: {
  user: SessionUser;
  provider: ProviderProfileView & { email: string; contact_reveals?: number; escrow_id?: string | null };
  /** Agents and robots: their last 24 hours. */
  health?: AgentHealth;
  /** The signing secret the approval just issued, shown this once. */
  issuedSecret?: string;
  errors?: FieldErrors;
  notice?: string;
  error?: string;
}) {
  const base = `/admin/providers/${provider.provider_id}`;
  const rows: [string, string][] = [
    ['Account', provider.email],
    ['Kind', provider.kind ?? '—'],
    ['Headline', provider.headline ?? '—'],
    ['About', provider.bio ?? '—'],
    ['Domains', provider.accepted_scope.domains.join(', ') || '—'],
    ['Topics', provider.accepted_scope.topics.join(', ') || 'every topic'],
    ['Languages', provider.languages.join(', ') || '—'],
    ['Regions', provider.regions.join(', ') || '—'],
    ...(provider.kind === 'expert'
      ? ([
          ['Contact reveals', `${provider.contact_reveals ?? 0} (one per claim)`],
          [
            'Credits escrow',
            provider.escrow_id ? `${provider.escrow_id} (credit it on the Billing page)` : 'opened at approval',
          ],
        ] as [string, string][])
      : []),
    ...(provider.endpoint_url ? ([['Endpoint', provider.endpoint_url]] as [string, string][]) : []),
    ...(provider.agent_card_url ? ([['Agent card', provider.agent_card_url]] as [string, string][]) : []),
    ...(provider.agent_card
      ? ([
          [
            'Agent',
            `${provider.agent_card.name} (A2A ${provider.agent_card.protocol_version}) at ` +
              `${provider.agent_card.endpoint}; skills: ` +
              `${provider.agent_card.skills.map((skill) => skill.name).join(', ') || 'none'}`,
          ],
        ] as [string, string][])
      : []),
    ...(provider.kind === 'agent' || provider.kind === 'robot'
      ? ([['Priority and timeout', `${provider.priority}, ${provider.timeout_ms / 1000} s`]] as [string, string][])
      : []),
    ['Missing', provider.missing_fields.join(', ') || 'nothing'],
  ];
  return (
    <ConsoleLayout
      title={`Review ${provider.display_name ?? provider.provider_id}`}
      user={user}
      nav={adminNav()}
      notice={notice}
      error={error}
    >
      <p class="eyebrow">
        <a href={`/admin/providers?status=${provider.status}`}>Provider review</a> / {provider.provider_id}
      </p>
      <div class="title-row">
        <h1>{provider.display_name ?? '(no name yet)'}</h1>
        <StatusPill status={provider.status} />
      </div>
      {issuedSecret ? (
        <div class="alert success" role="status">
          <p>
            <strong>Approved. The signing secret of this {provider.kind}, shown this once:</strong>
          </p>
          <p>
            <code class="secret">{issuedSecret}</code>
          </p>
          <p>
            Every call to it is signed with this secret. Give it to the provider over a secure channel, or let them
            rotate it in their console to get one only they have seen.
          </p>
        </div>
      ) : null}
      <div class="grid-2">
        <section class="card" aria-labelledby="profile-title">
          <h2 id="profile-title">Profile</h2>
          <DataTable
            headless
            rows={rows}
            columns={[
              { header: 'Field', rowHeader: true, cell: ([label]) => label },
              { header: 'Value', class: 'message', cell: ([, value]) => value },
            ]}
          />
        </section>
        <div>
          <section class="card" aria-labelledby="decision-title">
            <h2 id="decision-title">Decision</h2>
            {provider.status === 'pending_review' ? (
              <>
                <form method="post" action={`${base}/approve`}>
                  <input type="hidden" name="version" value={String(provider.version)} />
                  <button type="submit" class="button primary">
                    Approve
                  </button>
                </form>
                <form method="post" action={`${base}/reject`} class="stack">
                  <Field
                    name="note"
                    label="Why it goes back (the provider reads this)"
                    errors={errors}
                    multiline
                    required
                    maxlength={1000}
                    id="f-reject-note"
                  />
                  <button type="submit" class="button">
                    Send back
                  </button>
                </form>
              </>
            ) : provider.status === 'active' ? (
              <form method="post" action={`${base}/suspend`} class="stack">
                <Field
                  name="note"
                  label="Why you suspend (the provider reads this)"
                  errors={errors}
                  multiline
                  required
                  maxlength={1000}
                  id="f-suspend-note"
                />
                <button type="submit" class="button">
                  Suspend
                </button>
              </form>
            ) : (
              <p class="muted">Nothing to decide in this state: a provider must submit their profile first.</p>
            )}
          </section>
          <section class="card" aria-labelledby="history-title">
            <h2 id="history-title">History</h2>
            <ol class="history">
              {provider.history.map((entry) => (
                <li>
                  <span class="when">{when(entry.at)}</span> {(entry.from ?? 'new').replace(/_/g, ' ')} →{' '}
                  {entry.to.replace(/_/g, ' ')} <span class="muted">by {entry.actor}</span>
                  {entry.note ? <p class="note">{entry.note}</p> : null}
                </li>
              ))}
            </ol>
          </section>
        </div>
      </div>
      {health ? <AgentHealthSummary health={health} /> : null}
      {health ? <AgentLastErrors health={health} /> : null}
    </ConsoleLayout>
  );
}
