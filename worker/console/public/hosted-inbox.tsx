/** @jsxImportSource hono/jsx */
import { raw } from 'hono/html';
import { directionOf, type Language, visitorMessages } from '../../lib/i18n';
import type { PublicWidgetConfig } from '../../platform/channels';
import { Document } from '../shared/document';
import { jsonForScriptBlock } from '../shared/security';

/**
 * The hosted inbox: the same Preact panel as the widget, full page, in the channel's branding and
 * the visitor's language (its panel build carries that language's catalog). The configuration
 * travels as a JSON data block (not executable, so the CSP allows it).
 */
export function HostedInboxPage({ config }: { config: PublicWidgetConfig }) {
  const say = visitorMessages(config.language);
  return (
    <Document
      title={`${config.copy.title} · ${config.brand.name}`}
      bodyClass="inbox-body"
      noIndex
      lang={config.language}
      dir={config.direction}
    >
      <main id="egw-inbox" aria-label={config.copy.title}>
        <noscript>
          <p class="page">{say.inbox_noscript({ brand: config.brand.name })}</p>
        </noscript>
      </main>
      <script type="application/json" id="egw-config">
        {raw(jsonForScriptBlock(config))}
      </script>
      <script src={`/embed/panel.${config.language}.js`} defer></script>
    </Document>
  );
}

/** The hosted inbox of an unknown or disabled channel, in the visitor's language. */
export function ChannelNotFoundPage({ language }: { language: Language }) {
  const say = visitorMessages(language);
  return (
    <Document title={say.inbox_missing()} noIndex lang={language} dir={directionOf(language)}>
      <main class="page narrow">
        <h1>{say.inbox_missing()}</h1>
        <p class="lead">{say.inbox_missing_detail()}</p>
      </main>
    </Document>
  );
}
