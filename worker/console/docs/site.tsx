/** @jsxImportSource hono/jsx */
/**
 * The documentation site's shell: navigation, the in-page search, and each page's HTML and
 * Markdown from the same source. It explains and links; it takes no action (no forms).
 */
import type { FC } from 'hono/jsx';
import { raw } from 'hono/html';
import { Document } from '../shared/document';
import { jsonForScriptBlock } from '../shared/security';
import { FIGURES } from './figures';
import { type Block, inlineText, MarkdownBlocks } from './markdown';
import { DOCS_PAGES, type DocsContext, type DocsPageSource, pathOf } from './pages';

/** One searchable section: a heading of a page and the text under it. */
export interface SearchEntry {
  page: string;
  heading: string;
  href: string;
  text: string;
}

const SEARCH_TEXT_LIMIT = 320;

/** The sections of every page, for the search box (it runs in the browser, from this index). */
export function searchIndex(pages: { page: DocsPageSource; blocks: Block[] }[]): SearchEntry[] {
  const entries: SearchEntry[] = [];
  for (const { page, blocks } of pages) {
    let current: SearchEntry = { page: page.title, heading: page.title, href: pathOf(page), text: page.summary };
    entries.push(current);
    for (const block of blocks) {
      if (block.kind === 'heading') {
        current = { page: page.title, heading: inlineText(block.text), href: `${pathOf(page)}#${block.id}`, text: '' };
        entries.push(current);
      } else if (current.text.length < SEARCH_TEXT_LIMIT) {
        const text =
          block.kind === 'paragraph' || block.kind === 'note'
            ? block.text
            : block.kind === 'list'
              ? block.items.join(' ')
              : block.kind === 'table'
                ? block.rows.map((row) => row.join(' ')).join(' ')
                : '';
        current.text = `${current.text} ${inlineText(text)}`.trim().slice(0, SEARCH_TEXT_LIMIT);
      }
    }
  }
  return entries;
}

/** A page's Markdown copy: its source, with a title, and figures as their text. */
export function markdownCopy(page: DocsPageSource, context: DocsContext): string {
  // Heading ids and table row ids are for the HTML's anchors; plain Markdown has no syntax for them.
  const body = page
    .markdown(context)
    .replace(/^::([a-z-]+)$/gm, (_line, name: string) => FIGURES[name]?.text ?? '')
    .replace(/ ?\{#[a-z0-9_-]+\} ?/gi, (match) => (match.startsWith(' ') && match.endsWith(' ') ? ' ' : ''));
  return `# ${page.title}\n\n> ${page.summary}\n\n${body}\n`;
}

/** /llms.txt: the llms.txt convention, linking every page's Markdown copy. */
export function llmsTxt(context: DocsContext, title: string): string {
  const lines = [
    `# ${title}`,
    '',
    '> A synchronous execution gateway: one JSON request to POST /api/execute with a bearer key, one completed ' +
      'execution envelope back; channels (an embeddable widget and a hosted inbox), experts, agents and robots.',
    '',
    '## Docs',
    '',
    ...DOCS_PAGES.map((page) => `- [${page.title}](${context.baseUrl}${pathOf(page)}.md): ${page.summary}`),
    '',
    '## Optional',
    '',
    `- [OpenAPI description](${context.baseUrl}/openapi.yaml): the machine-readable contract`,
  ];
  return `${lines.join('\n')}\n`;
}

const Navigation: FC<{ current: DocsPageSource }> = ({ current }) => (
  <nav class="docs-nav" aria-label="Documentation">
    <div class="docs-search" hidden>
      <label for="docs-search-input">Search the docs</label>
      <input id="docs-search-input" type="search" autocomplete="off" aria-controls="docs-search-results" />
      <ul id="docs-search-results" aria-live="polite"></ul>
    </div>
    <ul class="docs-pages">
      {DOCS_PAGES.map((page) => (
        <li>
          <a href={pathOf(page)} aria-current={page === current ? 'page' : undefined}>
            {page.title}
          </a>
        </li>
      ))}
    </ul>
  </nav>
);

/** One docs page as HTML. */
export const DocsSitePage: FC<{
  page: DocsPageSource;
  context: DocsContext;
  blocks: Block[];
  index: SearchEntry[];
  title: string;
}> = ({ page, context, blocks, index, title }) => {
  const figures = Object.fromEntries(
    Object.entries(FIGURES).map(([name, { Figure }]) => [name, () => <Figure context={context} />]),
  );
  return (
    <Document title={page.slug ? `${page.title} · ${title} docs` : `${title} docs`}>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <div class="inner">
          <a class="brand" href="/docs">
            {title} docs
          </a>
          <a href="/">Home</a>
          <a href={`${context.consoleUrl}/console`}>Console</a>
          <a href="/openapi.yaml">openapi.yaml</a>
        </div>
      </header>
      <div class="docs-layout">
        <Navigation current={page} />
        <main id="main" class="docs-main">
          <h1>{page.title}</h1>
          <p class="lead">{page.summary}</p>
          <MarkdownBlocks blocks={blocks} figures={figures} />
          <footer class="docs-footer">
            <a href={`${pathOf(page)}.md`}>This page as Markdown</a> · <a href="/llms.txt">llms.txt</a>
          </footer>
        </main>
      </div>
      <script type="application/json" id="docs-index">
        {raw(jsonForScriptBlock(index))}
      </script>
      <script src="/embed/docs.js" defer></script>
    </Document>
  );
};
