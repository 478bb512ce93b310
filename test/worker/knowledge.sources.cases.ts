/**
 * The owner's knowledge (docs/design/knowledge.md): sources in, the FTS5 index, asking. Documents
 * (Markdown, HTML, text), Q&A pairs and URLs (a page, a sitemap, robots.txt honoured) are indexed
 * into chunks with their heading paths and anchors; an answer is extractive with its citation, or
 * declined; two workspaces that share words never see each other's passages; hostile queries give
 * no 5xx; sources past the limits are 422.
 */
import { env } from 'cloudflare:test';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { countingD1, createDatabase, type QueryCounter } from '../../worker/lib/db';
import { askKnowledge, passagesQuery, requeueStuckSources } from '../../worker/platform/knowledge';
import { statsWrite } from '../../worker/platform/knowledge/indexing';
import { STUCK_AFTER_MS } from '../../worker/platform/knowledge/sources';
import { installRemotes, remotes } from './agent-helpers';
import { getPage, postForm, signUpOwner } from './console-helpers';
import { call, createTenant, expectProblem, issueKey, json, type Tenant, shardDb, workerDb } from './helpers';
import { platformDb } from './platform-db';

const KNOWLEDGE = ['knowledge:read', 'knowledge:write'];

const REFUNDS_MARKDOWN = `# Billing help

Our billing is monthly and every invoice is sent by email.

## Refunds

You can ask for a refund within 30 days of your purchase. Refunds are paid back to the card you used, within five
working days. Write to billing@example.com with your invoice number.

## Changing your plan

Upgrades take effect at once; a downgrade takes effect at the end of the month.
`;

async function addSource(tenant: Tenant, body: Record<string, unknown>) {
  const response = await call('/api/knowledge/sources', { token: tenant.token, body });
  expect(response.status, await response.clone().text()).toBe(201);
  return json(response);
}

const ask = (tenant: Tenant, question: string, extra: Record<string, unknown> = {}) =>
  call('/api/knowledge/ask', { token: tenant.token, body: { question, ...extra } });

beforeEach(() => installRemotes());
afterEach(() => vi.restoreAllMocks());

