import { describe, expect, it } from 'vitest';
import { judgeTopic, judgeUrgency } from './judgement';

describe('judgement', () => {
  it('chooses the most specific topic the text names, else general', () => {
    const topics = ['crm', 'crm migration', 'billing'];
    expect(judgeTopic('We plan a CRM migration next quarter', topics)).toBe('crm migration');
    expect(judgeTopic('Which CRM should we buy?', topics)).toBe('crm');
    expect(judgeTopic('Our invoices and billing are a mess', topics)).toBe('billing');
    expect(judgeTopic('Hello', topics)).toBe('general');
    expect(judgeTopic(undefined, topics)).toBe('general');
    // Ties in length break by name, so the choice is stable.
    expect(judgeTopic('tax and law', ['tax', 'law'])).toBe('law');
  });

  it('reads urgency from the words, low before high, normal otherwise', () => {
    expect(judgeUrgency('Need this today please', 'consultation')).toBe('high');
    expect(judgeUrgency('It is URGENT', 'consultation')).toBe('high');
    expect(judgeUrgency('No rush, next month is fine', 'consultation')).toBe('low');
    expect(judgeUrgency('Not urgent at all', 'consultation')).toBe('low');
    expect(judgeUrgency('A question about plans', 'consultation')).toBe('normal');
    expect(judgeUrgency(undefined, undefined)).toBe('normal');
  });

  it('never lets a handoff be low', () => {
    expect(judgeUrgency('no hurry', 'handoff')).toBe('normal');
    expect(judgeUrgency('asap', 'handoff')).toBe('high');
  });
});
