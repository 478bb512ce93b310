/**
 * The provider's states and navigation: the onboarding steps, where each state leads next.
 */
import type { ProviderProfileView } from '../../platform/providers';
import type { NavItem } from '../shared/layout';

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

export const KIND_LABELS: Record<string, string> = {
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
