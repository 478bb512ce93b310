/**
 * The egress guard (docs/design/webhooks.md): every URL a customer gives us (webhooks, robot
 * endpoints, agent cards and agent endpoints) is checked here before we store it and again
 * before we connect. Only https on the default port to a public DNS name passes. IP literals in
 * any spelling, loopback names (`localhost`, `localhost.localdomain`, `ip6-localhost`…),
 * single-label and internal names are refused, after the host is normalised (case, every
 * trailing dot, empty labels), and a redirect is a failure. Bodies read from these URLs are read
 * as streams and cut at their limit (readBoundedBody). For local development and tests only,
 * ALLOW_LOOPBACK_EGRESS also admits http://127.0.0.1:<port> and http://localhost:<port>; it is
 * ignored when BASE_URL is https. On Workers, a public name that resolves to a private address is
 * left to Cloudflare's network, which does not route Worker subrequests to private ranges.
 */
import { clock } from './clock';

/** Why a URL is refused; stable codes, shown to the customer with a sentence. */
export type EgressRefusal =
  | 'not_a_url'
  | 'not_https'
  | 'credentials_in_url'
  | 'non_default_port'
  | 'ip_literal'
  | 'localhost'
  | 'internal_name'
  | 'redirect';

export const EGRESS_REFUSALS: Record<EgressRefusal, string> = {
  not_a_url: 'This is not a valid URL.',
  not_https: 'Use an https:// URL.',
  credentials_in_url: 'Do not put a user name or password in the URL.',
  non_default_port: 'Use the default https port (443); other ports are not allowed.',
  ip_literal: 'Use a DNS name, not an IP address.',
  localhost: 'localhost (or another name for this machine) is not reachable from the platform.',
  internal_name: 'Use a public DNS name; internal names (.local, .internal, single labels) are not reachable.',
  redirect: 'The URL answered with a redirect; give the final URL instead.',
};

/** Whether loopback is admitted: local development and tests only. */
export interface EgressPolicy {
  allowLoopback: boolean;
}

/** The policy from the settings: ALLOW_LOOPBACK_EGRESS counts only while BASE_URL is not https. */
export function egressPolicy(settings: { ALLOW_LOOPBACK_EGRESS?: boolean; BASE_URL?: string }): EgressPolicy {
  return { allowLoopback: Boolean(settings.ALLOW_LOOPBACK_EGRESS) && !settings.BASE_URL?.startsWith('https:') };
}

export type EgressCheck = { ok: true; url: URL } | { ok: false; reason: EgressRefusal; detail: string };

const refuse = (reason: EgressRefusal): EgressCheck => ({ ok: false, reason, detail: EGRESS_REFUSALS[reason] });

/** Suffixes of names that only resolve inside a network. */
const INTERNAL_SUFFIXES = [
  '.local',
  '.localhost',
  '.internal',
  '.intranet',
  '.lan',
  '.home',
  '.corp',
  '.private',
  '.home.arpa',
  '.arpa',
  '.test',
  '.invalid',
  '.example',
];

/**
 * Names that mean this machine by convention (glibc's and Debian's /etc/hosts, RFC 6761), after
 * normalisation. `*.localhost` is refused by suffix.
 */
const LOOPBACK_NAMES = new Set([
  'localhost',
  'localhost.localdomain',
  'localdomain',
  'ip6-localhost',
  'ip6-loopback',
  'ip6-localnet',
  'ip6-allnodes',
  'ip6-allrouters',
  'loopback',
]);

/**
 * The host as a resolver would see it: lower case, without its trailing dots or empty labels
 * (`LocalHost..` and `printer..local.` are `localhost` and `printer.local`).
 */
export function normaliseHostname(hostname: string): string {
  return hostname
    .toLowerCase()
    .split('.')
    .filter((label) => label !== '')
    .join('.');
}

/** A hostname the URL parser left as an IP address (it normalises decimal, hex and octal IPv4 to dotted). */
function isIpLiteral(hostname: string): boolean {
  if (hostname.startsWith('[')) return true; // IPv6, IPv4-mapped included
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(hostname) || /^[0-9.]+$/.test(hostname) || /^0x[0-9a-f]+$/i.test(hostname);
}

