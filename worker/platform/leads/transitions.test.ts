import { describe, expect, it } from 'vitest';
import { LEAD_STATUSES } from '../../vocabulary';
import { leadTransitionAllowed } from './transitions';

/** docs/design/providers-and-leads.md, written out: every move a claimer may make. Anything else is 409. */
const ALLOWED = [
  'open>claimed',
  'claimed>contacted',
  'contacted>qualified',
  'qualified>won',
  'qualified>lost',
  'claimed>open',
  'contacted>open',
  'qualified>open',
];

describe('the lead status table', () => {
  for (const from of LEAD_STATUSES) {
    for (const to of LEAD_STATUSES) {
      const allowed = ALLOWED.includes(`${from}>${to}`);
      it(`${from} → ${to}: ${allowed ? 'allowed' : 'refused'}`, () => {
        expect(leadTransitionAllowed(from, to)).toBe(allowed);
      });
    }
  }

  it('won and lost are final', () => {
    for (const to of LEAD_STATUSES) {
      expect(leadTransitionAllowed('won', to)).toBe(false);
      expect(leadTransitionAllowed('lost', to)).toBe(false);
    }
  });
});
