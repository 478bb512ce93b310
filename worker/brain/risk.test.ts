import { describe, expect, it } from 'vitest';
import { assessRisk, containsPhrase, stricter, type RiskInput } from './risk';

const verdict = (text: string | undefined, overrides: Partial<RiskInput> = {}) =>
  assessRisk({
    text,
    hasStructuredInput: false,
    messageOptional: false,
    honeypot: false,
    blockedTerms: [],
    maxLength: 4000,
    ...overrides,
  });

describe('risk control', () => {
  it('routes an ordinary message', () => {
    expect(verdict('I need help choosing a CRM for 20 people.')).toEqual({ disposition: 'routed', reasons: [] });
  });

  it('rejects an empty message, unless it has structured input or is a contact form', () => {
    expect(verdict('   ')).toEqual({ disposition: 'rejected', reasons: ['empty_message'] });
    expect(verdict(undefined)).toEqual({ disposition: 'rejected', reasons: ['empty_message'] });
    expect(verdict('', { hasStructuredInput: true }).disposition).toBe('routed');
    expect(verdict('', { messageOptional: true }).disposition).toBe('routed');
  });

  it('rejects a message over the limit, and accepts one at it', () => {
    expect(verdict('a b '.repeat(1000).slice(0, 4000)).reasons).not.toContain('too_long');
    expect(verdict('a b '.repeat(1001))).toMatchObject({ disposition: 'rejected', reasons: ['too_long'] });
  });

  it('rejects a filled honeypot', () => {
    expect(verdict('Hello there', { honeypot: true })).toEqual({ disposition: 'rejected', reasons: ['honeypot'] });
  });

  it('holds a blocked term, matched as whole words in any case', () => {
    const blockedTerms = ['crypto giveaway', ' '];
    expect(verdict('Join the Crypto Giveaway now', { blockedTerms })).toEqual({
      disposition: 'held',
      reasons: ['blocked_term'],
    });
    expect(verdict('cryptogiveaway is one word', { blockedTerms }).disposition).toBe('routed');
  });

  it('holds four links or more, and not three', () => {
    expect(verdict('see https://a.example http://b.example www.c.example').disposition).toBe('routed');
    expect(verdict('see https://a.example http://b.example www.c.example https://d.example')).toEqual({
      disposition: 'held',
      reasons: ['too_many_links'],
    });
  });

  it('holds ten repeated characters, and not nine', () => {
    expect(verdict('hello!!!!!!!!!').disposition).toBe('routed');
    expect(verdict('hello!!!!!!!!!!')).toEqual({ disposition: 'held', reasons: ['repeated_characters'] });
  });

  it('holds a message in capitals from 20 letters on', () => {
    expect(verdict('HELLO THERE FRIEND')).toMatchObject({ disposition: 'routed' });
    expect(verdict('PLEASE CALL ME BACK ABOUT THE CRM')).toEqual({ disposition: 'held', reasons: ['all_capitals'] });
    expect(verdict('Please call me back about the CRM').disposition).toBe('routed');
  });

  it('gives every reason, and a rejecting one wins', () => {
    expect(verdict('BUY NOW!!!!!!!!!! VISIT OUR SHOP TODAY', { honeypot: true })).toEqual({
      disposition: 'rejected',
      reasons: ['honeypot', 'repeated_characters', 'all_capitals'],
    });
  });

  it('keeps a conversation at its strictest disposition', () => {
    expect(stricter('routed', 'held')).toBe('held');
    expect(stricter('held', 'routed')).toBe('held');
    expect(stricter('routed', null)).toBe('routed');
    expect(stricter('rejected', 'held')).toBe('rejected');
  });

  it('matches phrases between word boundaries in any script', () => {
    expect(containsPhrase('Ich brauche Hilfe mit Steuern.', 'steuern')).toBe(true);
    expect(containsPhrase('Steuerngesetz', 'steuern')).toBe(false);
    expect(containsPhrase('a+b (c)', 'b (c)')).toBe(true);
  });
});
