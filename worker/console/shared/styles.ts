/**
 * The one hand-written stylesheet shared by the server-rendered pages (docs, console, auth,
 * hosted inbox), served from /assets/site.css so pages need no inline styles under their CSP.
 */
export const siteCss = `
:root { --ink: #1d2330; --muted: #5b6577; --line: #dfe3ea; --bg: #f6f7f9; --card: #fff; --accent: #2450c9;
--accent-ink: #fff; --code: #eef1f6; --ok: #13795b; --warn: #a15c00; --bad: #b42318; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink);
  background: var(--bg); }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible { outline:
  3px solid #8fb0ff; outline-offset: 2px; }
code, pre { font: 0.9em/1.5 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
code { background: var(--code); padding: 0.1em 0.35em; border-radius: 4px; }
pre { background: #141a26; color: #e8ecf4; padding: 1rem; border-radius: 8px; overflow-x: auto; }
pre code { background: none; padding: 0; color: inherit; }
.topbar { background: #141a26; color: #fff; }
.topbar .inner { max-width: 72rem; margin: 0 auto; padding: 0.8rem 1.25rem; display: flex; gap: 1rem;
align-items: center; flex-wrap: wrap; }
.topbar a { color: #cfd8ea; text-decoration: none; }
.topbar a:hover { color: #fff; }
.brand { font-weight: 700; color: #fff !important; margin-right: auto; }
.page { max-width: 72rem; margin: 0 auto; padding: 1.5rem 1.25rem 4rem; }
.card > h2:first-child { margin-top: 0; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 1.25rem; margin: 1rem 0; }
h1 { font-size: 1.9rem; line-height: 1.2; margin: 0.5rem 0 0.75rem; overflow-wrap: anywhere; }
h2, h3 { overflow-wrap: anywhere; }
h2 { font-size: 1.35rem; margin: 2rem 0 0.5rem; }
h3 { font-size: 1.1rem; margin: 1.25rem 0 0.5rem; }
.lead { color: var(--muted); font-size: 1.05rem; max-width: 48rem; }
table { width: 100%; border-collapse: collapse; font-size: 0.95rem; }
th, td { text-align: left; padding: 0.5rem 0.6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
.table-scroll { overflow-x: auto; }
.method { display: inline-block; font-weight: 700; font-size: 0.8rem; padding: 0.15rem 0.45rem; border-radius: 4px;
color: #fff; background: var(--ok); margin-right: 0.4rem; }
.method.post { background: var(--accent); }
.method.patch { background: var(--warn); }
.pill { display: inline-block; font-size: 0.8rem; padding: 0.1rem 0.5rem; border-radius: 999px;
background: var(--code); color: var(--muted); }
.muted { color: var(--muted); }
.ok { color: var(--ok); }
.bad { color: var(--bad); }
.toc { columns: 2 14rem; padding-left: 1.1rem; }
/* Forms and console */
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.skip { position: absolute; left: -9999px; top: 0; background: #fff; padding: 0.5rem 1rem; z-index: 10; }
.skip:focus { left: 0.5rem; top: 0.5rem; }
.stack { display: grid; gap: 1rem; }
.field label, .choice legend { display: block; font-weight: 600; margin-bottom: 0.3rem; }
.field input, .field textarea, .field select, .switcher select, td select { width: 100%; font: inherit;
padding: 0.55rem 0.65rem; border: 1px solid #8d97a7; border-radius: 8px; background: #fff; color: var(--ink); }
.field input[type=color] { height: 2.6rem; padding: 0.2rem; }
.field input[aria-invalid=true], .field textarea[aria-invalid=true] { border-color: var(--bad); }
.hint { margin: 0.3rem 0 0; color: var(--muted); font-size: 0.88rem; }
.field-error { margin: 0.3rem 0 0; color: var(--bad); font-size: 0.9rem; font-weight: 600; }
fieldset { border: 1px solid var(--line); border-radius: 10px; padding: 1rem; margin: 0; display: grid; gap: 0.9rem;
min-width: 0; }
fieldset legend { font-weight: 700; padding: 0 0.3rem; }
.choice { display: grid; gap: 0.5rem; }
.option { display: flex; gap: 0.6rem; align-items: flex-start; padding: 0.65rem 0.75rem;
border: 1px solid var(--line); border-radius: 8px; cursor: pointer; background: #fff; }
.option:has(input:checked) { border-color: var(--accent); background: #f0f4ff; }
.option input { margin-top: 0.3rem; }
.button { display: inline-flex; align-items: center; justify-content: center; gap: 0.4rem; font: inherit;
font-weight: 600; padding: 0.55rem 1rem; border-radius: 8px; border: 1px solid #8d97a7; background: #fff;
color: var(--ink); cursor: pointer; text-decoration: none; }
.button:hover { background: #f1f3f7; }
.button.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-ink); }
.button.primary:hover { background: #1c43ad; }
.button.small { padding: 0.3rem 0.7rem; font-size: 0.9rem; }
.button.ghost { background: transparent; }
.topbar .button.ghost { color: #fff; border-color: #5b6577; }
.topbar .button.ghost:hover { background: #263045; }
.alert { padding: 0.75rem 1rem; border-radius: 8px; border: 1px solid #b9c7f0; background: #f0f4ff; margin: 0 0 1rem; }
.alert.error { border-color: #f2b8b5; background: #fef3f2; color: #8a1c12; }
.alert.success { border-color: #a6d8c2; background: #f0faf5; color: #0b5a3c; }
.alert.warning { border-color: #f0c36d; border-left: 4px solid #c98a00; background: #fff8e6; color: #6b4300; }
.inline { display: inline-flex; gap: 0.4rem; align-items: center; margin: 0; }
.auth-body { background: linear-gradient(180deg, #141a26 0 14rem, var(--bg) 14rem); }
.auth-card { max-width: 28rem; margin: 3rem auto; background: var(--card); border: 1px solid var(--line);
border-radius: 14px; padding: 1.75rem; box-shadow: 0 10px 30px rgba(16, 24, 40, 0.12); }
.auth-brand { margin: 0; font-weight: 800; color: var(--accent); letter-spacing: -0.01em; }
.auth-card h1 { margin-top: 0.3rem; }
.console-nav { display: flex; flex-wrap: wrap; gap: 0.35rem 0.85rem; }
.console-nav a[aria-current=page] { color: #fff; font-weight: 700; text-decoration: underline;
text-underline-offset: 6px; }
.topbar .inner > .brand { margin-right: 0.5rem; }
.switcher { display: flex; gap: 0.4rem; align-items: center; margin: 0; }
.switcher select { width: auto; max-width: 16rem; padding: 0.3rem 0.5rem; }
/* A long address is cut short, so the bar stays one row beside a full menu (the link's title says it). */
.who { color: #cfd8ea; font-size: 0.9rem; margin-left: auto; max-width: 10rem; overflow: hidden;
text-overflow: ellipsis; white-space: nowrap; }
a.who:hover { color: #fff; }
.who-short { display: none; }
.eyebrow { margin: 0; color: var(--muted); font-size: 0.92rem; }
.title-row { display: flex; gap: 0.75rem; align-items: center; flex-wrap: wrap; }
.title-row h1 { margin-right: 0.25rem; }
.grid-2 { display: grid; grid-template-columns: repeat(auto-fit, minmax(20rem, 1fr)); gap: 1rem; align-items: start; }
.row-2 { display: grid; grid-template-columns: repeat(auto-fit, minmax(10rem, 1fr)); gap: 0.75rem; }
.row-3 { display: grid; grid-template-columns: repeat(auto-fit, minmax(8rem, 1fr)); gap: 0.75rem; }
.channel-list { list-style: none; padding: 0; margin: 0; display: grid; gap: 0.5rem; }
.channel-list li { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; padding: 0.65rem 0.75rem;
border: 1px solid var(--line); border-radius: 8px; }
.channel-link { margin-right: auto; }
.key { font-size: 0.8rem; }
.pill.status-active, .pill.status-open, .pill.status-registered { background: #e3f5ec; color: #0b5a3c; }
.pill.status-disabled, .pill.status-revoked, .pill.status-expired, .pill.status-suspended { background: #fdecea;
color: #8a1c12; }
.copy-row { display: flex; gap: 0.75rem; align-items: center; flex-wrap: wrap; }
.copy-row pre { flex: 1 1 24rem; margin: 0; white-space: pre-wrap; word-break: break-all; }
.copy-row a { word-break: break-all; }
.editor { display: grid; grid-template-columns: minmax(0, 1fr) 400px; gap: 1.5rem; align-items: start; }
.preview-pane { position: sticky; top: 1rem; }
.preview-pane p { margin-top: 0; }
td.message { max-width: 26rem; white-space: pre-wrap; overflow-wrap: anywhere; }
td.source { font-size: 0.9rem; overflow-wrap: anywhere; }
.nowrap { white-space: nowrap; }
.invitation-list { list-style: none; padding: 0; margin: 0; }
.invitation-list .card p:first-child { margin-top: 0; }
.row-actions { display: flex; gap: 0.5rem; flex-wrap: wrap; }
@media (min-width: 900px) { .row-actions { flex-wrap: nowrap; } .row-actions .button { white-space: nowrap; } }
.steps { padding-left: 1.2rem; }
.steps li { margin: 0.4rem 0; }
.steps li.done { color: var(--ok); font-weight: 600; }
@media (max-width: 900px) { .editor { grid-template-columns: 1fr; } .preview-pane { position: static; } }
@media (max-width: 640px) { .console-nav { order: 3; width: 100%; } .who-long { display: none; }
.who-short { display: inline; } .auth-card { margin: 1rem;
padding: 1.25rem; } }
/* Provider onboarding and workbench */
.stepper { list-style: none; padding: 0; margin: 1rem 0; display: flex; flex-wrap: wrap; gap: 0.4rem;
counter-reset: step; }
.stepper a { display: inline-flex; gap: 0.4rem; align-items: center; padding: 0.35rem 0.7rem;
border: 1px solid var(--line); border-radius: 999px; text-decoration: none; color: var(--ink); background: #fff;
font-size: 0.92rem; }
.stepper .step-number { display: inline-grid; place-items: center; width: 1.4rem; height: 1.4rem; border-radius: 50%;
background: var(--code); font-weight: 700; font-size: 0.8rem; }
.stepper li.done .step-number { background: #e3f5ec; color: #0b5a3c; }
.stepper li.current a { border-color: var(--accent); background: #f0f4ff; font-weight: 700; }
.stepper li.current .step-number { background: var(--accent); color: #fff; }
.status-card h2 { display: flex; gap: 0.5rem; align-items: center; }
.tabs { display: flex; gap: 0.25rem; border-bottom: 1px solid var(--line); margin: 1rem 0 0; flex-wrap: wrap; }
.tabs a { padding: 0.55rem 0.9rem; text-decoration: none; color: var(--muted); border-bottom: 3px solid transparent;
font-weight: 600; }
.tabs a[aria-current=page] { color: var(--ink); border-bottom-color: var(--accent); }
.tabs .count { display: inline-block; min-width: 1.5rem; text-align: center; font-size: 0.8rem; padding: 0 0.35rem;
border-radius: 999px; background: var(--code); color: var(--ink); }
.lead-list { list-style: none; padding: 0; margin: 0; display: grid; gap: 0.5rem; }
.lead-card { display: grid; gap: 0.35rem; padding: 0.75rem 0.85rem; border: 1px solid var(--line); border-radius: 8px; }
.lead-link { font-weight: 600; overflow-wrap: anywhere; }
.lead-meta { display: flex; flex-wrap: wrap; gap: 0.35rem; align-items: center; font-size: 0.9rem; }
.pill.urgency-high { background: #fdecea; color: #8a1c12; }
.pill.urgency-low { background: #eef1f6; color: var(--muted); }
.pill.status-claimed, .pill.status-contacted, .pill.status-qualified, .pill.status-pending_review { background:
  #fff3cd; color: #5c4400; }
.pill.status-failing { background: #fff8e6; color: #6b4300; }
.pill.status-won { background: #e3f5ec; color: #0b5a3c; }
.pill.status-lost, .pill.status-held, .pill.status-rejected { background: #fdecea; color: #8a1c12; }
.transcript { list-style: none; padding: 0; margin: 0; display: grid; gap: 0.6rem; }
.turn { padding: 0.6rem 0.75rem; border-radius: 8px; background: var(--code); }
.turn.visitor { background: #f0f4ff; }
.turn .speaker { font-weight: 700; margin-right: 0.5rem; }
.turn .when, .history .when { color: var(--muted); font-size: 0.85rem; }
.turn p { margin: 0.3rem 0 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.history { padding-left: 1.1rem; margin: 0; }
.history li { margin: 0.35rem 0; }
.history .note { margin: 0.2rem 0 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.contact { display: grid; grid-template-columns: auto 1fr; gap: 0.3rem 1rem; margin: 0.5rem 0 1rem; }
.contact dt { font-weight: 600; color: var(--muted); }
.contact dd { margin: 0; overflow-wrap: anywhere; }
.release { margin-top: 0.75rem; }
.admin-link { font-size: 0.9rem; }
/* Hosted inbox */
.inbox-body { background: #e9ecf1; min-height: 100vh; }
.narrow { max-width: 40rem; }
.onboarding { display: grid; grid-template-columns: minmax(0, 1fr); gap: 0 1.5rem; }
.onboarding .stepper { margin-top: 0; }
@media (min-width: 960px) {
  .onboarding { grid-template-columns: 20rem minmax(0, 1fr); align-items: start; }
  .onboarding .stepper { flex-direction: column; }
  .onboarding .stepper a { width: 100%; box-sizing: border-box; }
}
/* The front page (/) */
.front-nav { display: flex; align-items: center; justify-content: space-between; gap: 1rem; padding: 1rem 1.5rem;
max-width: 64rem; margin: 0 auto; flex-wrap: wrap; }
.front-nav nav { display: flex; gap: 1.25rem; }
.front-logo { font-weight: 800; font-size: 1.1rem; color: var(--ink); text-decoration: none; }
.front-hero { max-width: 64rem; margin: 0 auto; padding: 2.5rem 1.5rem 1.5rem; }
.front-hero h1 { font-size: 2.4rem; line-height: 1.15; max-width: 44rem; margin: 0 0 1rem; }
.front-actions { display: flex; flex-wrap: wrap; gap: 0.75rem; margin-top: 1.5rem; }
.front-actions .button { white-space: normal; text-align: center; }
.front-grid { max-width: 64rem; margin: 0 auto; padding: 0 1.5rem; display: grid; gap: 1rem;
grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); }
.front-grid h2 { font-size: 1.15rem; margin: 0 0 0.4rem; }
.front-consult { max-width: 61rem; margin: 1.5rem auto; }
.front-consult h2 { margin-top: 0; }
.front-footer { max-width: 64rem; margin: 2rem auto; padding: 1rem 1.5rem; display: flex; gap: 1.25rem;
flex-wrap: wrap; border-top: 1px solid var(--line); }
@media (max-width: 480px) { .front-hero h1 { font-size: 1.7rem; } .front-consult { margin: 1rem; } }
/* The /demo pretend customer site */
.demo-site { background: #fffdf8; }
.demo-nav { display: flex; align-items: center; justify-content: space-between; gap: 1rem; padding: 1rem 1.5rem;
border-bottom: 1px solid #eadfca; flex-wrap: wrap; }
.demo-nav nav { display: flex; gap: 1.25rem; }
.demo-nav a { color: #5a3e12; }
.demo-logo { font-weight: 800; color: #5a3e12; letter-spacing: -0.01em; }
.demo-hero { max-width: 60rem; margin: 0 auto; padding: 3rem 1.5rem 1.5rem; }
.demo-hero h1 { font-size: 2.4rem; max-width: 36rem; }
.demo-note { display: inline-block; background: #fff3cd; color: #5c4400; border: 1px solid #f0d890;
border-radius: 6px; padding: 0.3rem 0.6rem; font-size: 0.9rem; }
.demo-grid { max-width: 60rem; margin: 0 auto; padding: 0 1.5rem; display: grid;
grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); gap: 1rem; }
.demo-grid h2 { font-size: 1.1rem; margin: 0 0 0.4rem; }
@media (max-width: 480px) { body { font-size: 15px; } h1 { font-size: 1.5rem; } .card { padding: 1rem;
} th, td { padding: 0.4rem; } }
/* A row of small fields that wraps (the insights' range and channel). */
.inline-form { display: flex; flex-wrap: wrap; gap: 0.75rem 1rem; align-items: flex-end; }
.inline-form .field { margin: 0; }
.inline-form .field-error { flex-basis: 100%; }
.inline-form .grow { flex: 1 1 16rem; }
.button.danger { color: var(--bad); border-color: #e3a29c; }
.button.danger:hover { background: #fef3f2; }
.tried { margin-top: 1rem; border-top: 1px solid var(--line); padding-top: 0.75rem; }
.gaps { list-style: none; padding: 0; margin: 0; display: grid; gap: 1rem; }
.gaps > li { border: 1px solid var(--line); border-radius: 8px; padding: 0.75rem 1rem; }
.gaps > li > p:first-child { margin-top: 0; }
/* Charts (shared/charts.tsx) and meters against an allowance (the usage page). */
.chart { margin: 0.5rem 0 0; }
.chart-title { font-weight: 600; margin-bottom: 0.25rem; }
.chart svg { width: 100%; height: auto; display: block; }
.chart .tick line { stroke: var(--line); }
.chart text { font-size: 11px; fill: var(--muted); }
.chart .row-label { font-size: 17px; fill: var(--ink); }
.chart .row-value { font-size: 16px; fill: var(--ink); font-weight: 600; }
/*
 * A drawing scales with its card: on a phone it shrinks to about a third (axes, 960 units wide) or a
 * half (rows, 640), so its text is set larger in the drawing's own units to stay at 11 px or more.
 */
@media (max-width: 640px) {
  .chart svg.axes text { font-size: 36px; }
  .chart svg.rows .row-label { font-size: 26px; }
  .chart svg.rows .row-value { font-size: 25px; }
}
.chart .series-1 { fill: var(--accent); stroke: var(--accent); }
.chart .series-2 { fill: #0f8a6a; stroke: #0f8a6a; }
.chart .series-3 { fill: #b45309; stroke: #b45309; }
.chart .series-4 { fill: #7c3aed; stroke: #7c3aed; }
.chart path.line { fill: none; stroke-width: 2; }
.chart .axis-label.today { font-weight: 600; fill: var(--ink); }
.legend { list-style: none; padding: 0; margin: 0.25rem 0; display: flex; flex-wrap: wrap; gap: 0.25rem 1rem;
  font-size: 0.9rem; }
.swatch { display: inline-block; width: 0.8rem; height: 0.8rem; border-radius: 2px; margin-right: 0.35rem;
  vertical-align: -0.05rem; }
.legend .series-1 { background: var(--accent); } .legend .series-2 { background: #0f8a6a; }
.legend .series-3 { background: #b45309; } .legend .series-4 { background: #7c3aed; }
.chart-numbers summary { cursor: pointer; color: var(--accent); margin: 0.5rem 0; }
.meters { list-style: none; padding: 0; margin: 0; display: grid; gap: 1rem;
  grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); }
.meters li { border: 1px solid var(--line); border-radius: 8px; padding: 0.75rem; }
.meters .figure { font-size: 1.4rem; font-weight: 700; }
.meters progress { width: 100%; height: 0.6rem; accent-color: var(--accent); }
.meters progress.over { accent-color: var(--bad); }
.money { font-variant-numeric: tabular-nums; }
.balance { font-size: 2rem; font-weight: 700; margin: 0.25rem 0; }
/* On a phone, a data table becomes one card per row: every column shows, labelled, none cut off. */
@media (max-width: 640px) {
  table.cards thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  table.cards, table.cards tbody, table.cards tr, table.cards td, table.cards th[scope=row] { display: block;
    width: 100%; }
  table.cards tr { border: 1px solid var(--line); border-radius: 8px; padding: 0.35rem 0.6rem; margin: 0 0 0.75rem; }
  table.cards td, table.cards th[scope=row] { border-bottom: 0; padding: 0.3rem 0; overflow-wrap: anywhere; }
  table.cards td[data-label]::before { content: attr(data-label); display: block; color: var(--muted);
    font-size: 0.8rem; font-weight: 600; }
  table.cards td.nowrap { white-space: normal; }
  table.cards button, table.cards .button { overflow-wrap: normal; white-space: nowrap; }
}
`;
