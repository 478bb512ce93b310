/**
 * The knowledge's bounds (docs/design/knowledge.md#limits), as a probe pushed on them: crawls count
 * against the workspace's size and passage limits as they read, on every sync, and the database
 * refuses what crawls side by side would pass together; a crawl runs in slices on its own queue and
 * goes on from its cursor; robots.txt as RFC 9309 reads it; a bad sitemap entry is skipped; syncs
 * and questions are limited; a host is asked at most 2 pages a second whoever asks; what a page
 * calls itself is cleaned at the door; a common word's postings are read only so far.
 */
import { env } from 'cloudflare:test';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { clock, moveClockForTests } from '../../worker/lib/clock';
import { countingD1, createDatabase, type QueryCounter } from '../../worker/lib/db';
import { passagesQuery } from '../../worker/platform/knowledge';
import { CRAWL_MAX_SLICES, hostTurn, indexSource } from '../../worker/platform/knowledge/crawl-job';
import { POSTINGS_PER_WORD } from '../../worker/platform/knowledge/ask';
import { egressPolicy } from '../../worker/lib/egress';
import { installRemotes, remotes } from './agent-helpers';
import { call, createTenant, expectProblem, issueKey, json, type Tenant, workerDb } from './helpers';
import { workerFetch } from './self';
import { platformDb } from './platform-db';

const KNOWLEDGE = ['knowledge:read', 'knowledge:write'];

beforeEach(() => installRemotes());
afterEach(() => vi.restoreAllMocks());

const html = (title: string, body: string, links: string[] = []) =>
  new Response(
    `<html><head><title>${title}</title></head><body>${body}` +
      `${links.map((link) => `<a href="${link}">more</a>`).join('')}</body></html>`,
    { headers: { 'Content-Type': 'text/html; charset=utf-8' } },
  );

async function addSource(tenant: Tenant, body: Record<string, unknown>) {
  const response = await call('/api/knowledge/sources', { token: tenant.token, body });
  expect(response.status, await response.clone().text()).toBe(201);
  return json(response);
}

const sourceOf = async (tenant: Tenant, id: string) =>
  json(await call(`/api/knowledge/sources/${id}`, { token: tenant.token }));

/** Waits until the source is no longer queued (its crawl ended), and answers it. */
async function crawled(tenant: Tenant, id: string) {
  await vi.waitUntil(async () => (await sourceOf(tenant, id)).status !== 'queued', { timeout: 20_000, interval: 100 });
  return sourceOf(tenant, id);
}

/** Sets a workspace's knowledge limits, as an administrator would in D1. */
async function limits(workspaceId: string, set: { bytes?: number; chunks?: number }) {
  await platformDb
    .prepare(
      `INSERT INTO knowledge_spaces (workspace_id, max_bytes, max_chunks) VALUES (?, ?, ?)
     ON CONFLICT (workspace_id) DO UPDATE SET max_bytes = excluded.max_bytes, max_chunks = excluded.max_chunks`,
    )
    .bind(workspaceId, set.bytes ?? 20 * 1024 * 1024, set.chunks ?? 20_000)
    .run();
}

