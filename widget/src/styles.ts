/**
 * The panel's stylesheet, adopted into the shadow root (or the hosted inbox document) as a
 * constructable stylesheet, so host pages with a strict CSP need no 'unsafe-inline'.
 * `all: initial` on the panel stops the host page's inherited styles at the door.
 */
export const panelCss = `
.panel{all:initial;box-sizing:border-box;display:flex;flex-direction:column;background:#fff;color:#1d2330;
font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;overflow:hidden;z-index:2147483000}
.panel *,.panel *::before,.panel *::after{box-sizing:border-box;font-family:inherit}
.panel.embedded{position:fixed;width:380px;height:min(620px,calc(100vh - 110px));border-radius:16px;
box-shadow:0 12px 40px rgba(16,24,40,.22),0 2px 6px rgba(16,24,40,.08)}
.panel.preview{position:relative;width:100%;max-width:380px;height:540px;border-radius:16px;
box-shadow:0 12px 40px rgba(16,24,40,.18);border:1px solid #dfe3ea}
.panel.page{position:relative;width:100%;max-width:760px;height:100vh;height:100dvh;margin:0 auto;
border-left:1px solid #dfe3ea;border-right:1px solid #dfe3ea}
@media (max-width:479px){.panel.embedded{left:0!important;right:0!important;top:0;bottom:0!important;width:100%;
height:100%;border-radius:0}}
.head{display:flex;align-items:center;gap:12px;padding:14px 16px;background:var(--egw-primary);
color:var(--egw-on-primary)}
.logo{width:32px;height:32px;border-radius:8px;object-fit:cover;background:#fff}
.titles{flex:1;min-width:0}
.head h1,.head h2{margin:0;font-size:16px;font-weight:650;line-height:1.3;overflow:hidden;text-overflow:ellipsis;
white-space:nowrap}
.brand{margin:0;font-size:12.5px;opacity:.9}
.close{all:unset;display:grid;place-items:center;width:36px;height:36px;border-radius:8px;cursor:pointer;color:inherit}
.close:hover{background:rgba(255,255,255,.16)}
.close:focus-visible{outline:2px solid var(--egw-on-primary);outline-offset:1px}
.thread{flex:1;overflow-y:auto;padding:16px;background:#f6f7f9;display:flex;flex-direction:column;gap:8px}
.bubble{margin:0;max-width:85%;padding:9px 12px;border-radius:14px;font-size:14.5px;white-space:pre-wrap;
overflow-wrap:anywhere}
.bubble.assistant{align-self:flex-start;background:#fff;border:1px solid #e3e6ec;border-end-start-radius:4px}
.bubble .by{display:block;margin-bottom:3px;font-size:12px;color:#5b6472}
.bubble .text{display:block;text-align:start}
.bubble .sources{display:flex;flex-wrap:wrap;gap:4px 10px;margin-top:6px;font-size:13px}
.bubble .sources a{color:var(--egw-link,#1d4ed8);text-decoration:underline}
.bubble .person{display:block;margin-top:6px;padding:0;font-size:13px}
.bubble.visitor{align-self:flex-end;background:var(--egw-primary);color:var(--egw-on-primary);
border-end-end-radius:4px}
.card{display:grid;gap:10px;margin:4px 0;padding:14px;background:#fff;border:1px solid #dfe3ea;border-radius:12px}
.card.success{background:#f0faf5;border-color:#a6d8c2}
.card-title{margin:0;font-weight:600;font-size:14.5px}
.field label{display:block;margin-bottom:4px;font-size:13px;font-weight:600}
.optional{font-weight:400;color:#5b6577}
.field input{width:100%;padding:9px 10px;border:1px solid #8d97a7;border-radius:8px;font-size:15px;color:#1d2330;
background:#fff}
.field input[aria-invalid=true]{border-color:#b42318}
.field-error{margin:4px 0 0;color:#b42318;font-size:12.5px}
.hp{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}
.privacy{margin:0;font-size:12px;color:#5b6577}
.row{display:flex;align-items:center;gap:14px}
.primary{border:0;border-radius:8px;padding:9px 14px;background:var(--egw-primary);color:var(--egw-on-primary);
font-size:14.5px;font-weight:600;cursor:pointer}
.primary:disabled{opacity:.55;cursor:default}
.link{all:unset;color:var(--egw-accent);font-size:13.5px;font-weight:600;cursor:pointer;text-decoration:underline;
text-underline-offset:2px}
.link:disabled{opacity:.55;cursor:default}
.panel input:focus-visible,.panel textarea:focus-visible,.primary:focus-visible,.link:focus-visible{
outline:2px solid var(--egw-accent);outline-offset:2px}
.error{margin:0;padding:8px 16px;background:#fef3f2;color:#b42318;font-size:13px;border-top:1px solid #fecdca}
.composer{display:flex;align-items:flex-end;gap:8px;padding:10px 12px;border-top:1px solid #e3e6ec;background:#fff}
.composer textarea{flex:1;resize:none;min-height:44px;max-height:140px;padding:10px 11px;border:1px solid #8d97a7;
border-radius:10px;font-size:15px;line-height:1.35;color:#1d2330;background:#fff}
.composer textarea::placeholder{color:#5b6577}
.send{display:grid;place-items:center;width:44px;height:44px;padding:0;border-radius:10px}
.actions{display:flex;flex-wrap:wrap;align-items:center;gap:6px 16px;padding:0 14px 12px;background:#fff}
.provider{margin-inline-start:auto}
.mark{display:block;margin-top:3px;font-size:11.5px;opacity:.85;text-align:end}
.panel[dir=rtl] .send svg{transform:scaleX(-1)}
.thinking{color:#5b6472;font-style:italic}
.note{margin:4px 0;font-size:12.5px;color:#5b6472;text-align:center}
.ref{white-space:nowrap}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`;
