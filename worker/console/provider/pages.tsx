/** @jsxImportSource hono/jsx */
/** The provider's pages: onboarding (state and next steps). */
import type { SessionUser } from '../../platform/identity/sessions';
import { ConsoleLayout, InvitationsBanner, StatusPill } from '../shared/layout';

const PROVIDER_STEPS = ['Create your account', 'Complete your profile', 'Review by the platform team', 'Claim leads in the workbench'];
/** How far along the steps each provider state is. */
const STEPS_DONE: Record<string, number> = { registered: 1, profile_incomplete: 1, pending_review: 2, active: 4, suspended: 2 };

/** Where a provider lands: their state, and what happens next. */
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
