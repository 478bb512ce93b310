/**
 * The public widget configuration (docs/design/languages.md): what a visitor's widget and hosted
 * inbox read, in the visitor's language, with the owner's copy where they wrote it.
 */
import { consoleOrigin, type PlatformUrls } from '../../env';
import { readableOn, safeColor } from '../../lib/contrast';
import { chooseLanguage, directionOf, type Language, visitorMessages } from '../../lib/i18n';
import type { schema } from '../../lib/db';
import { type PublicWidgetConfig, type WidgetConfig, widgetConfigSchema } from './schemas';
import widgetDefaults from './widget-defaults.json';

const DEFAULT_PRIMARY = '#2450c9';

type ChannelRow = typeof schema.channels.$inferSelect;

/** The hosted inbox page of a channel, `{console_url}/widget/{channel_key}`. */
export function hostedInboxUrl(urls: PlatformUrls, channelKey: string): string {
  return `${urls.consoleUrl}/widget/${encodeURIComponent(channelKey)}`;
}

/** First-party: the console itself, or one of the channel's own first-party sites. */
export function isFirstPartyOrigin(row: ChannelRow, urls: PlatformUrls, origin: string | undefined): boolean {
  return origin !== undefined && (origin === consoleOrigin(urls) || row.firstPartyOrigins.includes(origin));
}

/**
 * The language a page or the widget speaks to a visitor of this channel before any conversation:
 * a link's `?lang=` first, then the channel's setting, then (under `auto`) the browser's languages.
 */
export function visitorLanguage(row: ChannelRow, asked: { lang?: string | null; acceptLanguage?: string | null }) {
  return chooseLanguage({ requested: asked.lang, setting: row.language, acceptLanguage: asked.acceptLanguage });
}

type CopyField = keyof WidgetConfig['copy'];

/**
 * The copy in a language, field by field: the owner's words for that language; else, in the
 * language their `copy` is written in (`copy_language`), its field if they changed it from the
 * English default; else the catalog's default in that language. Owner copy in one language is
 * never shown to a visitor in another (a Polish widget reads Polish throughout).
 */
export function copyIn(config: WidgetConfig, language: Language): WidgetConfig['copy'] {
  const brand = config.brand.name;
  const say = visitorMessages(language);
  const english = widgetDefaults.copy;
  const catalog: WidgetConfig['copy'] = {
    title: say.copy_title({ brand }).slice(0, 60),
    greeting: say.copy_greeting(),
    placeholder: say.copy_placeholder(),
    launcher_label: say.copy_launcher_label(),
    success_message: say.copy_success_message(),
    privacy_note: say.copy_privacy_note(),
  };
  const own = config.copy_by_language[language] ?? {};
  const copy = { ...catalog };
  for (const field of Object.keys(catalog) as CopyField[]) {
    const defaultText = field === 'title' ? english.title.replace('{brand}', brand).slice(0, 60) : english[field];
    const written = language === config.copy_language && config.copy[field] !== defaultText;
    copy[field] = own[field] ?? (written ? config.copy[field] : catalog[field]);
  }
  return copy;
}

/** The public widget configuration in a language, with provider_entry resolved for the requesting origin. */
export function publicWidgetConfig(
  row: ChannelRow,
  urls: PlatformUrls,
  origin: string | undefined,
  language: Language,
): PublicWidgetConfig {
  const config = widgetConfigSchema.parse(row.widgetConfig);
  const mode = config.provider_entry.mode;
  // `auto`: on the platform's own pages (its front door, a hosted inbox) only; an owner's site asks for `on`.
  const enabled = mode === 'on' || (mode === 'auto' && origin !== undefined && origin === consoleOrigin(urls));
  const key = encodeURIComponent(row.channelKey);
  const label = config.provider_entry.label;
  return {
    channel_key: row.channelKey,
    language,
    direction: directionOf(language),
    brand: config.brand,
    // The text colour as visitors get it: the owner's, unless it would be hard to read on the primary.
    colors: {
      primary: safeColor(config.colors.primary, DEFAULT_PRIMARY),
      on_primary: readableOn(
        safeColor(config.colors.primary, DEFAULT_PRIMARY),
        safeColor(config.colors.on_primary, '#ffffff'),
      ),
    },
    position: config.position,
    copy: copyIn(config, language),
    lead_capture: config.lead_capture,
    provider_entry: {
      enabled,
      label: label === widgetDefaults.provider_entry.label ? visitorMessages(language).copy_provider_label() : label,
      url: `${urls.authUrl}/sign-up?role=provider&ref=${key}`,
    },
    hosted_inbox_url: hostedInboxUrl(urls, row.channelKey),
    intake_url: `${urls.consoleUrl}/api/public/widget/${key}/intake`,
  };
}
