/** @jsxImportSource hono/jsx */
/**
 * The documentation site: /docs and /docs/{page}, each also as Markdown at its path plus `.md`,
 * and /llms.txt. Pages are written in Markdown (pages/), so the two forms cannot drift.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { resolvePlatformUrls, urlsFollowHost, type AppEnv } from '../../env';
import { buildOpenApiDocument } from '../../gateway/openapi';
import { hostedInboxUrl, snippetFor } from '../../platform/channels';
import { listDomainEntries } from '../../platform/domains';
import { newPageApp } from '../shared/app';
import { parseMarkdown } from './markdown';
import type { DocsDocument } from './openapi-markdown';
import { DOCS_PAGES, type DocsContext, type DocsPageSource } from './pages';
import { DocsSitePage, llmsTxt, markdownCopy, searchIndex } from './site';

async function contextOf(c: Context<AppEnv>, root: OpenAPIHono<AppEnv>): Promise<DocsContext> {
  const urls = resolvePlatformUrls(c.var.settings, c.req.url);
  const api = buildOpenApiDocument(root, urls.baseUrl) as unknown as DocsDocument;
  return {
    baseUrl: urls.baseUrl,
    consoleUrl: urls.consoleUrl,
    authUrl: urls.authUrl,
    channelKey: c.var.settings.FRONT_DOOR_CHANNEL || null,
    snippet: (channelKey) => snippetFor(urls, channelKey),
    hostedInbox: (channelKey) => hostedInboxUrl(urls, channelKey),
    domains: await listDomainEntries(c.var.db),
    api,
  };
}

/** Docs are public and the same for everyone on a host: cacheable for a few minutes. */
function setDocsHeaders(c: Context<AppEnv>) {
  c.header('Cache-Control', urlsFollowHost(c.var.settings) ? 'private, max-age=300' : 'public, max-age=300');
  if (urlsFollowHost(c.var.settings)) c.header('Vary', 'Host');
}

/** The docs' routes; `root` is the app whose routes the API reference describes. */
export function docsRoutes(root: OpenAPIHono<AppEnv>) {
  const app = newPageApp();
  const title = 'Edge Execution Gateway';

  const html = async (c: Context<AppEnv>, page: DocsPageSource) => {
    const context = await contextOf(c, root);
    const parsed = DOCS_PAGES.map((entry) => ({ page: entry, blocks: parseMarkdown(entry.markdown(context)) }));
    const blocks = parsed.find((entry) => entry.page === page)?.blocks ?? [];
    setDocsHeaders(c);
    return c.html(
      <DocsSitePage page={page} context={context} blocks={blocks} index={searchIndex(parsed)} title={title} />,
    );
  };
  const markdown = async (c: Context<AppEnv>, page: DocsPageSource) => {
    setDocsHeaders(c);
    c.header('X-Content-Type-Options', 'nosniff');
    return c.body(markdownCopy(page, await contextOf(c, root)), 200, {
      'Content-Type': 'text/markdown; charset=utf-8',
    });
  };

  const overview = DOCS_PAGES[0] as DocsPageSource;
  app.get('/docs', (c) => html(c, overview));
  app.get('/docs.md', (c) => markdown(c, overview));
  app.get('/docs/:name', (c) => {
    const name = c.req.param('name');
    const slug = name.endsWith('.md') ? name.slice(0, -3) : name;
    const page = DOCS_PAGES.find((entry) => entry.slug === slug && entry.slug !== '');
    if (!page) return c.notFound();
    return name.endsWith('.md') ? markdown(c, page) : html(c, page);
  });
  app.get('/llms.txt', async (c) => {
    setDocsHeaders(c);
    return c.body(llmsTxt(await contextOf(c, root), title), 200, { 'Content-Type': 'text/plain; charset=utf-8' });
  });
  return app;
}
