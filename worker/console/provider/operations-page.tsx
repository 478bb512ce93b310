/** @jsxImportSource hono/jsx */
/**
 * An agent's or robot's operations, and the page a provider sees where its state or kind does not open.
 */
import type { AgentHealth } from '../../platform/agents';
import type { ProviderProfileView } from '../../platform/providers';
import type { SessionUser } from '../../platform/identity';
import { AgentHealthSummary, AgentLastErrors } from '../shared/agent-health';
import { ConsoleLayout, StatusPill, when } from '../shared/layout';
import { KIND_LABELS, nextStepText, providerNav } from './states';

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
