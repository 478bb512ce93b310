import { describe, expect, it } from 'vitest';
import { formatMoney, minorUnitsOf } from './money';

describe('money as people read and write it', () => {
  it('formats minor units in the currency’s own decimals', () => {
    expect(formatMoney(1234, 'EUR')).toBe('€12.34');
    expect(formatMoney(1234, 'JPY')).toBe('JP¥1,234');
    expect(formatMoney(-250, 'EUR')).toBe('-€2.50');
  });

  it('reads a typed amount into minor units, or refuses it', () => {
    expect(minorUnitsOf('1200.50', 'EUR')).toBe(120_050);
    expect(minorUnitsOf('1200,5', 'EUR')).toBe(120_050);
    expect(minorUnitsOf('1200', 'JPY')).toBe(1200);
    expect(minorUnitsOf('12.5', 'JPY')).toBeNull();
    expect(minorUnitsOf('12.345', 'EUR')).toBeNull();
    expect(minorUnitsOf('-5', 'EUR')).toBeNull();
    expect(minorUnitsOf('5', 'XYZ1')).toBeNull();
  });
});