describe('sources', () => {
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await createTenant({ scopes: KNOWLEDGE });
  });

  it('a Markdown document is cut at its headings, each passage with its heading path and anchor', async () => {
    const source = await addSource(tenant, {
      kind: 'document',
      title: 'Billing help',
      url: 'https://help.example.com/billing',
      content_type: 'text/markdown',
      content: REFUNDS_MARKDOWN,
    });
    expect(source).toMatchObject({ kind: 'document', status: 'indexed', documents: 1, error: null });
    expect(source.chunks).toBe(3);
    const chunks = await platformDb
      .prepare('SELECT headings, url FROM knowledge_chunks WHERE source_id = ? ORDER BY id')
      .bind(source.source_id)
      .all();
    expect(chunks.results).toEqual([
      { headings: 'Billing help', url: 'https://help.example.com/billing#billing-help' },
      { headings: 'Billing help › Refunds', url: 'https://help.example.com/billing#refunds' },
      { headings: 'Billing help › Changing your plan', url: 'https://help.example.com/billing#changing-your-plan' },
    ]);

    const answer = await json(await ask(tenant, 'How long do I have to ask for a refund?'));
    expect(answer).toMatchObject({ declined: null, chosen_by: 'extractive', language: 'en' });
    expect(answer.answer).toMatch(/^From “Billing help”: /);
    expect(answer.answer).toContain('within 30 days of your purchase');
    expect(answer.answer.length).toBeLessThanOrEqual(630);
    expect(answer.confidence).toBeGreaterThanOrEqual(0.5);
    expect(answer.citations).toEqual([
      expect.objectContaining({
        source_id: source.source_id,
        title: 'Billing help › Refunds',
        url: 'https://help.example.com/billing#refunds',
      }),
    ]);
    // Read, listed, and gone with its passages when deleted.
    expect(await json(await call(`/api/knowledge/sources/${source.source_id}`, { token: tenant.token }))).toEqual(
      source,
    );
    const listed = await json(await call('/api/knowledge/sources', { token: tenant.token }));
    expect(listed.data.map((entry: { source_id: string }) => entry.source_id)).toContain(source.source_id);
    const deleted = await call(`/api/knowledge/sources/${source.source_id}`, { method: 'DELETE', token: tenant.token });
    expect(deleted.status).toBe(204);
    expect(
      await platformDb
        .prepare('SELECT COUNT(*) AS n FROM knowledge_chunks WHERE source_id = ?')
        .bind(source.source_id)
        .first(),
    ).toEqual({ n: 0 });
    expect((await json(await ask(tenant, 'How long do I have to ask for a refund?'))).declined).toBe('no_match');
  });

  it('a question the knowledge does not cover is declined, never guessed', async () => {
    await addSource(tenant, {
      kind: 'qa',
      question: 'Do you ship to Canada?',
      answer: 'Yes, we ship to Canada within ten days.',
    });
    const shipping = await json(await ask(tenant, 'Do you ship to Canada?'));
    // A Q&A pair's answer is said as the owner wrote it, with no "From …" before it.
    expect(shipping.answer).toBe('Yes, we ship to Canada within ten days.');
    expect(shipping.citations[0].url).toBeNull();
    const unrelated = await json(await ask(tenant, 'What is the capital of Mongolia?'));
    expect(unrelated).toMatchObject({ answer: null, citations: [], declined: 'no_match' });
    // Covered only in part: a word or two of a long question is not an answer.
    const partial = await json(await ask(tenant, 'Can my cat ship itself to Mars with a rocket tomorrow morning?'));
    expect(partial.answer).toBeNull();
    expect(['low_confidence', 'no_match']).toContain(partial.declined);
  });

  it('an HTML document keeps its headings’ ids as anchors and leaves scripts and navigation out', async () => {
    const source = await addSource(tenant, {
      kind: 'document',
      title: 'Opening hours',
      url: 'https://help.example.com/hours',
      content_type: 'text/html',
      content:
        '<html><head><title>Hours</title><script>var secret = "nope";</script></head><body>' +
        '<nav>Home · Shop · Cart</nav><h1 id="hours">Hours</h1><p>We open at 9&nbsp;am &amp; close at 6 pm.</p>' +
        '<h2 id="sundays">Sundays</h2><p>On Sundays the shop is closed.</p></body></html>',
    });
    expect(source.status).toBe('indexed');
    const chunks = await platformDb
      .prepare('SELECT headings, body, url FROM knowledge_chunks WHERE source_id = ? ORDER BY id')
      .bind(source.source_id)
      .all<{ headings: string; body: string; url: string }>();
    expect(chunks.results.map((chunk) => chunk.url)).toEqual([
      'https://help.example.com/hours#hours',
      'https://help.example.com/hours#sundays',
    ]);
    expect(chunks.results[0]!.body).toBe('We open at 9 am & close at 6 pm.');
    expect(JSON.stringify(chunks.results)).not.toMatch(/secret|Cart/);
    const answer = await json(await ask(tenant, 'Are you open on Sundays?'));
    expect(answer.answer).toContain('closed');
    expect(answer.citations[0].url).toBe('https://help.example.com/hours#sundays');
  });

  it('refuses bad sources with pointers, and sources past the workspace’s limits', async () => {
    await expectProblem(
      await call('/api/knowledge/sources', { token: tenant.token, body: { kind: 'video', url: 'https://x.example' } }),
      422,
      'validation_failed',
    );
    await expectProblem(
      await call('/api/knowledge/sources', {
        token: tenant.token,
        body: { kind: 'document', title: 'Huge', content_type: 'text/plain', content: 'x'.repeat(1024 * 1024 + 1) },
      }),
      422,
      'validation_failed',
    );
    await expectProblem(
      await call('/api/knowledge/sources', { token: tenant.token, body: { kind: 'url', url: 'ftp://example.com/' } }),
      422,
      'validation_failed',
    );
    const small = await createTenant({ scopes: KNOWLEDGE });
    await addSource(small, { kind: 'qa', question: 'First one?', answer: 'Yes.' });
    await platformDb
      .prepare('UPDATE knowledge_spaces SET max_sources = 1 WHERE workspace_id = ?')
      .bind(small.workspaceId)
      .run();
    const over = await expectProblem(
      await call('/api/knowledge/sources', {
        token: small.token,
        body: { kind: 'qa', question: 'Second?', answer: 'No.' },
      }),
      422,
      'validation_failed',
    );
    expect(over.errors).toEqual([expect.objectContaining({ pointer: '/kind' })]);
  });

  it('a large document is indexed by the queue', async () => {
    const paragraph = 'The warehouse ships parcels every weekday morning from the northern depot. ';
    const content = `# Warehouse\n\n${paragraph.repeat(3500)}\n\n## Returns desk\n\nThe returns desk opens at noon.`;
    const source = await addSource(tenant, {
      kind: 'document',
      title: 'Warehouse',
      content_type: 'text/markdown',
      content,
    });
    expect(source.status).toBe('queued');
    await vi.waitUntil(
      async () =>
        (await json(await call(`/api/knowledge/sources/${source.source_id}`, { token: tenant.token }))).status ===
        'indexed',
      { timeout: 15_000, interval: 100 },
    );
    const answer = await json(await ask(tenant, 'When does the returns desk open?'));
    expect(answer.answer).toContain('opens at noon');
  });

  it('a source whose queue message was lost is sent again by housekeeping, once it has waited', async () => {
    const source = await addSource(tenant, {
      kind: 'qa',
      question: 'Is there parking?',
      answer: 'Yes, behind the shop.',
    });
    // As if the queue had dropped its message after its retries: still queued.
    const { updated_at: queuedAt } = (await platformDb
      .prepare("UPDATE knowledge_sources SET status = 'queued' WHERE id = ? RETURNING updated_at")
      .bind(source.source_id)
      .first<{ updated_at: number }>())!;
    const sent: unknown[] = [];
    const queue = {
      sendBatch: async (messages: unknown[]) => void sent.push(...messages),
    } as unknown as Queue<unknown>;
    const db = workerDb();
    expect(await requeueStuckSources(db, queue, queuedAt + STUCK_AFTER_MS - 1)).toBe(0);
    const later = queuedAt + STUCK_AFTER_MS + 1;
    expect(await requeueStuckSources(db, queue, later)).toBeGreaterThanOrEqual(1);
    expect(sent).toContainEqual({ body: { kind: 'knowledge.index', source_id: source.source_id } });
    // Sent again just now: not again on the next tick.
    sent.length = 0;
    await requeueStuckSources(db, queue, later + 60_000);
    expect(sent).not.toContainEqual({ body: { kind: 'knowledge.index', source_id: source.source_id } });
  });
});

