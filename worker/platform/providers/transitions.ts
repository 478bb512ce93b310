/**
 * The provider's states and what moves it between them (docs/design/providers-and-leads.md), as data: the
 * provider API, the review pages and the unit tests beside this file all read this one table.
 */
import type { ProviderStatus } from '../../vocabulary';

/** What moves a provider from one state to another. */
export type ProviderEvent = 'save' | 'submit' | 'approve' | 'reject' | 'suspend' | 'material_change';

/** docs/design/providers-and-leads.md, as data: every allowed transition. Anything else is 409 `invalid_transition`. */
export const PROVIDER_TRANSITIONS: readonly {
  from: readonly ProviderStatus[];
  event: ProviderEvent;
  to: ProviderStatus;
}[] = [
  { from: ['registered'], event: 'save', to: 'profile_incomplete' },
  { from: ['registered', 'profile_incomplete'], event: 'submit', to: 'pending_review' },
  { from: ['pending_review'], event: 'approve', to: 'active' },
  { from: ['pending_review'], event: 'reject', to: 'profile_incomplete' },
  { from: ['active'], event: 'suspend', to: 'suspended' },
  { from: ['active'], event: 'material_change', to: 'pending_review' },
  { from: ['suspended'], event: 'submit', to: 'pending_review' },
];

/** The state an event leads to, or undefined when the transition is not allowed. */
export function nextProviderStatus(current: ProviderStatus, event: ProviderEvent): ProviderStatus | undefined {
  return PROVIDER_TRANSITIONS.find((transition) => transition.event === event && transition.from.includes(current))?.to;
}
