import { describe, expect, it } from 'vitest';
import arWidget from './compiled/widget.ar.js';
import enWidget from './compiled/widget.en.js';
import heWidget from './compiled/widget.he.js';
import plWidget from './compiled/widget.pl.js';
import { acceptedLanguages, chooseLanguage, directionOf, formatDateTime } from './index';

const arabic = (value: number) => new Intl.NumberFormat('ar').format(value);

describe('the compiled catalogs', () => {
  it('plural forms come from CLDR: Polish one, few and many; Arabic’s six; Hebrew’s two', () => {
    expect([1, 2, 5, 22, 25].map((count) => plWidget.new_replies({ count }))).toEqual([
      '1 nowa odpowiedź',
      '2 nowe odpowiedzi',
      '5 nowych odpowiedzi',
      '22 nowe odpowiedzi',
      '25 nowych odpowiedzi',
    ]);
    expect([0, 1, 2, 3, 11, 100].map((count) => arWidget.new_replies({ count }))).toEqual([
      'لا ردود جديدة',
      'رد جديد واحد',
      'ردّان جديدان',
      // The digits are Intl's for Arabic (this ICU writes Latin ones).
      `${arabic(3)} ردود جديدة`,
      `${arabic(11)} ردًا جديدًا`,
      `${arabic(100)} رد جديد`,
    ]);
    expect([1, 2, 7].map((count) => heWidget.new_replies({ count }))).toEqual([
      'תשובה חדשה אחת',
      'שתי תשובות חדשות',
      '7 תשובות חדשות',
    ]);
    expect(enWidget.new_replies({ count: 1200 })).toBe('1,200 new replies');
    expect(enWidget.required({ field: 'email' })).toBe('Please enter your email address.');
  });
});

describe('choosing the language', () => {
  it('reads Accept-Language by its q-values', () => {
    expect(acceptedLanguages('fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5')).toEqual(['fr-CH', 'fr', 'en', 'de']);
    expect(acceptedLanguages('en;q=0.1, pl')).toEqual(['pl', 'en']);
    expect(acceptedLanguages('de;q=0, it')).toEqual(['it']);
    expect(acceptedLanguages(undefined)).toEqual([]);
  });

  it('asked, then the conversation’s, then the channel’s, then the browser’s, then English', () => {
    const all = { requested: 'pt-BR', conversation: 'de', setting: 'fr', acceptLanguage: 'it' };
    expect(chooseLanguage(all)).toBe('pt');
    expect(chooseLanguage({ ...all, requested: 'uk' })).toBe('de');
    expect(chooseLanguage({ ...all, requested: null, conversation: null })).toBe('fr');
    expect(chooseLanguage({ setting: 'auto', acceptLanguage: 'ja, he;q=0.5' })).toBe('he');
    expect(chooseLanguage({ setting: 'auto', acceptLanguage: 'ja' })).toBe('en');
    expect(directionOf('ar')).toBe('rtl');
    expect(directionOf('pl')).toBe('ltr');
  });

  it('formats dates with Intl in the language, in UTC', () => {
    const at = Date.UTC(2026, 10, 26, 9, 5);
    expect(formatDateTime('en', at)).toBe('Nov 26, 2026, 09:05 AM UTC');
    expect(formatDateTime('de', at)).toBe('26. Nov. 2026, 09:05 UTC');
  });
});
