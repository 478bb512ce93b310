/**
 * Fetching a URL source (docs/design/knowledge.md): one page, the pages a sitemap lists, or a
 * site's pages found by following its links below the start URL. Every fetch goes through the
 * egress guard (no redirects, a timeout); robots.txt is honoured; a page is at most 2 MB, a crawl
 * at most its `max_pages` (≤ 500), and a host is asked at most 2 pages a second. A re-sync sends
 * the validators of the last one, and a page that has not changed is not read again.
 */
import { EgressRefused, discardBody, guardedFetch, readBoundedBody, type EgressPolicy } from '../../lib/egress';
import { clock } from '../../lib/clock';
import { readHtml } from './html';
import { readMarkdown, readPlainText, type SourceDocument } from './text';

/** The largest page read. */
export const PAGE_MAX_BYTES = 2 * 1024 * 1024;
/** At most this many pages a second from one host. */
const PAGES_PER_SECOND = 2;
const FETCH_TIMEOUT_MS = 10_000;
const USER_AGENT = 'EdgeGateway-Knowledge/1 (+https://github.com/edge-execution-gateway)';

/** What a crawl gave: its documents, or why there are none; its validators; whether nothing changed. */
export interface CrawlOutcome {
  documents: SourceDocument[];
  bytes: number;
  etag: string | null;
  lastModified: string | null;
  unchanged: boolean;
  error?: string;
}

/** The Disallow rules of robots.txt for every agent (`*`), as path prefixes. */
export function disallowedPaths(robots: string): string[] {
  const rules: string[] = [];
  let applies = false;
  let sawAgent = false;
  for (const raw of robots.split(/\r?\n/)) {
    const line = raw.replace(/#.*/, '').trim();
    const match = /^([A-Za-z-]+)\s*:\s*(.*)$/.exec(line);
    if (!match) continue;
    const [, field, value] = match as unknown as [string, string, string];
    const name = field.toLowerCase();
    if (name === 'user-agent') {
      if (!sawAgent) applies = false;
      sawAgent = true;
      if (value.trim() === '*' || /edgegateway/i.test(value)) applies = true;
    } else {
      sawAgent = false;
      if (applies && name === 'disallow' && value.trim()) rules.push(value.trim());
    }
  }
  return rules;
}

/** Whether robots.txt's rules allow a URL's path. */
export function robotsAllow(rules: string[], url: URL): boolean {
  const path = `${url.pathname}${url.search}`;
  return !rules.some((rule) => path.startsWith(rule.replace(/\*$/, '')));
}

/** The page URLs of a sitemap (`<loc>` entries), in order. */
export function sitemapLocations(xml: string): string[] {
  return [...xml.matchAll(/<loc>\s*([^<\s]+)\s*<\/loc>/gi)].map((match) =>
    match[1]!.replaceAll('&amp;', '&').replaceAll('&lt;', '<').replaceAll('&gt;', '>'),
  );
}

/** Fetches one URL's body as text within the bounds; null on a refusal or a failure (with why). */
async function fetchText(
  url: string,
  egress: EgressPolicy,
  headers: Record<string, string> = {},
): Promise<{ text: string; response: Response } | { notModified: true } | { error: string }> {
  try {
    const response = await guardedFetch(
      url,
      { method: 'GET', headers: { 'User-Agent': USER_AGENT, ...headers }, timeoutMs: FETCH_TIMEOUT_MS },
      egress,
    );
    if (response.status === 304) {
      discardBody(response);
      return { notModified: true };
    }
    if (!response.ok) {
      discardBody(response);
      return { error: `${url} answered ${response.status}.` };
    }
    const body = await readBoundedBody(response, PAGE_MAX_BYTES, clock.now() + FETCH_TIMEOUT_MS);
    if (!body.ok) return { error: `${url}: ${body.reason === 'too_large' ? 'over 2 MB' : body.reason}.` };
    return { text: body.text, response };
  } catch (error) {
    if (error instanceof EgressRefused) return { error: `${url} was refused: ${error.message}` };
    return { error: `${url} could not be fetched.` };
  }
}

/** A page's text read by its media type (HTML, Markdown, or plain text). */
async function readPage(url: string, text: string, contentType: string | null) {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'text/html' || type === 'application/xhtml+xml' || (!type && /<html[\s>]/i.test(text)))
    return readHtml(text, null, url);
  if (type === 'text/markdown') return { document: readMarkdown(text, null), links: [] };
  return { document: readPlainText(text, null), links: [] };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Crawls a URL source: its pages read, within the bounds. */
export async function crawl(
  source: {
    url: string | null;
    crawlMode: string | null;
    maxPages: number | null;
    etag: string | null;
    lastModified: string | null;
  },
  egress: EgressPolicy,
): Promise<CrawlOutcome> {
  const outcome: CrawlOutcome = { documents: [], bytes: 0, etag: null, lastModified: null, unchanged: false };
  if (!source.url) return { ...outcome, error: 'The source has no URL.' };
  const start = new URL(source.url);
  const mode = source.crawlMode ?? 'page';
  const maxPages = mode === 'page' ? 1 : (source.maxPages ?? 100);
  const robots = await fetchText(new URL('/robots.txt', start).href, egress);
  const rules = 'text' in robots ? disallowedPaths(robots.text) : [];
  const queue: string[] = [];
  if (mode === 'sitemap') {
    const sitemap = await fetchText(start.href, egress);
    if (!('text' in sitemap)) return { ...outcome, error: 'error' in sitemap ? sitemap.error : 'No sitemap.' };
    queue.push(...sitemapLocations(sitemap.text).filter((url) => new URL(url, start).origin === start.origin));
  } else {
    queue.push(start.href);
  }
  const seen = new Set<string>();
  const errors: string[] = [];
  let lastFetch = 0;
  while (queue.length > 0 && outcome.documents.length < maxPages && seen.size < maxPages * 3) {
    const next = new URL(queue.shift()!, start);
    next.hash = '';
    if (seen.has(next.href)) continue;
    seen.add(next.href);
    if (!robotsAllow(rules, next)) continue;
    const wait = lastFetch + 1000 / PAGES_PER_SECOND - clock.now();
    if (wait > 0) await pause(wait);
    lastFetch = clock.now();
    // A single page sends the last sync's validators: unchanged, it is not read again.
    const validators =
      mode === 'page'
        ? {
            ...(source.etag ? { 'If-None-Match': source.etag } : {}),
            ...(source.lastModified ? { 'If-Modified-Since': source.lastModified } : {}),
          }
        : {};
    const fetched = await fetchText(next.href, egress, validators);
    if ('notModified' in fetched)
      return { ...outcome, unchanged: true, etag: source.etag, lastModified: source.lastModified };
    if ('error' in fetched) {
      errors.push(fetched.error);
      continue;
    }
    const { document, links } = await readPage(next.href, fetched.text, fetched.response.headers.get('Content-Type'));
    outcome.documents.push({ document, url: next.href });
    outcome.bytes += new TextEncoder().encode(fetched.text).length;
    if (mode === 'page') {
      outcome.etag = fetched.response.headers.get('ETag');
      outcome.lastModified = fetched.response.headers.get('Last-Modified');
    }
    // A site crawl follows links on the same origin, below the start URL's path.
    if (mode === 'site')
      for (const link of links) {
        const url = new URL(link);
        if (url.origin === start.origin && url.pathname.startsWith(start.pathname.replace(/[^/]*$/, '')))
          queue.push(url.href);
      }
  }
  return outcome.documents.length > 0 ? outcome : { ...outcome, error: errors[0] ?? 'No page could be read.' };
}
