/**
 * Will a site's Content-Security-Policy let the widget run? For each origin a channel is embedded
 * on, the page's policies (every header value and `<meta http-equiv>`) are read through the egress
 * guard and checked against what the widget loads: its script from the console origin, its calls to
 * the console and gateway origins, and its live socket on the gateway's `wss://` twin. Owners whose
 * policy predates live chat learn the exact source to add, instead of a browser warning on every
 * page view and a widget that quietly polls.
 */
import { z } from '@hono/zod-openapi';
import type { PlatformUrls } from '../../env';
import { parsePolicies, type ParsedPolicy, policiesAllow } from '../../lib/csp';
import { checkEgressUrl, discardBody, type EgressPolicy, readBoundedBody } from '../../lib/egress';
import { clock } from '../../lib/clock';

/** What the check found for one origin. */
export const cspFindingSchema = z
  .object({
    origin: z.string(),
    status: z.enum(['ok', 'missing', 'no_policy', 'unreachable']).openapi({
      description:
        '`ok`: every load the widget makes is allowed; `missing`: some are blocked (see `missing`); `no_policy`: ' +
        'the page sets none (nothing is blocked); `unreachable`: the page could not be read (see `detail`).',
    }),
    missing: z.array(
      z.object({
        directive: z.string().openapi({ example: 'connect-src' }),
        source: z.string().openapi({ example: 'wss://gateway.example.com' }),
        needed_for: z.string().openapi({ example: 'the live socket (replies within a second)' }),
      }),
    ),
    detail: z.string(),
  })
  .openapi('CspFinding');
export type CspFinding = z.infer<typeof cspFindingSchema>;

const PAGE_LIMIT_BYTES = 512 * 1024;
const TIMEOUT_MS = 5_000;
const MAX_REDIRECTS = 3;

const socketTwin = (origin: string) => origin.replace(/^http/, 'ws');

/** The loads the widget makes from a page: what, where, and the source that allows it. */
function widgetLoads(urls: PlatformUrls) {
  const consoleOrigin = new URL(urls.consoleUrl).origin;
  const baseOrigin = new URL(urls.baseUrl).origin;
  const loads = [
    { kind: 'script' as const, url: `${consoleOrigin}/embed/widget.js`, source: consoleOrigin, what: 'the widget' },
    {
      kind: 'connect' as const,
      url: `${consoleOrigin}/api/public/widget/x/config`,
      source: consoleOrigin,
      what: 'its calls',
    },
    {
      kind: 'connect' as const,
      url: `${socketTwin(baseOrigin)}/live/x`,
      source: socketTwin(baseOrigin),
      what: 'the live socket (replies within a second)',
    },
  ];
  if (baseOrigin !== consoleOrigin) {
    loads.push({ kind: 'connect', url: `${baseOrigin}/api/x`, source: baseOrigin, what: 'its calls' });
  }
  return loads;
}

const META = /<meta\b[^>]*>/gi;
const ATTRIBUTE = (name: string) => new RegExp(`\\b${name}\\s*=\\s*("([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i');
const unescapeHtml = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The policies a page's `<meta http-equiv="Content-Security-Policy">` tags set. */
export function metaPolicies(html: string): string[] {
  const found: string[] = [];
  for (const tag of html.match(META) ?? []) {
    const equiv = ATTRIBUTE('http-equiv').exec(tag);
    if ((equiv?.[2] ?? equiv?.[3] ?? equiv?.[4] ?? '').toLowerCase() !== 'content-security-policy') continue;
    const content = ATTRIBUTE('content').exec(tag);
    const value = content?.[2] ?? content?.[3] ?? content?.[4];
    if (value) found.push(unescapeHtml(value));
  }
  return found;
}

/** The page at an origin (following at most 3 redirects, each through the guard): its policies, or why none. */
async function readPolicies(origin: string, egress: EgressPolicy): Promise<{ policies: string[] } | { error: string }> {
  let url = `${origin}/`;
  const deadline = clock.now() + TIMEOUT_MS;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const check = checkEgressUrl(url, egress);
    if (!check.ok) return { error: `${url}: ${check.detail}` };
    let response: Response;
    try {
      response = await fetch(check.url.toString(), {
        headers: { Accept: 'text/html', 'User-Agent': 'EdgeGateway-CspCheck/1' },
        redirect: 'manual',
        signal: AbortSignal.timeout(Math.max(1, deadline - clock.now())),
      });
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      return {
        error: timedOut ? `${url} did not answer within ${TIMEOUT_MS / 1000} s.` : `${url} could not be reached.`,
      };
    }
    const location = response.headers.get('Location');
    if (response.status >= 300 && response.status < 400 && location) {
      discardBody(response);
      url = new URL(location, check.url).toString();
      continue;
    }
    if (!response.ok) {
      discardBody(response);
      return { error: `${url} answered HTTP ${response.status}.` };
    }
    const headerValues = response.headers.get('Content-Security-Policy');
    const body = await readBoundedBody(response, PAGE_LIMIT_BYTES, deadline);
    const metas = body.ok ? metaPolicies(body.text) : [];
    return { policies: [...(headerValues ? [headerValues] : []), ...metas] };
  }
  return { error: `${origin} redirected more than ${MAX_REDIRECTS} times.` };
}

/** Checks the widget's loads against the policies a page at `origin` carries. */
export function findingFor(origin: string, policyTexts: string[], urls: PlatformUrls): CspFinding {
  const policies: ParsedPolicy[] = policyTexts.flatMap(parsePolicies);
  if (policies.length === 0) {
    return {
      origin,
      status: 'no_policy',
      missing: [],
      detail: 'The page sets no Content-Security-Policy: nothing is blocked.',
    };
  }
  const page = new URL(origin);
  const missing: CspFinding['missing'] = [];
  for (const load of widgetLoads(urls)) {
    const verdict = policiesAllow(policies, load.kind, new URL(load.url), page);
    if (
      !verdict.allowed &&
      !missing.some((entry) => entry.source === load.source && entry.directive === verdict.blockedBy)
    ) {
      missing.push({ directive: verdict.blockedBy ?? `${load.kind}-src`, source: load.source, needed_for: load.what });
    }
  }
  if (missing.length === 0) {
    return { origin, status: 'ok', missing, detail: 'The policy allows the widget, its calls and its live socket.' };
  }
  const list = missing.map((entry) => `${entry.source} to ${entry.directive}`).join(', ');
  return { origin, status: 'missing', missing, detail: `Add ${list}.` };
}

/** The finding for each origin (at most 10, in parallel). */
export async function checkSitePolicies(
  origins: string[],
  urls: PlatformUrls,
  egress: EgressPolicy,
): Promise<CspFinding[]> {
  return Promise.all(
    origins.slice(0, 10).map(async (origin) => {
      const read = await readPolicies(origin, egress);
      if ('error' in read) return { origin, status: 'unreachable' as const, missing: [], detail: read.error };
      return findingFor(origin, read.policies, urls);
    }),
  );
}
