import type { Context } from 'hono';
import { secureHeaders } from 'hono/secure-headers';

declare module 'hono' {
  interface ContextVariableMap {
    /** Image sources a page allows beyond its own origin (the hosted inbox: channel logos on any https host). */
    extraImageSources?: string;
    /** Where a page's forms may lead beyond its own origin (a top-up form: Stripe's hosted Checkout). */
    extraFormActions?: string;
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
    formAction: ["'self'", (c) => c.get('extraFormActions') ?? ''],
    frameAncestors: ["'none'"],
  },
  xFrameOptions: 'DENY',
  referrerPolicy: 'strict-origin-when-cross-origin',
});

/** This page may show images from any https host (channel logos). */
export function allowHttpsImages(c: Context): void {
  c.set('extraImageSources', 'https:');
}

/**
 * This page's forms may end at Stripe's hosted Checkout (a top-up answers 303 there, and
 * Chromium holds a form's redirect to form-action): Stripe's origin, or the local stand-in's.
 */
export function allowCheckoutRedirect(c: Context, stripeApiUrl: string | undefined): void {
  c.set('extraFormActions', stripeApiUrl ? new URL(stripeApiUrl).origin : 'https://checkout.stripe.com');
}

/** JSON for a <script type="application/json"> block: `<` is escaped so no tag can close it. */
export function jsonForScriptBlock(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
