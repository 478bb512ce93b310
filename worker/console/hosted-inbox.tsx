/** @jsxImportSource hono/jsx */
import { raw } from 'hono/html';
import type { PublicWidgetConfig } from '../platform/channels/schemas';
import { jsonForScriptBlock } from './security';

/**
 * The hosted inbox: the same Preact panel as the widget, full page, in the channel's branding.
 * The configuration travels as a JSON data block (not executable, so the CSP allows it).
 */
export function HostedInboxPage({ config }: { config: PublicWidgetConfig }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <link rel="icon" href="data:," />
        <title>{`${config.copy.title} · ${config.brand.name}`}</title>
        <meta name="robots" content="noindex" />
        <link rel="stylesheet" href="/assets/site.css" />
      </head>
      <body class="inbox-body">
        <main id="egw-inbox" aria-label={config.copy.title}>
          <noscript>
            <p class="page">This chat needs JavaScript. Please enable it, or contact {config.brand.name} another way.</p>
          </noscript>
        </main>
        <script type="application/json" id="egw-config">
          {raw(jsonForScriptBlock(config))}
        </script>
        <script src="/embed/panel.js" defer></script>
      </body>
    </html>
  );
}

export function ChannelNotFoundPage() {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <link rel="icon" href="data:," />
        <title>Chat not available</title>
        <link rel="stylesheet" href="/assets/site.css" />
      </head>
      <body>
        <main class="page narrow">
          <h1>This chat is not available</h1>
          <p class="lead">The link may be mistyped, or the site has switched this chat off.</p>
        </main>
      </body>
    </html>
  );
}
