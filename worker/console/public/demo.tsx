/** @jsxImportSource hono/jsx */
import { Document } from '../shared/document';

/**
 * /demo: a pretend customer website carrying the real snippet, so a newcomer sees the widget at
 * once. It exists only where the local seed created the demo channel.
 */
export function DemoSitePage({
  snippet,
  consoleUrl,
  channelKey,
}: {
  snippet: string;
  consoleUrl: string;
  channelKey: string;
}) {
  return (
    <Document title="Northwind Bookkeeping (demo site)" bodyClass="demo-site">
      <header class="demo-nav">
        <span class="demo-logo">Northwind Bookkeeping</span>
        <nav aria-label="Demo site">
          <a href="#services">Services</a>
          <a href="#pricing">Pricing</a>
        </nav>
      </header>
      <main>
        <section class="demo-hero">
          <p class="demo-note">
            Demo site: this page is a pretend customer website. The chat button comes from the real snippet.
          </p>
          <h1>Books closed on time, every month.</h1>
          <p class="lead">
            Bookkeeping, payroll and tax prep for small businesses. Ask us anything with the chat button.
          </p>
        </section>
        <section id="services" class="demo-grid" aria-label="Services">
          <article class="card">
            <h2>Monthly bookkeeping</h2>
            <p>Reconciled accounts and a clear monthly report.</p>
          </article>
          <article class="card">
            <h2>Payroll</h2>
            <p>Run payroll for 1 to 200 people, filings included.</p>
          </article>
          <article class="card">
            <h2>Tax preparation</h2>
            <p>Year-end returns prepared by certified experts.</p>
          </article>
        </section>
        <section id="pricing" class="page narrow">
          <h2>How the snippet looks</h2>
          <figure>
            <figcaption class="sr-only">The snippet</figcaption>
            {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a long line scrolls from the keyboard too (WCAG). */}
            <pre tabIndex={0}>
              <code>{snippet}</code>
            </pre>
          </figure>
        </section>
      </main>
      <script
        async
        src={`${consoleUrl}/embed/widget.js`}
        data-channel-id={channelKey}
        data-console-origin={consoleUrl}
      ></script>
    </Document>
  );
}