describe('limits that crawls keep', () => {
  it('a site crawl stops at the workspace’s size limit, naming it, on its first sync and on a re-sync', async () => {
    const tenant = await createTenant({ scopes: KNOWLEDGE });
    await limits(tenant.workspaceId, { bytes: 2 * 1024 * 1024 });
    const origin = 'https://big-site.example.com';
    remotes.set(`${origin}/robots.txt`, () => new Response('', { status: 404 }));
    const filler = `<p>${'Shipping rates depend on the parcel weight and the zone. '.repeat(11_000)}</p>`;
    for (let page = 0; page < 6; page++)
      remotes.set(`${origin}/docs/p${page}`, () =>
        html(`Page ${page}`, `<h1>Page ${page}</h1>${filler}`, [`/docs/p${page + 1}`]),
      );
    const source = await addSource(tenant, {
      kind: 'url',
      url: `${origin}/docs/p0`,
      crawl: { mode: 'site', max_pages: 6 },
    });
    const failed = await crawled(tenant, source.source_id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/knowledge limit of 2 MB was reached after 3 pages/);
    expect(failed.chunks).toBe(0);
    // Fewer pages than the crawl saw were fetched past the limit: it stopped there.
    expect(
      (await platformDb
        .prepare('SELECT COUNT(*) AS n FROM knowledge_chunks WHERE source_id = ?')
        .bind(source.source_id)
        .first())!.n,
    ).toBe(0);
    const synced = await call(`/api/knowledge/sources/${source.source_id}/sync`, {
      method: 'POST',
      token: tenant.token,
    });
    expect(synced.status).toBe(202);
    expect((await crawled(tenant, source.source_id)).error).toMatch(/knowledge limit of 2 MB/);
  });

  it('passages are bounded per workspace, and the database refuses what two sources would pass together', async () => {
    const tenant = await createTenant({ scopes: KNOWLEDGE });
    await limits(tenant.workspaceId, { chunks: 3 });
    const many = await addSource(tenant, {
      kind: 'document',
      title: 'Many parts',
      content_type: 'text/markdown',
      content: ['# One', 'First part.', '## Two', 'Second part.', '## Three', 'Third.', '## Four', 'Fourth.'].join(
        '\n\n',
      ),
    });
    expect(many).toMatchObject({ status: 'failed', chunks: 0 });
    expect(many.error).toMatch(/limit of 3 passages/);
    // Two sources that each fit: the second one to be written is refused by the database itself.
    await limits(tenant.workspaceId, { bytes: 1000 });
    for (const id of ['ks_race_a', 'ks_race_b'])
      await platformDb
        .prepare(
          'INSERT INTO knowledge_sources (id, workspace_id, kind, title, status, created_at, updated_at) ' +
            "VALUES (?, ?, 'url', 't', 'queued', 0, 0)",
        )
        .bind(`${id}_${tenant.workspaceId}`, tenant.workspaceId)
        .run();
    const grow = (id: string) =>
      platformDb
        .prepare('UPDATE knowledge_sources SET bytes = 600 WHERE id = ?')
        .bind(`${id}_${tenant.workspaceId}`)
        .run();
    await grow('ks_race_a');
    await expect(grow('ks_race_b')).rejects.toThrow(/knowledge_bytes_limit/);
  });
});

