/**
 * The egress guard (PRODUCT.md section 10): every URL a customer gives us (webhooks, robot
 * endpoints, agent cards and agent endpoints) is checked here before we store it and again
 * before we connect. Only https on the default port to a public DNS name passes. IP literals in
 * any spelling, `localhost`, single-label and internal names are refused, and a redirect is a
 * failure. For local development and tests only, ALLOW_LOOPBACK_EGRESS also admits
 * http://127.0.0.1:<port> and http://localhost:<port>; it is ignored when BASE_URL is https.
 */

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
  localhost: 'localhost is not reachable from the platform.',
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
const INTERNAL_SUFFIXES = ['.local', '.localhost', '.internal', '.intranet', '.lan', '.home', '.corp', '.private', '.home.arpa', '.arpa', '.test', '.invalid', '.example'];

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
  const hostname = url.hostname.toLowerCase().replace(/\.$/, '');
  const loopbackName = hostname === 'localhost' || hostname === '127.0.0.1';
  if (policy.allowLoopback && loopbackName && url.protocol === 'http:' && url.port !== '') return { ok: true, url };
  if (url.protocol !== 'https:') return refuse('not_https');
  if (url.port !== '') return refuse('non_default_port');
  if (isIpLiteral(hostname)) return refuse('ip_literal');
  if (hostname === 'localhost') return refuse('localhost');
  if (!hostname.includes('.') || INTERNAL_SUFFIXES.some((suffix) => hostname.endsWith(suffix))) return refuse('internal_name');
  return { ok: true, url };
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
export async function guardedFetch(raw: string, init: RequestInit & { timeoutMs: number }, policy: EgressPolicy): Promise<Response> {
  const check = checkEgressUrl(raw, policy);
  if (!check.ok) throw new EgressRefused(check.reason, check.detail);
  const { timeoutMs, ...rest } = init;
  const response = await fetch(check.url.toString(), { ...rest, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
  if (response.status >= 300 && response.status < 400) throw new EgressRefused('redirect', EGRESS_REFUSALS.redirect);
  return response;
}
