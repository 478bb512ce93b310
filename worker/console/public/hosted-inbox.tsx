/** @jsxImportSource hono/jsx */
import { raw } from 'hono/html';
import type { PublicWidgetConfig } from '../../platform/channels';
import { Document } from '../shared/document';
import { jsonForScriptBlock } from '../shared/security';

/**
 * The hosted inbox: the same Preact panel as the widget, full page, in the channel's branding.
 * The configuration travels as a JSON data block (not executable, so the CSP allows it).
 */
export function HostedInboxPage({ config }: { config: PublicWidgetConfig }) {
  return (
    <Document title={`${config.copy.title} · ${config.brand.name}`} bodyClass="inbox-body" noIndex>
      <main id="egw-inbox" aria-label={config.copy.title}>
        <noscript>
          <p class="page">This chat needs JavaScript. Please enable it, or contact {config.brand.name} another way.</p>
        </noscript>
      </main>
      <script type="application/json" id="egw-config">
        {raw(jsonForScriptBlock(config))}
      </script>
      <script src="/embed/panel.js" defer></script>
    </Document>
  );
}

/** The hosted inbox of an unknown or disabled channel. */
export function ChannelNotFoundPage() {
  return (
    <Document title="Chat not available" noIndex>
      <main class="page narrow">
        <h1>This chat is not available</h1>
        <p class="lead">The link may be mistyped, or the site has switched this chat off.</p>
      </main>
    </Document>
  );
}
