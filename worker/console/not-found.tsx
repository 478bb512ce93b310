import { html } from 'hono/html';

/** The HTML 404 page for everything outside /api/. The path is escaped by the template. */
export function renderNotFoundPage(path: string) {
  return html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Page not found</title>
    <style>
      body { font: 16px/1.5 system-ui, sans-serif; margin: 0; display: grid; place-items: center; min-height: 100vh; background: #f6f7f9; color: #1d2330; }
      main { max-width: 32rem; padding: 2rem; }
      code { background: #e9ecf1; padding: 0.1rem 0.3rem; border-radius: 4px; }
      a { color: #2450c9; }
    </style>
  </head>
  <body>
    <main>
      <h1>Page not found</h1>
      <p>There is nothing at <code>${path}</code>.</p>
      <p><a href="/docs">API documentation</a></p>
    </main>
  </body>
</html>`;
}
