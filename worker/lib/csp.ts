/**
 * Content-Security-Policy, read the way a browser enforces it, for one question: may this page load
 * a script from URL x and connect to URL y? Every policy a page carries (each header value, each
 * `<meta http-equiv>`) must allow a load. The fallback chain is CSP Level 3's (`script-src-elem` →
 * `script-src` → `default-src`; `connect-src` → `default-src`), and source matching follows its
 * scheme rules: `https:` also covers `wss:`, `http://h` is upgraded to `https://h`, `'self'` covers
 * the page's own host over ws and wss, and an explicit `https://h` does not cover `wss://h`
 * (observed in Chromium: the live socket is blocked when only the https origin is listed).
 */

/** One policy: each directive's source list, lower-cased. */
export type ParsedPolicy = Map<string, string[]>;

/** Splits a header value into its policies (a comma separates policies) and each into directives. */
export function parsePolicies(value: string): ParsedPolicy[] {
  return value
    .split(',')
    .map((policy) => {
      const directives: ParsedPolicy = new Map();
      for (const part of policy.split(';')) {
        const [name, ...sources] = part.trim().split(/\s+/).filter(Boolean);
        // The first occurrence of a directive wins; later duplicates are ignored, as browsers do.
        if (name && !directives.has(name.toLowerCase())) directives.set(name.toLowerCase(), sources);
      }
      return directives;
    })
    .filter((policy) => policy.size > 0);
}

const FALLBACKS: Record<'script' | 'connect', string[]> = {
  script: ['script-src-elem', 'script-src', 'default-src'],
  connect: ['connect-src', 'default-src'],
};

/** The directive that governs a kind of load in a policy (its name and sources), if any does. */
export function governingDirective(policy: ParsedPolicy, kind: 'script' | 'connect') {
  for (const name of FALLBACKS[kind]) {
    const sources = policy.get(name);
    if (sources) return { name, sources };
  }
  return undefined;
}

const SCHEME_COVERS: Record<string, string[]> = {
  'http:': ['http:', 'https:', 'ws:', 'wss:'],
  'https:': ['https:', 'wss:'],
  'ws:': ['ws:', 'wss:'],
  'wss:': ['wss:'],
};

const defaultPort = (scheme: string) => (scheme === 'http:' || scheme === 'ws:' ? '80' : '443');

function hostMatches(pattern: string, host: string): boolean {
  if (pattern === '*') return true;
  if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1;
  return pattern === host;
}

/** Whether one source expression allows `url` on a page at `pageOrigin`. */
export function sourceAllows(source: string, url: URL, pageOrigin: URL): boolean {
  const expression = source.toLowerCase();
  if (expression === "'none'") return false;
  if (expression === '*') return ['http:', 'https:', 'ws:', 'wss:'].includes(url.protocol);
  if (expression === "'self'") {
    if (url.hostname !== pageOrigin.hostname) return false;
    const port = (value: URL) => value.port || defaultPort(value.protocol);
    if (url.protocol === pageOrigin.protocol) return port(url) === port(pageOrigin);
    // CSP3: 'self' also covers the page's https upgrade (default ports) and its socket twin (same port).
    if (pageOrigin.protocol === 'http:' && url.protocol === 'https:') return !url.port && !pageOrigin.port;
    const twin = pageOrigin.protocol === 'https:' ? ['wss:'] : ['ws:', 'wss:'];
    return twin.includes(url.protocol) && port(url) === port(pageOrigin);
  }
  if (expression.startsWith("'")) return false; // Nonces, hashes, 'unsafe-…': never a URL.
  const scheme = /^([a-z][a-z0-9+.-]*:)(?!\/\/)$/.exec(expression)?.[1];
  if (scheme) return (SCHEME_COVERS[scheme] ?? [scheme]).includes(url.protocol);
  const match = /^(?:([a-z][a-z0-9+.-]*:)\/\/)?([^/:]+)(?::(\d+|\*))?(\/.*)?$/.exec(expression);
  if (!match) return false;
  const [, explicitScheme, host = '', port, path] = match;
  if (explicitScheme) {
    const upgrade =
      (explicitScheme === 'http:' && url.protocol === 'https:') ||
      (explicitScheme === 'ws:' && url.protocol === 'wss:');
    if (explicitScheme !== url.protocol && !upgrade) return false;
  } else {
    // No scheme: the page's own, or its secure upgrade (and nothing but http(s) and ws(s)).
    const allowed = SCHEME_COVERS[pageOrigin.protocol] ?? [pageOrigin.protocol];
    if (!allowed.includes(url.protocol) && !(pageOrigin.protocol === 'https:' && url.protocol === 'wss:')) return false;
  }
  if (!hostMatches(host, url.hostname)) return false;
  // CSP3's port-part: an explicit port (or *), else the URL must be on its scheme's default port.
  if (port ? port !== '*' && port !== (url.port || defaultPort(url.protocol)) : url.port !== '') return false;
  // A path narrows which URLs of the host match; the widget's are under /embed/ and /api/, /live/.
  return !path || path.endsWith('/') ? !path || url.pathname.startsWith(path) : url.pathname === path;
}

/** Whether every policy lets the page make this kind of load of `url`. */
export function policiesAllow(
  policies: ParsedPolicy[],
  kind: 'script' | 'connect',
  url: URL,
  pageOrigin: URL,
): { allowed: boolean; blockedBy?: string } {
  for (const policy of policies) {
    const directive = governingDirective(policy, kind);
    if (directive && !directive.sources.some((source) => sourceAllows(source, url, pageOrigin))) {
      return { allowed: false, blockedBy: directive.name };
    }
  }
  return { allowed: true };
}