describe('URL sources', () => {
  it('a sitemap’s pages are fetched through the egress guard, honouring robots.txt', async () => {
    const tenant = await createTenant({ scopes: KNOWLEDGE });
    const origin = 'https://docs-site.example.com';
    remotes.set(`${origin}/robots.txt`, () => new Response('User-agent: *\nDisallow: /private/\n'));
    remotes.set(
      `${origin}/sitemap.xml`,
      () =>
        new Response(
          `<urlset><url><loc>${origin}/guide/setup</loc></url><url><loc>${origin}/private/notes</loc></url>` +
            '<url><loc>https://elsewhere.example.com/x</loc></url></urlset>',
        ),
    );
    remotes.set(
      `${origin}/guide/setup`,
      () =>
        new Response(
          '<title>Setup guide</title><h1 id="setup">Setup</h1>' +
            '<p>Install the agent with the one-line installer script.</p>',
          {
            headers: { 'Content-Type': 'text/html; charset=utf-8' },
          },
        ),
    );
    remotes.set(`${origin}/private/notes`, () => new Response('<p>Internal notes about the installer.</p>'));
    const source = await addSource(tenant, {
      kind: 'url',
      url: `${origin}/sitemap.xml`,
      crawl: { mode: 'sitemap', max_pages: 10 },
    });
    expect(source.status).toBe('queued');
    await vi.waitUntil(
      async () =>
        (await json(await call(`/api/knowledge/sources/${source.source_id}`, { token: tenant.token }))).status !==
        'queued',
      { timeout: 15_000, interval: 100 },
    );
    const indexed = await json(await call(`/api/knowledge/sources/${source.source_id}`, { token: tenant.token }));
    // Listed by its page's title, not its address.
    expect(indexed).toMatchObject({ status: 'indexed', documents: 1, title: 'Setup guide' });
    const answer = await json(await ask(tenant, 'How do I install the agent?'));
    expect(answer.citations[0].url).toBe(`${origin}/guide/setup#setup`);
    expect(JSON.stringify(answer)).not.toContain('Internal notes');
  });

  it('a URL the egress guard refuses fails the source with the reason', async () => {
    const tenant = await createTenant({ scopes: KNOWLEDGE });
    const source = await addSource(tenant, { kind: 'url', url: 'http://169.254.169.254/latest/meta-data' });
    await vi.waitUntil(
      async () =>
        (await json(await call(`/api/knowledge/sources/${source.source_id}`, { token: tenant.token }))).status ===
        'failed',
      { timeout: 15_000, interval: 100 },
    );
    const failed = await json(await call(`/api/knowledge/sources/${source.source_id}`, { token: tenant.token }));
    expect(failed.error).toMatch(/refused/);
  });
});

