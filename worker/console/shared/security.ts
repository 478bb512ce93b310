import type { Context } from 'hono';

/** Strict CSP for our own pages: no inline script or style, nothing from elsewhere. */
export function pageCsp({ images = "'self' data:" }: { images?: string } = {}): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "connect-src 'self'",
    "style-src 'self'",
    `img-src ${images}`,
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The headers every page of ours carries: the CSP, no sniffing, no framing, a strict referrer. */
export function setPageSecurityHeaders(c: Context, csp: string = pageCsp()): void {
  c.header('Content-Security-Policy', csp);
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('X-Frame-Options', 'DENY');
  c.header('Referrer-Policy', 'strict-origin-when-cross-origin');
}

/** JSON for a <script type="application/json"> block: `<` is escaped so no tag can close it. */
export function jsonForScriptBlock(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
