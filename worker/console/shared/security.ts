import type { Context } from 'hono';
import { secureHeaders } from 'hono/secure-headers';

declare module 'hono' {
  interface ContextVariableMap {
    /** Image sources a page allows beyond its own origin (the hosted inbox: channel logos on any https host). */
    extraImageSources?: string;
  }
}

/**
 * The headers every page of ours carries (hono/secure-headers): a strict CSP (no inline script or
 * style, nothing from elsewhere), no sniffing, no framing, a strict referrer, HSTS and the
 * cross-origin isolation headers. Applied to every group of pages (newPageApp), errors included.
 */
export const pageSecurityHeaders = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    connectSrc: ["'self'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'", 'data:', (c) => c.get('extraImageSources') ?? ''],
    baseUri: ["'none'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
  },
  xFrameOptions: 'DENY',
  referrerPolicy: 'strict-origin-when-cross-origin',
});

/** This page may show images from any https host (channel logos). */
export function allowHttpsImages(c: Context): void {
  c.set('extraImageSources', 'https:');
}

/** JSON for a <script type="application/json"> block: `<` is escaped so no tag can close it. */
export function jsonForScriptBlock(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
