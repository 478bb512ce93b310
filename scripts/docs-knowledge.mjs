// The platform's own front door answers from its own docs (docs/design/knowledge.md): once the
// local Worker answers, each page of /docs (as /llms.txt lists them) is added to the demo
// workspace's knowledge as an HTML document with its page's URL, so a citation links to the
// heading on the docs site. Run by `npm run dev` and by the Node tests' Worker; a page already
// there is left as it is (a second run adds nothing), whatever address it was added from: a page
// added under another local address (another port, 127.0.0.1 for localhost) is added again under
// this one, in its place, so its citations link where the platform now serves.

/** Waits until the Worker answers /healthz (at most `timeoutMs`). */
async function whenUp(base, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 250)); // A poll's interval.
  }
  throw new Error(`${base} did not answer within ${timeoutMs / 1000} s`);
}

/** A source's docs page path when its URL is a local address's /docs page, else null. */
function docsPath(url) {
  try {
    const parsed = new URL(url);
    const local = ['localhost', '127.0.0.1', '[::1]'].includes(parsed.hostname);
    return local && /^\/docs(\/|$)/.test(parsed.pathname) ? parsed.pathname : null;
  } catch {
    return null;
  }
}

/** Indexes the docs' pages into the knowledge of the key's workspace; answers how many were added. */
export async function indexDocsAsKnowledge(base, apiKey) {
  await whenUp(base);
  const headers = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
  const llms = await (await fetch(`${base}/llms.txt`)).text();
  const pages = [...llms.matchAll(/\]\((\S+\/docs(?:\/[a-z0-9-]+)?)\.md\)/g)].map((match) => match[1]);
  const listed = await fetch(`${base}/api/knowledge/sources`, { headers });
  if (!listed.ok) throw new Error(`listing the knowledge: ${listed.status} ${await listed.text()}`);
  const sources = (await listed.json()).data.filter((source) => source.url);
  let added = 0;
  for (const url of pages) {
    const path = new URL(url).pathname;
    const same = sources.filter((source) => docsPath(source.url) === path);
    if (same.some((source) => source.url === url)) continue;
    // The same page under another local address: it gives way to this one.
    for (const old of same)
      await fetch(`${base}/api/knowledge/sources/${encodeURIComponent(old.source_id)}`, { method: 'DELETE', headers });
    const html = await (await fetch(url)).text();
    const title =
      /<title>([^<]*)<\/title>/i
        .exec(html)?.[1]
        ?.replace(/\s+·.*$/, '')
        .trim() || 'Docs';
    const response = await fetch(`${base}/api/knowledge/sources`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ kind: 'document', title, url, content_type: 'text/html', content: html, language: 'en' }),
    });
    if (!response.ok) throw new Error(`adding ${url}: ${response.status} ${await response.text()}`);
    added += 1;
  }
  return { pages: pages.length, added };
}