describe('crawls in slices, on a queue of their own', () => {
  it('a crawl past its slice’s time goes on from its cursor in the next message, and ends indexed', async () => {
    const tenant = await createTenant({ scopes: KNOWLEDGE });
    const origin = 'https://slow-site.example.com';
    remotes.set(`${origin}/robots.txt`, () => new Response('User-agent: *\nAllow: /\n'));
    const fetched: string[] = [];
    for (let page = 0; page < 4; page++)
      remotes.set(`${origin}/guide/${page}`, () => {
        fetched.push(`/guide/${page}`);
        // Each page takes the site 15 s: a slice (25 s) reads two.
        moveClockForTests(15_000);
        return html(
          `Guide ${page}`,
          `<h1>Guide part ${page}</h1><p>Step ${page} of the setup guide explains the cables.</p>`,
          [`/guide/${page + 1}`],
        );
      });
    const source = await addSource(tenant, {
      kind: 'url',
      url: `${origin}/guide/0`,
      crawl: { mode: 'site', max_pages: 10 },
    });
    const done = await crawled(tenant, source.source_id);
    expect(done).toMatchObject({ status: 'indexed', documents: 4 });
    // Each page once, in order, across the slices; nothing of the crawl is left behind.
    expect(fetched).toEqual(['/guide/0', '/guide/1', '/guide/2', '/guide/3']);
    expect(
      await platformDb
        .prepare('SELECT COUNT(*) AS n FROM knowledge_crawls WHERE source_id = ?')
        .bind(source.source_id)
        .first(),
    ).toEqual({ n: 0 });
    expect(
      await platformDb
        .prepare('SELECT COUNT(*) AS n FROM knowledge_crawl_pages WHERE source_id = ?')
        .bind(source.source_id)
        .first(),
    ).toEqual({ n: 0 });
  });

  it('a crawl that needs too many slices, or keeps dying, ends failed', async () => {
    const tenant = await createTenant({ scopes: KNOWLEDGE });
    const origin = 'https://endless-site.example.com';
    remotes.set(`${origin}/robots.txt`, () => new Response('', { status: 404 }));
    remotes.set(`${origin}/`, () => html('Home', '<h1>Home</h1><p>Welcome to the shop, open every day.</p>'));
    const id = `ks_stuck_${tenant.workspaceId}`;
    await platformDb
      .prepare(
        `INSERT INTO knowledge_sources
         (id, workspace_id, kind, title, url, crawl_mode, max_pages, status, created_at, updated_at)
       VALUES (?, ?, 'url', ?, ?, 'site', 10, 'queued', 0, 0)`,
      )
      .bind(id, tenant.workspaceId, `${origin}/`, `${origin}/`)
      .run();
    await platformDb
      .prepare(
        'INSERT INTO knowledge_crawls (source_id, workspace_id, cursor, slices, started_at, updated_at) ' +
          "VALUES (?, ?, '{}', ?, 0, 0)",
      )
      .bind(id, tenant.workspaceId, CRAWL_MAX_SLICES)
      .run();
    const status = await indexSource(workerDb(), id, {
      egress: egressPolicy({}),
      queue: { send: async () => undefined },
      now: () => clock.now(),
    });
    expect(status).toBe('failed');
    expect((await sourceOf(tenant, id)).error).toMatch(/did not finish within 40 runs/);
  });

  it('a sitemap entry that is not a URL is skipped, and a crawl with nothing to read ends failed', async () => {
    const tenant = await createTenant({ scopes: KNOWLEDGE });
    const origin = 'https://maps.example.com';
    remotes.set(`${origin}/robots.txt`, () => new Response('', { status: 404 }));
    remotes.set(
      `${origin}/sitemap.xml`,
      () => new Response(`<urlset><url><loc>http://[::1</loc></url><url><loc>${origin}/faq</loc></url></urlset>`),
    );
    remotes.set(`${origin}/faq`, () => html('FAQ', '<h1>Returns</h1><p>Returns are free within thirty days.</p>'));
    remotes.set(`${origin}/broken.xml`, () => new Response('<urlset><url><loc>http://[::1</loc></url></urlset>'));
    const good = await addSource(tenant, { kind: 'url', url: `${origin}/sitemap.xml`, crawl: { mode: 'sitemap' } });
    expect(await crawled(tenant, good.source_id)).toMatchObject({ status: 'indexed', documents: 1 });
    const bad = await addSource(tenant, { kind: 'url', url: `${origin}/broken.xml`, crawl: { mode: 'sitemap' } });
    expect(await crawled(tenant, bad.source_id)).toMatchObject({ status: 'failed' });
  });

  it('robots.txt that answers 503 forbids the crawl; its `*` and `$` rules are honoured', async () => {
    const tenant = await createTenant({ scopes: KNOWLEDGE });
    const down = 'https://robots-down.example.com';
    remotes.set(`${down}/robots.txt`, () => new Response('busy', { status: 503 }));
    remotes.set(`${down}/`, () => html('Home', '<h1>Home</h1><p>Nothing to read here at all.</p>'));
    const refused = await addSource(tenant, { kind: 'url', url: `${down}/` });
    const failed = await crawled(tenant, refused.source_id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/disallowed by robots\.txt/);
    const origin = 'https://robots-rules.example.com';
    remotes.set(`${origin}/robots.txt`, () => new Response('User-agent: *\nDisallow: /*.pdf$\nDisallow: /drafts*\n'));
    remotes.set(
      `${origin}/sitemap.xml`,
      () =>
        new Response(
          `<urlset>${['/manual.pdf', '/drafts-2026/notes', '/manual.pdf.html']
            .map((path) => `<url><loc>${origin}${path}</loc></url>`)
            .join('')}</urlset>`,
        ),
    );
    const read: string[] = [];
    for (const path of ['/manual.pdf', '/drafts-2026/notes', '/manual.pdf.html'])
      remotes.set(`${origin}${path}`, () => {
        read.push(path);
        return html('Manual', '<h1>Manual</h1><p>The manual explains the warranty terms.</p>');
      });
    const source = await addSource(tenant, { kind: 'url', url: `${origin}/sitemap.xml`, crawl: { mode: 'sitemap' } });
    expect(await crawled(tenant, source.source_id)).toMatchObject({ status: 'indexed', documents: 1 });
    expect(read).toEqual(['/manual.pdf.html']);
  });

  it('`/` and `/index.html` are one page of a site', async () => {
    const tenant = await createTenant({ scopes: KNOWLEDGE });
    const origin = 'https://index-site.example.com';
    remotes.set(`${origin}/robots.txt`, () => new Response('', { status: 404 }));
    remotes.set(`${origin}/`, () =>
      html('Home', '<h1>Home</h1><p>We repair bicycles of every kind.</p>', ['/index.html', '/about']),
    );
    remotes.set(`${origin}/index.html`, () => html('Home', '<h1>Home</h1><p>We repair bicycles of every kind.</p>'));
    remotes.set(`${origin}/about`, () => html('About', '<h1>About</h1><p>The workshop opened in 1998.</p>', ['/']));
    const source = await addSource(tenant, { kind: 'url', url: `${origin}/`, crawl: { mode: 'site', max_pages: 10 } });
    expect(await crawled(tenant, source.source_id)).toMatchObject({ status: 'indexed', documents: 2 });
  });

  it('what a page calls itself is cleaned at the door: no markup, no direction marks, no quotes in links', async () => {
    const tenant = await createTenant({ scopes: KNOWLEDGE });
    const origin = 'https://titles.example.com';
    remotes.set(`${origin}/robots.txt`, () => new Response('', { status: 404 }));
    remotes.set(`${origin}/page`, () =>
      html(
        'Refunds &lt;b&gt;bold&lt;/b&gt; \u202Efdp.exe',
        '<h2 id="x&quot; onmouseover=&quot;alert(1)">Refund policy</h2>' +
          '<p>Refunds are paid within five working days.</p>',
      ),
    );
    const source = await addSource(tenant, { kind: 'url', url: `${origin}/page` });
    expect((await crawled(tenant, source.source_id)).status).toBe('indexed');
    // What citations are made of, in the API, MCP and every page.
    const chunk = await platformDb
      .prepare('SELECT title, headings, url FROM knowledge_chunks WHERE source_id = ?')
      .bind(source.source_id)
      .first<{ title: string; headings: string; url: string }>();
    expect(chunk).toEqual({
      title: 'Refunds bold fdp.exe',
      headings: 'Refund policy',
      url: `${origin}/page#refund-policy`,
    });
  });
});

