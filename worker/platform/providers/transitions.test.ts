import { describe, expect, it } from 'vitest';
import { PROVIDER_STATUSES } from '../../vocabulary';
import { nextProviderStatus, type ProviderEvent } from './transitions';

/** docs/design/providers-and-leads.md, written out as "state + event → state". Every other pair is refused. */
const EXPECTED: Record<string, string> = {
  'registered+save': 'profile_incomplete',
  'registered+submit': 'pending_review',
  'profile_incomplete+submit': 'pending_review',
  'pending_review+approve': 'active',
  'pending_review+reject': 'profile_incomplete',
  'active+suspend': 'suspended',
  'active+material_change': 'pending_review',
  'suspended+submit': 'pending_review',
};
const EVENTS: ProviderEvent[] = ['save', 'submit', 'approve', 'reject', 'suspend', 'material_change'];

describe('the provider state machine', () => {
  for (const status of PROVIDER_STATUSES) {
    for (const event of EVENTS) {
      const to = EXPECTED[`${status}+${event}`];
      it(`${status} + ${event} → ${to ?? 'refused'}`, () => {
        expect(nextProviderStatus(status, event)).toBe(to);
      });
    }
  }
});
