import { describe, expect, it } from 'vitest';
import { contrastRatio, readableOn, safeColor } from './contrast';

describe('widget colour safety', () => {
  it('computes WCAG contrast', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 0);
    expect(contrastRatio('#2450c9', '#ffffff')).toBeGreaterThan(4.5);
  });

  it('keeps a readable configured text colour, else falls back to black or white', () => {
    expect(readableOn('#2450c9', '#ffffff')).toBe('#ffffff');
    expect(readableOn('#ffd500', '#ffffff')).toBe('#000000');
    expect(readableOn('#1a1a1a', '#222222')).toBe('#ffffff');
  });

  it('lets only #rrggbb reach a stylesheet', () => {
    expect(safeColor('#ABCDEF', '#000000')).toBe('#abcdef');
    expect(safeColor('red;}body{display:none', '#000000')).toBe('#000000');
    expect(safeColor(undefined, '#111111')).toBe('#111111');
  });
});