describe('syncs, hosts and questions, bounded', () => {
  it('a sync of a queued source answers that crawl; six syncs of a source an hour', async () => {
    const tenant = await createTenant({ scopes: KNOWLEDGE });
    const source = await addSource(tenant, {
      kind: 'qa',
      question: 'Is there parking?',
      answer: 'Yes, behind the shop.',
    });
    const sync = () => call(`/api/knowledge/sources/${source.source_id}/sync`, { method: 'POST', token: tenant.token });
    for (let index = 0; index < 6; index++) expect((await sync()).status).toBe(202);
    const refused = await sync();
    await expectProblem(refused, 429, 'rate_limited');
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0);
    // A queued source (its crawl waiting) answers as it is, and takes no slot.
    await platformDb
      .prepare("UPDATE knowledge_sources SET status = 'queued' WHERE id = ?")
      .bind(source.source_id)
      .run();
    const queued = await sync();
    expect(queued.status).toBe(202);
    expect(await json(queued)).toMatchObject({ status: 'queued' });
  });

  it('a host is asked at most 2 pages a second, whichever crawls ask it', async () => {
    const db = workerDb();
    const at = clock.now();
    // Two crawls of one host within the same second: two pages, then no turn before their deadline.
    const host = `polite-${crypto.randomUUID().slice(0, 8)}.example.com`;
    const first = hostTurn(db, () => at, at);
    const second = hostTurn(db, () => at, at);
    expect([await first(host), await second(host), await first(host), await second(host)]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    // Another host is not held by this one; this one's next turn comes a second later.
    expect(await first(`other-${host}`)).toBe(true);
    expect(await hostTurn(db, () => at + 1_000, at + 1_000)(host)).toBe(true);
  });

  it('a key asks at most its rate a minute, over the API and MCP alike', async () => {
    const tenant = await createTenant({ scopes: KNOWLEDGE });
    const limited = await issueKey(tenant.workspaceId, { scopes: ['execute', ...KNOWLEDGE], rate_limit_per_minute: 3 });
    const ask = () => call('/api/knowledge/ask', { token: limited.token, body: { question: 'Is there parking?' } });
    for (let index = 0; index < 3; index++) expect((await ask()).status).toBe(200);
    const refused = await ask();
    await expectProblem(refused, 429, 'rate_limited');
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0);
    const mcp = await call('/mcp', {
      token: limited.token,
      headers: { Accept: 'application/json, text/event-stream' },
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'ask_knowledge', arguments: { question: 'Parking?' } },
      },
    });
    expect(JSON.stringify(await json(mcp))).toContain('rate_limited');
    // The workspace's other key still asks.
    expect((await call('/api/knowledge/ask', { token: tenant.token, body: { question: 'Parking?' } })).status).toBe(
      200,
    );
  });

  it('an anonymous body is refused before it is read: 401, never 413', async () => {
    const big = JSON.stringify({
      kind: 'document',
      title: 'x',
      content_type: 'text/plain',
      content: 'a'.repeat(4 * 1024 * 1024),
    });
    const response = await workerFetch('http://gateway.test/api/knowledge/sources', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: big,
    });
    expect(response.status).toBe(401);
  });

  it('a word in thousands of passages is read only so far: a question costs the same at 4,000 and 8,000', async () => {
    /** A workspace of `passages` passages that all hold the question's two words; the rows one question reads. */
    async function rowsRead(passages: number) {
      const workspaceId = `ws_common_${crypto.randomUUID().slice(0, 8)}`;
      const space = await platformDb
        .prepare('INSERT INTO knowledge_spaces (workspace_id, next_chunk) VALUES (?, ?) RETURNING ordinal')
        .bind(workspaceId, passages)
        .first<{ ordinal: number }>();
      await platformDb
        .prepare(
          `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ? - 1)
         INSERT INTO knowledge_chunks (id, workspace_id, source_id, title, headings, body, url, language)
         SELECT ? * 16777216 + i, ?, 'ks_common', 'Help', 'Part', 'shipping rates ' || i, NULL, 'en' FROM n`,
        )
        .bind(passages, space!.ordinal, workspaceId)
        .run();
      const counter: QueryCounter = { roundTrips: 0, statements: 0 };
      await passagesQuery(createDatabase(countingD1(env.DIRECTORY, counter)), workspaceId, 'shipping rates');
      return counter.rowsRead!;
    }
    const [smaller, larger] = [await rowsRead(2 * POSTINGS_PER_WORD), await rowsRead(4 * POSTINGS_PER_WORD)];
    // Read to their cap, the words' postings cost the same; only the passage count grows (one row
    // each). Read whole, each word would add thousands of rows more.
    expect(larger - smaller).toBeLessThan(2 * POSTINGS_PER_WORD + 500);
  });
});
