import { describe, expect, it } from 'vitest';
import { chooseDomain, wordsOf } from './domain-choice';

const catalog = [
  { domain: 'consultation', name: 'Consultation', description: 'General requests for expert help.' },
  {
    domain: 'faq',
    name: 'Frequently asked questions',
    description: 'Questions an agent can answer at once: opening hours, prices.',
  },
  { domain: 'payroll', name: 'Payroll', description: 'Salaries, payslips and payroll taxes.' },
];

describe('choosing the domain of a demand that names none', () => {
  it('takes the domain whose words the text shares most, its slug and name counting double', () => {
    expect(chooseDomain('Our payroll run failed this morning', catalog, null)).toEqual({
      domain: 'payroll',
      by: 'text',
    });
    expect(chooseDomain('What are your opening hours?', catalog, null)).toEqual({ domain: 'faq', by: 'text' });
    expect(chooseDomain('I need a consultation about salaries', catalog, null)).toEqual({
      domain: 'consultation',
      by: 'text',
    });
  });

  it('falls back to the workspace’s default, then to the catalog’s first', () => {
    expect(chooseDomain('Hello there', catalog, 'faq')).toEqual({ domain: 'faq', by: 'default' });
    expect(chooseDomain('Hello there', catalog, 'astrology')).toEqual({ domain: 'consultation', by: 'catalog' });
    expect(chooseDomain('Hello there', [], 'faq')).toBeNull();
  });

  it('reads words in any script, and leaves common ones out', () => {
    expect([...wordsOf('Lohnabrechnung für März — bitte!')]).toEqual(['lohnabrechnung', 'für', 'märz', 'bitte']);
    expect([...wordsOf('How can you help with the payroll?')]).toEqual(['payroll']);
  });
});
