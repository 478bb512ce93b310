/** @jsxImportSource hono/jsx */
/**
 * The channel's language setting, and the widget's copy per language (docs/design/languages.md),
 * one language at a time. A field is empty unless the owner wrote it for that language; its
 * placeholder is what a visitor in that language reads without it (the owner's `copy` if they
 * changed it, else the catalog's default).
 */
import { catalogStatus, directionOf, type Language } from '../../lib/i18n';
import { type ChannelView, copyIn } from '../../platform/channels';
import { Field, type FieldErrors, Select } from '../shared/forms';
import { DataTable } from '../shared/layout';

/** The copy's fields, with their labels and lengths (the widget's schema). */
export const COPY_FIELDS = [
  ['title', 'Title', 60, false],
  ['greeting', 'Greeting', 280, true],
  ['placeholder', 'Message placeholder', 80, false],
  ['launcher_label', 'Launcher label (for screen readers)', 40, false],
  ['success_message', 'After contact details are sent', 200, true],
  ['privacy_note', 'Privacy note', 280, true],
] as const;

/** Where a language's copy comes from, as the owner reads it: their words, their copy, or the default. */
export function copySource(channel: ChannelView, language: Language): string {
  const own = Object.keys(channel.widget.copy_by_language[language] ?? {}).length;
  const all = COPY_FIELDS.length;
  if (own === all) return 'Your words';
  const rest = language === channel.widget.copy_language ? 'your copy above' : 'the default wording';
  if (own > 0) return `Your words for ${own} of ${all} fields, ${rest} for the rest`;
  return language === channel.widget.copy_language ? 'Your copy above' : 'The default wording (falls back)';
}

/** The section of the channel page that edits one language's copy. */
export function CopyByLanguage(props: {
  channel: ChannelView;
  language: Language;
  /** The channel page's own address, with its `?ws=`. */
  pageUrl: string;
  canManage: boolean;
  errors?: FieldErrors;
}) {
  const { channel, language } = props;
  const languages = catalogStatus();
  const name = languages.find((entry) => entry.language === language)?.name ?? language;
  const own = channel.widget.copy_by_language[language] ?? {};
  const without = copyIn({ ...channel.widget, copy_by_language: {} }, language);
  const [path, query = ''] = props.pageUrl.split('?');
  return (
    <section class="card" aria-labelledby="copy-languages-title">
      <h2 id="copy-languages-title">Copy in each language</h2>
      <p>
        Visitors read the widget in their language (see Language under Settings). Write your own words for a language
        here; an empty field shows its grey text: what a visitor in that language reads without it.
      </p>
      <DataTable
        compact
        rows={languages}
        columns={[
          { header: 'Language', rowHeader: true, cell: (entry) => <span lang={entry.language}>{entry.name}</span> },
          { header: 'What visitors read', cell: (entry) => copySource(channel, entry.language) },
        ]}
      />
      <nav class="tabs" aria-label="Languages of the copy">
        {languages.map((entry) => (
          <a
            href={`${path}?${query}&copy=${entry.language}#copy-languages-title`}
            aria-current={entry.language === language ? 'page' : undefined}
            lang={entry.language}
          >
            {entry.name}
          </a>
        ))}
      </nav>
      <form method="post" action={`${path}/copy/${language}?${query}`} class="stack">
        <fieldset disabled={!props.canManage}>
          <legend>
            <span lang={language}>{name}</span> ({language})
          </legend>
          {COPY_FIELDS.map(([field, label, maxlength, multiline]) => (
            <Field
              id={`f-copy-${language}-${field}`}
              name={field}
              label={`${label}, ${name}`}
              value={own[field] ?? ''}
              placeholder={without[field]}
              errors={props.errors}
              maxlength={maxlength}
              multiline={multiline}
              lang={language}
              dir={directionOf(language)}
            />
          ))}
        </fieldset>
        {props.canManage ? (
          <button type="submit" class="button">
            Save the copy in {name}
          </button>
        ) : null}
      </form>
    </section>
  );
}

/**
 * The language visitors are spoken to in, with each catalog's state: a language whose catalog
 * lacks messages shows them in English (the build refuses that, so it shows only in development).
 */
export function LanguageField({ value }: { value: string }) {
  const catalogs = catalogStatus();
  const incomplete = catalogs.filter((entry) => entry.missing.length > 0);
  return (
    <div class="field">
      <Select
        name="language"
        label="Language of the widget, replies and emails"
        value={value}
        options={[
          ['auto', 'The visitor’s browser language (English if none of these)'],
          ...catalogs.map(({ language, name, missing }): [string, string] => [
            language,
            `${name} (${language})${missing.length ? ` · ${missing.length} messages missing` : ''}`,
          ]),
        ]}
      />
      <p class="hint" id="language-status">
        {incomplete.length === 0
          ? `All ${catalogs.length} languages are complete. Your own words in each language go under Copy in each ` +
            'language; what you write wins over the defaults.'
          : `Incomplete: ${incomplete.map((entry) => entry.language).join(', ')} (missing messages show in English).`}
      </p>
    </div>
  );
}
