/**
 * Fetching a URL source (docs/design/knowledge.md#url-sources): one page, the pages a sitemap
 * lists, or a site's pages found by following its links below the start URL. Every fetch goes
 * through the egress guard (no redirects, a timeout); robots.txt is honoured as RFC 9309 says (an
 * unreachable one forbids the crawl); a page is at most 2 MB, a crawl at most its `max_pages`
 * (≤ 500) and the bytes its workspace has left, and a host is asked at most 2 pages a second,
 * whichever crawls ask it. A crawl runs in slices of bounded time: a slice reads from a cursor
 * until its deadline, and the next one (another queue message) goes on from there.
 */
import { EgressRefused, discardBody, guardedFetch, readBoundedBody, type EgressPolicy } from '../../lib/egress';
import { clock } from '../../lib/clock';
import { readHtml } from './html';
import { readMarkdown, readPlainText, type SourceDocument } from './text';

/** The largest page read. */
export const PAGE_MAX_BYTES = 2 * 1024 * 1024;
/** At most this many pages a second from one host. */
export const PAGES_PER_SECOND = 2;
const FETCH_TIMEOUT_MS = 10_000;
const USER_AGENT = 'EdgeGateway-Knowledge/1 (+https://github.com/edge-execution-gateway)';
/** The most URLs a crawl keeps waiting to be read (links beyond are not followed). */
const FRONTIER_MAX = 5_000;

/** A robots.txt rule for our agent: a path pattern (`*` any run, `$` the end) that allows or forbids. */
export interface RobotsRule {
  allow: boolean;
  pattern: string;
}

/** Where a crawl has got to: all a slice needs to go on. Kept as JSON between slices. */
export interface CrawlCursor {
  mode: 'page' | 'sitemap' | 'site';
  start: string;
  maxPages: number;
  /** URLs still to read, in order. */
  frontier: string[];
  /** URLs already taken from the frontier. */
  seen: string[];
  /** robots.txt's rules; null until it is read; `disallow-all` when it could not be. */
  robots: RobotsRule[] | null;
  /** Whether a sitemap's URL list has been read (sitemap mode). */
  listed: boolean;
  pages: number;
  bytes: number;
  /** The first few reasons pages could not be read. */
  errors: string[];
  etag: string | null;
  lastModified: string | null;
}

/** What a slice ends with. */
export type SliceEnd =
  | { kind: 'more' }
  | { kind: 'done' }
  | { kind: 'unchanged' }
  | { kind: 'failed'; reason: string }
  | { kind: 'over_limit'; reason: string };

/** What a slice may use: the egress guard, when to stop, the bytes left, and a host's turn to be asked. */
export interface SliceBounds {
  egress: EgressPolicy;
  /** Epoch ms: no fetch starts after it. */
  deadline: number;
  /** Bytes of pages the workspace's knowledge has left for this source, and its whole limit (to name it). */
  bytesLeft: number;
  limitBytes: number;
  /** Resolves true when the host may be asked for one more page (2 a second, across crawls); false: not in time. */
  hostTurn: (host: string) => Promise<boolean>;
}

/** A new crawl's cursor, for a URL source. */
export function newCursor(source: {
  url: string;
  crawlMode: string | null;
  maxPages: number | null;
  etag: string | null;
  lastModified: string | null;
}): CrawlCursor {
  const mode = source.crawlMode === 'sitemap' || source.crawlMode === 'site' ? source.crawlMode : 'page';
  return {
    mode,
    start: source.url,
    maxPages: mode === 'page' ? 1 : Math.min(500, source.maxPages ?? 100),
    frontier: mode === 'sitemap' ? [] : [source.url],
    seen: [],
    robots: null,
    listed: mode !== 'sitemap',
    pages: 0,
    bytes: 0,
    errors: [],
    etag: source.etag,
    lastModified: source.lastModified,
  };
}

/**
 * The rules of robots.txt's group for every agent (`*`) or ours, as RFC 9309 reads them: the
 * group's `allow` and `disallow` lines, an empty `disallow` meaning nothing.
 */
