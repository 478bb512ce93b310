/** @jsxImportSource hono/jsx */
import { Document } from './document';

/** The HTML 404 page for everything outside /api/. JSX escapes the path. */
export function NotFoundPage({ path }: { path: string }) {
  return (
    <Document title="Page not found">
      <main class="page narrow">
        <h1>Page not found</h1>
        <p class="lead">
          There is nothing at <code>{path}</code>.
        </p>
        <p>
          <a href="/docs">API documentation</a>
        </p>
      </main>
    </Document>
  );
}

/** Any other error on a page: what happened, and the id to quote. Never internals. */
export function ErrorPage({ title, detail, requestId }: { title: string; detail: string; requestId: string }) {
  return (
    <Document title={title}>
      <main class="page narrow">
        <h1>{title}</h1>
        <p class="lead">{detail}</p>
        <p class="muted">
          Request id <code>{requestId}</code>
        </p>
        <p>
          <a href="/integrations">Back to the console</a>
        </p>
      </main>
    </Document>
  );
}
