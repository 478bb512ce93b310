import { scaleLinear } from 'd3-scale';
import { describe, expect, it } from 'vitest';
import { niceAxis } from './charts';

describe('the value axis', () => {
  it('has two to five whole ticks from zero up to its top, whatever the largest value', () => {
    for (let max = 4; max <= 20_000; max += max < 100 ? 1 : 97) {
      const scale = scaleLinear().domain([0, max]);
      const ticks = niceAxis(scale);
      expect(ticks.length, `max ${max}: ${ticks}`).toBeLessThanOrEqual(5);
      expect(ticks.length, `max ${max}: ${ticks}`).toBeGreaterThanOrEqual(2);
      expect(ticks[0]).toBe(0);
      expect(ticks.every(Number.isInteger)).toBe(true);
      // The largest value is on the drawing, and the top gridline is labelled.
      expect(scale.domain()[1]).toBeGreaterThanOrEqual(max);
      expect(ticks.at(-1)).toBe(scale.domain()[1]);
    }
  });

  it('asks d3 for fewer when its hint gives too many (0 to 12 is not seven labels)', () => {
    expect(scaleLinear().domain([0, 12]).nice(4).ticks(4)).toHaveLength(7);
    const scale = scaleLinear().domain([0, 12]);
    expect(niceAxis(scale)).toEqual([0, 5, 10, 15]);
    expect(scale.domain()).toEqual([0, 15]);
  });
});