/** Checks a URL against the guard; nothing is fetched. */
export function checkEgressUrl(raw: string, policy: EgressPolicy): EgressCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('not_a_url');
  }
  if (url.username || url.password) return refuse('credentials_in_url');
  const hostname = normaliseHostname(url.hostname);
  // Local development only: exactly these two spellings, over http with a port.
  const devLoopback = url.hostname === 'localhost' || url.hostname === '127.0.0.1';
  if (policy.allowLoopback && devLoopback && url.protocol === 'http:' && url.port !== '') return { ok: true, url };
  if (url.protocol !== 'https:') return refuse('not_https');
  if (url.port !== '') return refuse('non_default_port');
  if (isIpLiteral(hostname)) return refuse('ip_literal');
  if (LOOPBACK_NAMES.has(hostname)) return refuse('localhost');
  if (!hostname.includes('.') || INTERNAL_SUFFIXES.some((suffix) => hostname.endsWith(suffix)))
    return refuse('internal_name');
  // What is called is what was checked: the normalised name.
  url.hostname = hostname;
  return { ok: true, url };
}

/**
 * Lets go of a response whose body is not wanted: cancelling closes the connection at once (an
 * unread body holds its socket open until the peer ends it, and failing receivers never do). Not
 * awaited: a stalled peer may never acknowledge it.
 */
export function discardBody(response: Response): void {
  response.body?.cancel().catch(() => undefined);
}

/** A refusal of the guard, thrown by guardedFetch. */
export class EgressRefused extends Error {
  constructor(
    readonly reason: EgressRefusal,
    detail: string,
  ) {
    super(detail);
  }
}

/**
 * fetch() for customer URLs: the guard first (so a refused URL makes no connection at all), no
 * redirects followed (a redirect is refused), and a timeout.
 */
export async function guardedFetch(
  raw: string,
  init: RequestInit & { timeoutMs: number },
  policy: EgressPolicy,
): Promise<Response> {
  const check = checkEgressUrl(raw, policy);
  if (!check.ok) throw new EgressRefused(check.reason, check.detail);
  const { timeoutMs, ...rest } = init;
  const response = await fetch(check.url.toString(), {
    ...rest,
    redirect: 'manual',
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (response.status >= 300 && response.status < 400) {
    discardBody(response);
    throw new EgressRefused('redirect', EGRESS_REFUSALS.redirect);
  }
  return response;
}

/** What reading a body from a customer URL gave: its text, or why there is none. */
export type BoundedBody = { ok: true; text: string } | { ok: false; reason: 'too_large' | 'timeout' | 'failed' };

/**
 * Reads a body from a customer URL as a stream: at most `limitBytes`, whatever length the
 * response declares, and only until `deadline` (epoch ms). The read stops and the connection is
 * cancelled at the first byte past the limit, or when the deadline passes, so a huge or endless
 * body costs no more memory than the limit and no more time than the deadline.
 */
export async function readBoundedBody(response: Response, limitBytes: number, deadline: number): Promise<BoundedBody> {
  const body = response.body;
  if (!body) return { ok: true, text: '' };
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > limitBytes) {
    await body.cancel().catch(() => undefined);
    return { ok: false, reason: 'too_large' };
  }
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<'expired'>((resolve) => {
    timer = setTimeout(() => resolve('expired'), Math.max(0, deadline - clock.now()));
  });
  const stop = (reason: 'too_large' | 'timeout' | 'failed'): BoundedBody => {
    // Cancelling closes the connection; it is not awaited, since a stalled peer may never answer it.
    reader.cancel().catch(() => undefined);
    return { ok: false, reason };
  };
  try {
    for (;;) {
      let next: ReadableStreamReadResult<Uint8Array> | 'expired';
      try {
        next = await Promise.race([reader.read(), expired]);
      } catch (error) {
        const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
        return stop(timedOut ? 'timeout' : 'failed');
      }
      if (next === 'expired') return stop('timeout');
      if (next.done) break;
      total += next.value.byteLength;
      if (total > limitBytes) return stop('too_large');
      chunks.push(next.value);
    }
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { ok: true, text: new TextDecoder().decode(bytes) };
}
