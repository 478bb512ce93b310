import { describe, expect, it } from 'vitest';
import { wholeMonths } from './read';

describe('the whole months of a range', () => {
  it('are the calendar months entirely inside it', () => {
    expect(wholeMonths('2026-01-01', '2026-12-31')).toEqual([
      '2026-01',
      '2026-02',
      '2026-03',
      '2026-04',
      '2026-05',
      '2026-06',
      '2026-07',
      '2026-08',
      '2026-09',
      '2026-10',
      '2026-11',
      '2026-12',
    ]);
    expect(wholeMonths('2026-01-02', '2026-03-30')).toEqual(['2026-02']);
    expect(wholeMonths('2026-02-01', '2026-02-28')).toEqual(['2026-02']);
    expect(wholeMonths('2026-02-01', '2026-02-27')).toEqual([]);
    expect(wholeMonths('2025-12-15', '2026-02-01')).toEqual(['2026-01']);
    expect(wholeMonths('2026-10-01', '2026-10-01')).toEqual([]);
  });
});
