import { describe, expect, it } from 'vitest';
import { dayOf, daysBetween, isMonth, monthBounds, monthOf, previousMonth } from './periods';

describe('calendar periods (UTC)', () => {
  it('names the month and the day a time falls in, in UTC', () => {
    const lastMillisecondOfNovember = Date.UTC(2026, 10, 30, 23, 59, 59, 999);
    expect(monthOf(lastMillisecondOfNovember)).toBe('2026-11');
    expect(monthOf(lastMillisecondOfNovember + 1)).toBe('2026-12');
    expect(dayOf(lastMillisecondOfNovember)).toBe('2026-11-30');
  });

  it('bounds a month as [start, end), across a year', () => {
    expect(monthBounds('2026-12')).toEqual({ start: Date.UTC(2026, 11, 1), end: Date.UTC(2027, 0, 1) });
    expect(previousMonth('2027-01')).toBe('2026-12');
    expect(previousMonth('2024-03')).toBe('2024-02');
  });

  it('refuses what is not a month', () => {
    expect(isMonth('2026-13')).toBe(false);
    expect(isMonth('2026-1')).toBe(false);
    expect(isMonth('2026-01')).toBe(true);
    expect(() => monthBounds('2026-00')).toThrow();
  });

  it('lists the days of a range, both ends included', () => {
    expect(daysBetween('2026-02-27', '2026-03-02')).toEqual(['2026-02-27', '2026-02-28', '2026-03-01', '2026-03-02']);
    expect(daysBetween('2026-03-02', '2026-03-01')).toEqual([]);
  });
});