export function robotsRules(robots: string): RobotsRule[] {
  const rules: RobotsRule[] = [];
  let applies = false;
  let inAgents = false;
  for (const raw of robots.split(/\r?\n/)) {
    const line = raw.replace(/#.*/, '').trim();
    const match = /^([A-Za-z-]+)\s*:\s*(.*)$/.exec(line);
    if (!match) continue;
    const name = match[1]!.toLowerCase();
    const value = match[2]!.trim();
    if (name === 'user-agent') {
      // A run of user-agent lines opens one group; a rule line closes the run.
      if (!inAgents) applies = false;
      inAgents = true;
      if (value === '*' || /edgegateway/i.test(value)) applies = true;
      continue;
    }
    inAgents = false;
    if (applies && (name === 'disallow' || name === 'allow') && value)
      rules.push({ allow: name === 'allow', pattern: value });
  }
  return rules;
}

/** Whether a robots.txt pattern matches a path: `*` is any run of characters, a final `$` the end. */
function patternMatches(pattern: string, path: string): boolean {
  const anchored = pattern.endsWith('$');
  const body = anchored ? pattern.slice(0, -1) : pattern;
  const source = body
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}${anchored ? '$' : ''}`).test(path);
}

/** Whether the rules allow a URL: the longest matching pattern decides, `allow` on a tie (RFC 9309 2.2.2). */
export function robotsAllow(rules: RobotsRule[], url: URL): boolean {
  if (url.pathname === '/robots.txt') return true;
  const path = `${url.pathname}${url.search}`;
  let best: RobotsRule | undefined;
  for (const rule of rules) {
    if (!patternMatches(rule.pattern, path)) continue;
    if (
      !best ||
      rule.pattern.length > best.pattern.length ||
      (rule.pattern.length === best.pattern.length && rule.allow)
    )
      best = rule;
  }
  return best?.allow ?? true;
}

/** Everything is forbidden: what an unreachable robots.txt means (RFC 9309 2.3.1.4). */
const DISALLOW_ALL: RobotsRule[] = [{ allow: false, pattern: '/' }];

/** The page URLs of a sitemap (`<loc>` entries) that are URLs, in order; anything else is skipped. */
export function sitemapLocations(xml: string, base: string): string[] {
  const found: string[] = [];
  for (const match of xml.matchAll(/<loc>\s*([^<\s]+)\s*<\/loc>/gi)) {
    const text = match[1]!.replaceAll('&amp;', '&').replaceAll('&lt;', '<').replaceAll('&gt;', '>');
    const url = pageUrl(text, base);
    if (url) found.push(url);
  }
  return found;
}

/**
 * A page's URL as the crawl compares them, or null when it is not an http(s) URL: no fragment,
 * and a directory's `index.html` (or `.htm`) as the directory itself, so a page is read once.
 */
export function pageUrl(text: string, base: string): string | null {
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  url.hash = '';
  url.pathname = url.pathname.replace(/\/index\.html?$/i, '/');
  return url.href;
}

type Fetched =
  | { text: string; response: Response }
  | { notModified: true }
  | { error: string; status?: number; refused?: true };

/** Fetches one URL's body as text within the bounds, or says why not. */
async function fetchText(url: string, egress: EgressPolicy, headers: Record<string, string> = {}): Promise<Fetched> {
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
      return { error: `${url} answered ${response.status}.`, status: response.status };
    }
    const body = await readBoundedBody(response, PAGE_MAX_BYTES, clock.now() + FETCH_TIMEOUT_MS);
    if (!body.ok) return { error: `${url}: ${body.reason === 'too_large' ? 'over 2 MB' : body.reason}.` };
    return { text: body.text, response };
  } catch (error) {
    if (error instanceof EgressRefused) return { error: `${url} was refused: ${error.message}`, refused: true };
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

/**
 * robots.txt's rules for a crawl: 4xx means no rules; 5xx or no answer forbids everything. A host
 * the egress guard refuses is the crawl's failure, with the guard's reason.
 */
async function readRobots(start: URL, bounds: SliceBounds): Promise<RobotsRule[] | { refused: string } | null> {
  if (!(await bounds.hostTurn(start.host))) return null;
  const robots = await fetchText(new URL('/robots.txt', start).href, bounds.egress);
  if ('text' in robots) return robotsRules(robots.text);
  if ('refused' in robots)
    return { refused: `${start.href} was refused: ${robots.error.replace(/^.* was refused: /, '')}` };
  if ('error' in robots && robots.status !== undefined && robots.status >= 400 && robots.status < 500) return [];
  return DISALLOW_ALL;
}

const mib = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

/**
 * Runs one slice of a crawl: reads pages from the cursor until the crawl is done, the deadline
 * passes, or the workspace's bytes run out. Answers the pages read in this slice, the cursor to go
 * on from, and how the slice ended. Never throws for what a site does: a site's failure is a reason.
 */
export async function crawlSlice(
  cursor: CrawlCursor,
  bounds: SliceBounds,
): Promise<{ cursor: CrawlCursor; pages: SourceDocument[]; end: SliceEnd }> {
  const state: CrawlCursor = {
    ...cursor,
    frontier: [...cursor.frontier],
    seen: [...cursor.seen],
    errors: [...cursor.errors],
  };
  const pages: SourceDocument[] = [];
  const start = new URL(state.start);
  const seen = new Set(state.seen);
  const firstError = () => state.errors[0] ?? 'No page could be read.';
  if (state.robots === null) {
    const robots = await readRobots(start, bounds);
    if (robots === null) return { cursor: state, pages, end: { kind: 'more' } };
    if (!Array.isArray(robots)) return { cursor: state, pages, end: { kind: 'failed', reason: robots.refused } };
    state.robots = robots;
  }
  if (!state.listed) {
    if (!(await bounds.hostTurn(start.host))) return { cursor: state, pages, end: { kind: 'more' } };
    const sitemap = await fetchText(start.href, bounds.egress);
    if (!('text' in sitemap))
      return {
        cursor: state,
        pages,
        end: { kind: 'failed', reason: 'error' in sitemap ? sitemap.error : 'No sitemap.' },
      };
    state.frontier = sitemapLocations(sitemap.text, start.href)
      .filter((url) => new URL(url).origin === start.origin)
      .slice(0, FRONTIER_MAX);
    state.listed = true;
  }
  const below = start.pathname.replace(/[^/]*$/, '');
  const waiting = new Set(state.frontier);
  while (state.frontier.length > 0 && state.pages < state.maxPages && seen.size < state.maxPages * 3) {
    if (clock.now() >= bounds.deadline) return { cursor: { ...state, seen: [...seen] }, pages, end: { kind: 'more' } };
    const next = state.frontier.shift()!;
    if (seen.has(next)) continue;
    seen.add(next);
    const url = new URL(next);
    if (!robotsAllow(state.robots ?? [], url)) {
      if (state.errors.length < 5) state.errors.push(`${next} is disallowed by robots.txt.`);
      continue;
    }
    if (!(await bounds.hostTurn(url.host))) {
      // Not the host's turn before the deadline: this URL is the next slice's first.
      state.frontier.unshift(next);
      seen.delete(next);
      return { cursor: { ...state, seen: [...seen] }, pages, end: { kind: 'more' } };
    }
    // A single page sends the last sync's validators: unchanged, it is not read again.
    const validators =
      state.mode === 'page'
        ? {
            ...(state.etag ? { 'If-None-Match': state.etag } : {}),
            ...(state.lastModified ? { 'If-Modified-Since': state.lastModified } : {}),
          }
        : {};
    const fetched = await fetchText(next, bounds.egress, validators);
    if ('notModified' in fetched) return { cursor: state, pages, end: { kind: 'unchanged' } };
    if ('error' in fetched) {
      if (state.errors.length < 5) state.errors.push(fetched.error);
      continue;
    }
    const bytes = new TextEncoder().encode(fetched.text).length;
    if (state.bytes + bytes > bounds.bytesLeft)
      return {
        cursor: state,
        pages,
        end: {
          kind: 'over_limit',
          reason:
            `The workspace's knowledge limit of ${mib(bounds.limitBytes)} was reached after ${state.pages} ` +
            `page${state.pages === 1 ? '' : 's'}: delete sources, or crawl fewer pages.`,
        },
      };
    const { document, links } = await readPage(next, fetched.text, fetched.response.headers.get('Content-Type'));
    pages.push({ document, url: next });
    state.pages += 1;
    state.bytes += bytes;
    if (state.mode === 'page') {
      state.etag = fetched.response.headers.get('ETag');
      state.lastModified = fetched.response.headers.get('Last-Modified');
    }
    // A site crawl follows links on the same origin, below the start URL's path.
    if (state.mode === 'site')
      for (const link of links) {
        const found = pageUrl(link, next);
        if (!found || seen.has(found) || waiting.has(found) || state.frontier.length >= FRONTIER_MAX) continue;
        const target = new URL(found);
        if (target.origin !== start.origin || !target.pathname.startsWith(below)) continue;
        state.frontier.push(found);
        waiting.add(found);
      }
  }
  const done = { ...state, seen: [...seen] };
  return { cursor: done, pages, end: done.pages > 0 ? { kind: 'done' } : { kind: 'failed', reason: firstError() } };
}
