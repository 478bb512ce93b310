/** @jsxImportSource hono/jsx */
/**
 * The workbench: available and claimed leads. /embed/workbench.js only refreshes the lists while visible.
 */
import type { LeadView } from '../../platform/leads';
import type { Preferences, ProviderProfileView } from '../../platform/providers';
import { Field, Select } from '../shared/forms';
import type { SessionUser } from '../../platform/identity';
import { ConsoleLayout, StatusPill, when } from '../shared/layout';
import { formatMoney } from '../shared/money';
import { leadHeadline } from '../shared/lead-headline';
import { providerNav } from './states';
import { type Credits, CreditsCard } from './credits-card';
import type { CreditsTopUp } from './top-up';
import { NumbersCard } from './numbers-card';
import type { ExpertNumbers } from '../../platform/insights';

export const URGENCY_LABEL: Record<string, string> = { high: 'urgent', normal: 'normal', low: 'low' };

/** One lead in a list. The same markup is built by /embed/workbench.js when it refreshes the list. */
function LeadCard({ lead }: { lead: LeadView }) {
  return (
    <li class="lead-card" data-lead-id={lead.lead_id}>
      <a href={`/provider/workbench/leads/${lead.lead_id}`} class="lead-link">
        <span class="lead-summary">{leadHeadline(lead.summary)}</span>
      </a>
      <span class="lead-meta">
        <StatusPill status={lead.status} />{' '}
        <span class={`pill urgency-${lead.urgency}`}>{URGENCY_LABEL[lead.urgency]}</span>{' '}
        <span class="pill">{lead.topic}</span>{' '}
        {lead.claim_fee ? (
          <>
            <span class="pill fee">fee {formatMoney(lead.claim_fee.amount_minor, lead.claim_fee.currency)}</span>{' '}
          </>
        ) : null}
        <span class="muted">
          <span class="nowrap">{lead.reference}</span> · {lead.channel_name ?? 'API'} · {when(lead.created_at)}
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
  preferences: Preferences;
  credits: Credits;
  topUp: CreditsTopUp;
  numbers: ExpertNumbers;
  now: number;
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
      <NumbersCard numbers={props.numbers} currency={props.credits.currency} />
      <CreditsCard credits={props.credits} topUp={props.topUp} now={props.now} />
      <PreferencesCard preferences={props.preferences} />
    </ConsoleLayout>
  );
}

/** Availability, alerts and capacity (docs/design/email.md and docs/design/lead-operations.md): a plain form. */
function PreferencesCard({ preferences }: { preferences: Preferences }) {
  return (
    <section class="card" id="preferences" aria-labelledby="preferences-title">
      <h2 id="preferences-title">Preferences</h2>
      <p class="muted">
        {preferences.availability === 'away'
          ? 'You are away: no new leads are offered to you and no alerts are sent. The leads you hold stay yours.'
          : 'You are available: new leads in your scope are offered to you.'}
      </p>
      <form method="post" action="/provider/workbench/preferences" class="stack">
        <Select
          name="availability"
          label="Availability"
          value={preferences.availability}
          options={[
            ['available', 'Available: offer me new leads'],
            ['away', 'Away: no new leads for now'],
          ]}
        />
        <Select
          name="lead_alerts"
          label="Lead alerts by email"
          value={preferences.lead_alerts}
          options={[
            ['instant', 'Instant: an email for each new lead'],
            ['hourly', 'Hourly: one digest an hour'],
            ['off', 'Off: no emails'],
          ]}
        />
        <Field
          name="max_open_claims"
          label="Leads I can hold at once"
          type="number"
          value={preferences.max_open_claims}
          hint="Claimed, contacted or qualified; 1 to 100."
          required
        />
        <div>
          <button type="submit" class="button primary">
            Save preferences
          </button>
        </div>
      </form>
    </section>
  );
}
