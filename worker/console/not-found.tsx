/** @jsxImportSource hono/jsx */

/** The HTML 404 page for everything outside /api/. JSX escapes the path. */
export function NotFoundPage({ path }: { path: string }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <link rel="icon" href="data:," />
        <title>Page not found</title>
        <link rel="stylesheet" href="/assets/site.css" />
      </head>
      <body>
        <main class="page narrow">
          <h1>Page not found</h1>
          <p class="lead">
            There is nothing at <code>{path}</code>.
          </p>
          <p>
            <a href="/docs">API documentation</a>
          </p>
        </main>
      </body>
    </html>
  );
}
