/**
 * The lead's states and the changes its claimer may make (docs/design/providers-and-leads.md), as data: the
 * workbench's API and pages, and the unit tests beside this file, all read this one table.
 */
import type { LeadStatus } from './schemas';

/** The lead statuses, and the changes a claimer may make (docs/design/providers-and-leads.md). Anything else is 409. */
export const LEAD_TRANSITIONS: readonly { from: LeadStatus; to: LeadStatus }[] = [
  { from: 'open', to: 'claimed' },
  { from: 'claimed', to: 'contacted' },
  { from: 'contacted', to: 'qualified' },
  { from: 'qualified', to: 'won' },
  { from: 'qualified', to: 'lost' },
  // Releasing returns a lead to the pool.
  { from: 'claimed', to: 'open' },
  { from: 'contacted', to: 'open' },
  { from: 'qualified', to: 'open' },
];

/** Whether a lead may move from one status to another. */
export function leadTransitionAllowed(from: LeadStatus, to: LeadStatus): boolean {
  return LEAD_TRANSITIONS.some((transition) => transition.from === from && transition.to === to);
}
