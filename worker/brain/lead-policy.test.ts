import { getTableColumns } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import * as schema from '../../drizzle/schema';
import { CLAIM_BOUNDS, OFFER_RANKING, ROUTING_DEFAULTS, settingBounds } from './lead-policy';

describe('the lead policy', () => {
  it('ranks by the most specific topic, language, region, load, then a round robin', () => {
    expect(OFFER_RANKING).toEqual(['topic_specificity', 'language', 'region', 'open_claims', 'longest_since_claim']);
  });

  it('its defaults are within the bounds owners may choose', () => {
    expect(ROUTING_DEFAULTS.offer_first).toBeGreaterThanOrEqual(settingBounds.offerFirst.min);
    expect(ROUTING_DEFAULTS.offer_first).toBeLessThanOrEqual(settingBounds.offerFirst.max);
    for (const minutes of [
      ROUTING_DEFAULTS.offer_widen_minutes,
      ROUTING_DEFAULTS.escalate_minutes,
      ROUTING_DEFAULTS.claim_sla_minutes,
    ]) {
      expect(minutes).toBeGreaterThanOrEqual(settingBounds.minutes.min);
      expect(minutes).toBeLessThanOrEqual(settingBounds.minutes.max);
    }
  });

  it('the table’s default capacity is the policy’s (the tables cannot import the brain)', () => {
    expect(getTableColumns(schema.providers).maxOpenClaims.default).toBe(CLAIM_BOUNDS.maxOpenClaims.default);
  });
});
