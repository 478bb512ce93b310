/**
 * The visitor's language (docs/design/languages.md): which catalogs exist, how a visitor's
 * language is chosen, and the platform's own words to a visitor in it. The catalogs are ICU
 * MessageFormat (catalogs/), compiled ahead of time into modules of functions (compiled/).
 */
import manifest from './compiled/manifest.json';
import ar from './compiled/visitor.ar.js';
import de from './compiled/visitor.de.js';
import en from './compiled/visitor.en.js';
import es from './compiled/visitor.es.js';
import fr from './compiled/visitor.fr.js';
import he from './compiled/visitor.he.js';
import it from './compiled/visitor.it.js';
import nl from './compiled/visitor.nl.js';
import pl from './compiled/visitor.pl.js';
import pt from './compiled/visitor.pt.js';
import { type Language, LANGUAGES } from '../../vocabulary';
import type { VisitorMessages } from './messages';

export type { MessageValues, VisitorMessages, WidgetMessages } from './messages';

export { LANGUAGE_SETTINGS, LANGUAGES, type Language, type LanguageSetting } from '../../vocabulary';

const CATALOGS: Record<Language, VisitorMessages> = { en, de, fr, es, pt, nl, it, pl, ar, he };
const RIGHT_TO_LEFT: ReadonlySet<Language> = new Set(['ar', 'he']);

/** Whether a value names a language with a catalog. */
export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

/** `rtl` for Arabic and Hebrew. */
export function directionOf(language: Language): 'ltr' | 'rtl' {
  return RIGHT_TO_LEFT.has(language) ? 'rtl' : 'ltr';
}

/** The first tag (`pt-BR`, `de`) whose language has a catalog, by its primary subtag; else null. */
export function matchLanguage(tags: Iterable<string | null | undefined>): Language | null {
  for (const tag of tags) {
    const primary = tag?.trim().split(/[-_]/)[0]?.toLowerCase();
    if (isLanguage(primary)) return primary;
  }
  return null;
}

/** An `Accept-Language` header's tags, most preferred first (q=0 ones left out). */
export function acceptedLanguages(header: string | null | undefined): string[] {
  return (header ?? '')
    .split(',')
    .slice(0, 20)
    .map((entry, index) => {
      const [tag = '', ...params] = entry.trim().split(';');
      const q = Number(
        params
          .find((param) => param.trim().startsWith('q='))
          ?.trim()
          .slice(2) ?? 1,
      );
      return { tag: tag.trim(), q: Number.isFinite(q) ? q : 0, index };
    })
    .filter((entry) => entry.tag && entry.tag !== '*' && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map((entry) => entry.tag);
}

/**
 * The language a visitor is spoken to in: an explicit choice (intake's `language`, a link's `?lang=`)
 * first, then what the conversation started in, then the channel's setting, then (under `auto`) the
 * browser's languages, then English.
 */
export function chooseLanguage(choice: {
  requested?: string | null;
  conversation?: string | null;
  setting?: string | null;
  acceptLanguage?: string | null;
}): Language {
  return (
    matchLanguage([choice.requested]) ??
    (isLanguage(choice.conversation) ? choice.conversation : null) ??
    (isLanguage(choice.setting) ? choice.setting : null) ??
    matchLanguage(acceptedLanguages(choice.acceptLanguage)) ??
    'en'
  );
}

/** The platform's own words to a visitor, in a language. */
export function visitorMessages(language: Language): VisitorMessages {
  return CATALOGS[language];
}

/** A date and time as the visitor reads it, in UTC (an email does not know its reader's zone). */
export function formatDateTime(language: Language, at: number): string {
  // Fields, not dateStyle: a style cannot be combined with the zone's name.
  return new Intl.DateTimeFormat(language, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone: 'UTC',
    timeZoneName: 'short',
  }).format(at);
}

/** Each language's own name and its missing keys (none when its catalog is complete). */
export function catalogStatus(): Array<{ language: Language; name: string; missing: string[] }> {
  return LANGUAGES.map((language) => ({
    language,
    name: new Intl.DisplayNames([language], { type: 'language' }).of(language) ?? language,
    missing: manifest[language].missing,
  }));
}
