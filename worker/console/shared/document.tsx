/** @jsxImportSource hono/jsx */
import type { Child } from 'hono/jsx';

/** The HTML shell every server-rendered page shares: one stylesheet, no inline script or style. */
export function Document({
  title,
  bodyClass,
  children,
  noIndex,
  noReferrer,
  lang = 'en',
  dir,
}: {
  title: string;
  bodyClass?: string;
  children: Child;
  noIndex?: boolean;
  /** A page whose URL holds a secret (a reset link): no link or resource of it sends a Referer. */
  noReferrer?: boolean;
  /** The page's language (a visitor's page speaks theirs), and `rtl` for Arabic and Hebrew. */
  lang?: string;
  dir?: 'ltr' | 'rtl';
}) {
  return (
    <html lang={lang} dir={dir}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <link rel="icon" href="data:," />
        {noIndex ? <meta name="robots" content="noindex" /> : null}
        {noReferrer ? <meta name="referrer" content="no-referrer" /> : null}
        <title>{title}</title>
        <link rel="stylesheet" href="/assets/site.css" />
      </head>
      <body class={bodyClass}>{children}</body>
    </html>
  );
}
