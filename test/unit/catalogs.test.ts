/**
 * The message catalogs (worker/lib/i18n/catalogs/): every language has English's keys, they
 * compile with strict plural cases, and the committed compiled modules are current.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module shared with the build.
import { compileCatalogs, LANGUAGES, staleFiles } from '../../scripts/compile-i18n.mjs';
import { catalogStatus } from '../../worker/lib/i18n';

const catalog = (language: string) =>
  JSON.parse(readFileSync(join(__dirname, '../../worker/lib/i18n/catalogs', `${language}.json`), 'utf8')) as Record<
    string,
    Record<string, string>
  >;

describe('the catalogs', () => {
  it('every language has exactly English’s keys (a missing key fails the build)', () => {
    const english = catalog('en');
    for (const language of LANGUAGES as string[]) {
      const own = catalog(language);
      for (const part of Object.keys(english)) {
        expect(Object.keys(own[part] ?? {}).sort(), `${language}.json ${part}`).toEqual(
          Object.keys(english[part]!).sort(),
        );
      }
    }
    expect(catalogStatus().filter((entry) => entry.missing.length > 0)).toEqual([]);
  });

  it('the words the widget sends for "Talk to an expert" are the ones the platform recognises', () => {
    // The widget sends them; the platform (which bundles no widget catalog) knows them as a handoff's.
    for (const language of LANGUAGES as string[])
      expect(catalog(language).visitor!.handoff_words, language).toBe(catalog(language).widget!.talk_to_expert_text);
  });

  it('compile without error (strict plural cases) and the committed output is current', () => {
    expect(() => compileCatalogs()).not.toThrow();
    expect(staleFiles()).toEqual([]);
  });
});
