/** The docs' part of /assets/site.css: the two-column layout, anchors, notes, figures and search. */
export const docsCss = `
.skip-link { position: absolute; left: -999px; top: 0; background: #fff; padding: 0.5rem; z-index: 10; }
.skip-link:focus { left: 0.5rem; }
.docs-layout { max-width: 76rem; margin: 0 auto; padding: 1.5rem 1.25rem 4rem; display: grid; gap: 2rem;
  grid-template-columns: minmax(0, 1fr); }
@media (min-width: 900px) { .docs-layout { grid-template-columns: 15rem minmax(0, 1fr); }
  .docs-nav { position: sticky; top: 1rem; align-self: start; max-height: calc(100vh - 2rem); overflow-y: auto; } }
.docs-pages { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 0.25rem 0.9rem; }
@media (min-width: 900px) { .docs-pages { display: block; } .docs-pages li { margin: 0.15rem 0; } }
.docs-pages a { text-decoration: none; color: var(--ink); display: inline-block; padding: 0.2rem 0; }
.docs-pages a[aria-current=page] { color: var(--accent); font-weight: 600; }
.docs-search { margin-bottom: 1rem; }
.docs-search label { display: block; font-size: 0.85rem; font-weight: 600; color: var(--muted); }
.docs-search input { width: 100%; font: inherit; padding: 0.45rem 0.6rem; border: 1px solid #8a93a5;
  border-radius: 6px; margin-top: 0.25rem; }
#docs-search-results { list-style: none; margin: 0.4rem 0 0; padding: 0; }
#docs-search-results li { margin: 0 0 0.5rem; }
#docs-search-results a { font-weight: 600; }
#docs-search-results .muted { display: block; font-size: 0.85rem; }
.docs-main { min-width: 0; }
.docs-main h1 { margin-top: 0; }
.docs-main h2 { margin-top: 2.2rem; padding-top: 0.5rem; border-top: 1px solid var(--line); }
.docs-main h2, .docs-main h3, .docs-main h4 { scroll-margin-top: 1rem; overflow-wrap: anywhere; }
.docs-main code { overflow-wrap: anywhere; }
.docs-main pre code { overflow-wrap: normal; }
.docs-main pre { position: relative; max-width: 100%; }
.docs-main pre[data-lang=html], .docs-main pre[data-lang=text] { white-space: pre-wrap; word-break: break-all; }
.docs-main .copy-code { position: absolute; top: 0.4rem; right: 0.4rem; font: inherit; font-size: 0.8rem;
  background: #263045; color: #fff; border: 1px solid #5b6577; border-radius: 5px; padding: 0.15rem 0.5rem;
  cursor: pointer; }
.anchor { margin-left: 0.4rem; color: var(--muted); text-decoration: none; font-weight: 400; opacity: 0.5; }
.anchor:hover, .anchor:focus { opacity: 1; }
.note { border-left: 4px solid var(--accent); background: #eef3ff; padding: 0.6rem 0.9rem; border-radius: 4px;
  margin: 1rem 0; }
.docs-footer { margin-top: 3rem; color: var(--muted); font-size: 0.9rem; }
.diagram { margin: 1rem 0; }
.diagram svg { width: 100%; height: auto; max-width: 52rem; display: block; }
.diagram svg.tall { display: none; max-width: 22rem; }
@media (max-width: 640px) { .diagram svg.wide { display: none; } .diagram svg.tall { display: block; } }
.diagram .muted-text { fill: var(--muted); font-size: 12px; }
.diagram figcaption { color: var(--muted); font-size: 0.9rem; margin-top: 0.5rem; }
.diagram text { font: 13px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; fill: var(--ink); }
.diagram text.title { font-weight: 700; font-size: 14px; }
.diagram .box rect { fill: #fff; stroke: #8a93a5; stroke-width: 1.2; }
.diagram .box.demand rect { fill: #eef3ff; stroke: var(--accent); }
.diagram .box.supply rect { fill: #e9f6f0; stroke: var(--ok); }
.diagram .box.edge rect { fill: #f6f7f9; stroke-dasharray: 4 3; }
.diagram .flow { fill: none; stroke: var(--ink); stroke-width: 1.5; }
.diagram marker path { fill: var(--ink); }
.live-widget { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; }
.live-widget p { margin: 0; }
`;
