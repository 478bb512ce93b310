/** @jsxImportSource hono/jsx */
/**
 * Onboarding in steps (kind, profile, accepted scope, languages and regions, review and submit).
 * Every form works without JavaScript.
 */
import type { ProviderProfileView } from '../../platform/providers';
import { ConsoleLayout, InvitationsBanner, StatusPill } from '../shared/layout';
import { ONBOARDING_STEPS, nextStepText, providerNav, type OnboardingStep } from './states';
import { StepForm, type OnboardingProps } from './onboarding-form';

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
      scripts={props.step === 'reach' ? ['/embed/console.js'] : []}
    >
      <InvitationsBanner count={props.pendingInvitations} />
      <p class="eyebrow">Provider onboarding</p>
      <h1>{profile.display_name ?? 'Your provider profile'}</h1>
      {/* On a desktop: where they stand and the steps beside the step at hand, which takes the width. */}
      <div class="onboarding">
        <div class="onboarding-side">
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
        </div>
        <section class="card" aria-labelledby="step-title">
          <h2 id="step-title">{title}</h2>
          <StepForm props={props} />
        </section>
      </div>
    </ConsoleLayout>
  );
}