describe('isolation and hostile questions', () => {
  it('two workspaces that share words never see each other’s passages', async () => {
    const [a, b] = [await createTenant({ scopes: KNOWLEDGE }), await createTenant({ scopes: KNOWLEDGE })];
    const sourceA = await addSource(a, {
      kind: 'qa',
      question: 'What is the wifi password?',
      answer: 'The wifi password for guests is SUNFLOWER-A.',
    });
    await addSource(b, {
      kind: 'qa',
      question: 'What is the wifi password?',
      answer: 'The wifi password for guests is MOONLIGHT-B.',
    });
    const fromA = await json(await ask(a, 'What is the wifi password?'));
    expect(fromA.answer).toContain('SUNFLOWER-A');
    expect(fromA.citations.map((citation: { source_id: string }) => citation.source_id)).toEqual([sourceA.source_id]);
    expect(JSON.stringify(fromA)).not.toContain('MOONLIGHT');
    expect(JSON.stringify(await json(await ask(b, 'wifi password')))).not.toContain('SUNFLOWER');
    // The database keeps a chunk in its workspace's id range, whoever writes it.
    const ordinal = await platformDb
      .prepare('SELECT ordinal FROM knowledge_spaces WHERE workspace_id = ?')
      .bind(a.workspaceId)
      .first<{ ordinal: number }>();
    await expect(
      platformDb
        .prepare(
          'INSERT INTO knowledge_chunks (id, workspace_id, source_id, title, headings, body) ' +
            "VALUES (?, ?, 'ks_x', 't', '', 'b')",
        )
        .bind(ordinal!.ordinal * 2 ** 24 + 5_000_000, b.workspaceId)
        .run(),
    ).rejects.toThrow(/knowledge_chunk_range/);
  });

  it('30 hostile questions give an answer or a decline, never a 5xx', async () => {
    const tenant = await createTenant({ scopes: KNOWLEDGE });
    await addSource(tenant, { kind: 'qa', question: 'Where is the office?', answer: 'At 1 Main Street.' });
    const hostile = [
      '"',
      '""',
      '"unterminated',
      'office"',
      '*',
      'office*',
      '^office',
      'title:office',
      'body : office',
      '{title body}: office',
      'office NEAR street',
      'NEAR(office street, 2)',
      'office AND',
      'OR',
      'NOT office',
      'office OR OR OR',
      '(office',
      'office)',
      '-office',
      '+office',
      'office\u0000street',
      '\u202eoffice',
      'office; DROP TABLE knowledge_chunks; --',
      "' OR 1=1 --",
      'x'.repeat(2_000),
      `${'office '.repeat(280)}`,
      '🙂🙂🙂',
      'ｏｆｆｉｃｅ',
      'öffice straße',
      '\t\n\r',
    ];
    expect(hostile).toHaveLength(30);
    for (const question of hostile) {
      const response = await ask(tenant, question);
      expect(response.status, question).toBeLessThan(500);
      if (response.status === 200) {
        const answer = await json(response);
        expect(answer.answer === null || typeof answer.answer === 'string').toBe(true);
      }
    }
    // 5,000 characters is refused as input (at most 2,000), not as a server error.
    await expectProblem(await ask(tenant, 'office '.repeat(715)), 422, 'validation_failed');
  });
});

describe('the console’s Knowledge page', () => {
  it('an owner adds a Q&A pair, tries a question, sees a decline, and turns a channel’s knowledge on', async () => {
    const owner = await signUpOwner();
    const ws = `?ws=${owner.workspaceId}`;
    const page = await getPage(`/integrations/knowledge${ws}`, owner.cookie);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('No sources yet.');
    const added = await postForm(
      `/integrations/knowledge/sources${ws}`,
      { kind: 'qa', title: 'Do you deliver on Saturdays?', content: 'Yes, on Saturday mornings until noon.' },
      { cookie: owner.cookie },
    );
    expect(added.status).toBe(303);
    expect(added.headers.get('Location')).toContain('notice=source_added');
    // A bad form is the page again, with the field's message, never a 500.
    const bad = await postForm(
      `/integrations/knowledge/sources${ws}`,
      { kind: 'url', url: 'not a url' },
      {
        cookie: owner.cookie,
      },
    );
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain('field-error');
    const tried = await (
      await postForm(
        `/integrations/knowledge/try${ws}`,
        { question: 'Do you deliver on Saturdays?' },
        { cookie: owner.cookie },
      )
    ).text();
    expect(tried).toContain('Saturday mornings until noon');
    const declined = await (
      await postForm(
        `/integrations/knowledge/try${ws}`,
        { question: 'Where can I park my boat?' },
        { cookie: owner.cookie },
      )
    ).text();
    expect(declined).toContain('Declined: nothing in your knowledge covers this question.');
    // The channel setting, as the API shows it.
    const channelKey = await issueKey(owner.workspaceId, { scopes: ['channels:write'] });
    const channel = await call('/api/integrations/channels', {
      token: channelKey.token,
      body: { name: 'Shop', domain: 'consultation' },
    });
    expect(channel.status, await channel.clone().text()).toBe(201);
    const key = (await json(channel)).channel_key;
    const saved = await postForm(
      `/integrations/knowledge/channels/${key}${ws}`,
      { enabled: '1', min_confidence: '0.6' },
      { cookie: owner.cookie },
    );
    expect(saved.status).toBe(303);
    const stored = await platformDb.prepare('SELECT knowledge FROM channels WHERE channel_key = ?').bind(key).first();
    expect(JSON.parse(String(stored!.knowledge))).toEqual({ enabled: true, min_confidence: 0.6 });
  });
});

