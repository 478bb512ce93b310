/**
 * The one hand-written stylesheet shared by the server-rendered pages (docs, console, auth,
 * hosted inbox), served from /assets/site.css so pages need no inline styles under their CSP.
 */
export const siteCss = `
:root { --ink: #1d2330; --muted: #5b6577; --line: #dfe3ea; --bg: #f6f7f9; --card: #fff; --accent: #2450c9; --accent-ink: #fff; --code: #eef1f6; --ok: #13795b; --warn: #a15c00; --bad: #b42318; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible { outline: 3px solid #8fb0ff; outline-offset: 2px; }
code, pre { font: 0.9em/1.5 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
code { background: var(--code); padding: 0.1em 0.35em; border-radius: 4px; }
pre { background: #141a26; color: #e8ecf4; padding: 1rem; border-radius: 8px; overflow-x: auto; }
pre code { background: none; padding: 0; color: inherit; }
.topbar { background: #141a26; color: #fff; }
.topbar .inner { max-width: 72rem; margin: 0 auto; padding: 0.8rem 1.25rem; display: flex; gap: 1rem; align-items: center; flex-wrap: wrap; }
.topbar a { color: #cfd8ea; text-decoration: none; }
.topbar a:hover { color: #fff; }
.brand { font-weight: 700; color: #fff !important; margin-right: auto; }
.page { max-width: 72rem; margin: 0 auto; padding: 1.5rem 1.25rem 4rem; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 1.25rem; margin: 1rem 0; }
h1 { font-size: 1.9rem; line-height: 1.2; margin: 0.5rem 0 0.75rem; }
h2 { font-size: 1.35rem; margin: 2rem 0 0.5rem; }
h3 { font-size: 1.1rem; margin: 1.25rem 0 0.5rem; }
.lead { color: var(--muted); font-size: 1.05rem; max-width: 48rem; }
table { width: 100%; border-collapse: collapse; font-size: 0.95rem; }
th, td { text-align: left; padding: 0.5rem 0.6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
.table-scroll { overflow-x: auto; }
.method { display: inline-block; font-weight: 700; font-size: 0.8rem; padding: 0.15rem 0.45rem; border-radius: 4px; color: #fff; background: var(--ok); margin-right: 0.4rem; }
.method.post { background: var(--accent); }
.method.patch { background: var(--warn); }
.pill { display: inline-block; font-size: 0.8rem; padding: 0.1rem 0.5rem; border-radius: 999px; background: var(--code); color: var(--muted); }
.muted { color: var(--muted); }
.toc { columns: 2 14rem; padding-left: 1.1rem; }
/* Hosted inbox */
.inbox-body { background: #e9ecf1; min-height: 100vh; }
.narrow { max-width: 40rem; }
/* The /demo pretend customer site */
.demo-site { background: #fffdf8; }
.demo-nav { display: flex; align-items: center; justify-content: space-between; gap: 1rem; padding: 1rem 1.5rem; border-bottom: 1px solid #eadfca; flex-wrap: wrap; }
.demo-nav nav { display: flex; gap: 1.25rem; }
.demo-nav a { color: #5a3e12; }
.demo-logo { font-weight: 800; color: #5a3e12; letter-spacing: -0.01em; }
.demo-hero { max-width: 60rem; margin: 0 auto; padding: 3rem 1.5rem 1.5rem; }
.demo-hero h1 { font-size: 2.4rem; max-width: 36rem; }
.demo-note { display: inline-block; background: #fff3cd; color: #5c4400; border: 1px solid #f0d890; border-radius: 6px; padding: 0.3rem 0.6rem; font-size: 0.9rem; }
.demo-grid { max-width: 60rem; margin: 0 auto; padding: 0 1.5rem; display: grid; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); gap: 1rem; }
.demo-grid h2 { font-size: 1.1rem; margin: 0 0 0.4rem; }
@media (max-width: 480px) { body { font-size: 15px; } h1 { font-size: 1.5rem; } .card { padding: 1rem; } th, td { padding: 0.4rem; } }
`;