describe('the cost of a question', () => {
  /** A workspace's index filled straight in D1 (its triggers index each row), as many passages as asked. */
  async function filledWorkspace(workspaceId: string, passages: number) {
    const space = await platformDb
      .prepare('INSERT INTO knowledge_spaces (workspace_id, next_chunk) VALUES (?, ?) RETURNING ordinal')
      .bind(workspaceId, passages)
      .first<{ ordinal: number }>();
    await platformDb
      .prepare(
        `INSERT INTO knowledge_sources (id, workspace_id, kind, title, status, created_at, updated_at)
       VALUES (?, ?, 'document', 'Help', 'indexed', 0, 0)`,
      )
      .bind(`ks_${workspaceId}`, workspaceId)
      .run();
    await platformDb
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ? - 1)
       INSERT INTO knowledge_chunks (id, workspace_id, source_id, title, headings, body, url, language)
       SELECT ? * 16777216 + i, ?, ?, 'Help', 'Part ' || (i % 50),
         'alpha' || (i % 300) || ' beta' || (i % 70) || ' delivery times and common words', NULL, 'en' FROM n`,
      )
      .bind(passages, space!.ordinal, workspaceId, `ks_${workspaceId}`)
      .run();
    // What indexing keeps for ranking: the workspace's passages and their fields' words.
    const db = shardDb();
    await db.batch([statsWrite(db, workspaceId)]);
  }

  it('reads the same rows of D1 whatever the other workspaces hold', async () => {
    const tag = Date.now().toString(36);
    await filledWorkspace(`ws_cost_${tag}`, 500);
    const rowsRead = async (question: string) => {
      const counter: QueryCounter = { roundTrips: 0, statements: 0 };
      await passagesQuery(createDatabase(countingD1(env.DIRECTORY, counter)), `ws_cost_${tag}`, question);
      return counter.rowsRead;
    };
    const questions = ['alpha5 beta3', 'What are the delivery times?', 'common words alpha7'];
    const before = await Promise.all(questions.map(rowsRead));
    await filledWorkspace(`ws_other_${tag}`, 5_000);
    const after = await Promise.all(questions.map(rowsRead));
    // Within a few rows (D1 counts a range's boundary row): never the other workspace's 5,000.
    for (const [index, rows] of after.entries())
      expect(Math.abs(rows! - before[index]!), questions[index]).toBeLessThan(10);
  });

  it('ranks by the workspace’s own statistics: the same scores when another fills with the same words', async () => {
    const tag = Date.now().toString(36);
    await filledWorkspace(`ws_rank_${tag}`, 400);
    const db = shardDb();
    const answers = (workspaceId: string) =>
      Promise.all(
        ['alpha5 beta3', 'What are the delivery times?', 'common words alpha7'].map((question) =>
          askKnowledge(db, workspaceId, question, { language: 'en', evaluate: true, minConfidence: 0 }),
        ),
      );
    const before = await answers(`ws_rank_${tag}`);
    expect(before.every((answer) => answer.evidence && answer.confidence > 0)).toBe(true);
    // Another workspace with every word of this one, ten times over: its statistics are its own.
    await filledWorkspace(`ws_crowd_${tag}`, 4_000);
    expect(await answers(`ws_rank_${tag}`)).toEqual(before);
    const stats = await platformDb
      .prepare('SELECT passages FROM knowledge_spaces WHERE workspace_id = ?')
      .bind(`ws_rank_${tag}`)
      .first<{ passages: number }>();
    expect(stats!.passages).toBe(400);
  });
});
