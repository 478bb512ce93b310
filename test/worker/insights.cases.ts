import { beforeAll, describe, expect, it } from 'vitest';
import { rollUp } from '../../worker/platform/rollups';
import { getPage, postForm, signUpOwner, signUpPlatformAdmin } from './console-helpers';
import {
  ADMIN_TOKEN,
  call,
  createTenant,
  expectProblem,
  expectStrictPageHeaders,
  issueKey,
  json,
  workerDb,
} from './helpers';
import { createActiveExpert, createChannel, SITE, sessionCall } from './provider-helpers';
import { clock, moveClockForTests, resetClockForTests } from '../../worker/lib/clock';
import { platformDb, type ViewStatement } from './platform-db';

const db = () => workerDb();
const DAY = '2026-10-01';
const T0 = Date.parse(`${DAY}T10:00:00Z`);
let serial = 0;
const id = (prefix: string) => `${prefix}_hist${clock.now().toString(36)}${++serial}`;

/** One workspace's hand-built day: what the sweep will count, with the answers worked out by hand. */
async function buildHistory(workspaceId: string, channels: { a: string; b: string }) {
  const channelIds = await platformDb
    .prepare('SELECT id, channel_key FROM channels WHERE channel_key IN (?, ?)')
    .bind(channels.a, channels.b)
    .all<{ id: number; channel_key: string }>();
  const channelId = (key: string) => channelIds.results.find((row) => row.channel_key === key)!.id;
  const statements: ViewStatement[] = [];
  const event = (type: string, data: Record<string, unknown>, at = T0) =>
    statements.push(
      platformDb
        .prepare('INSERT INTO events (id, workspace_id, type, data, created_at) VALUES (?, ?, ?, ?, ?)')
        .bind(id('evt'), workspaceId, type, JSON.stringify(data), at),
    );
  // Conversations: three on A, one on B.
  const conversationIds: string[] = [];
  for (const key of [channels.a, channels.a, channels.a, channels.b]) {
    const conversationId = id('cnv');
    conversationIds.push(conversationId);
    statements.push(
      platformDb
        .prepare(
          `INSERT INTO conversations (id, workspace_id, kind, channel_id, created_at, last_seen_at)
          VALUES (?, ?, 'channel', ?, ?, ?)`,
        )
        .bind(conversationId, workspaceId, channelId(key), T0, T0),
    );
  }
  // Executions: two answered by an agent on A, one by a robot on B, one held on A, one rejected on B.
  event('execution.completed', { channel_key: channels.a, disposition: 'routed', handled_by: { kind: 'agent' } });
  event('execution.completed', { channel_key: channels.a, disposition: 'routed', handled_by: { kind: 'agent' } });
  event('execution.completed', { channel_key: channels.b, disposition: 'routed', handled_by: { kind: 'robot' } });
  event('execution.completed', { channel_key: channels.a, disposition: 'held' });
  event('execution.completed', { channel_key: channels.b, disposition: 'rejected' });
  // Three leads: L1 (A) won with a value, L2 (A) released and open again, L3 (B) lost.
  const leads = [
    { id: id('lead'), channel: channels.a, topic: 'billing', claimAfter: 60, replyAfter: 300, end: 'won', of: 0 },
    { id: id('lead'), channel: channels.a, topic: 'vat', claimAfter: 600, replyAfter: null, end: 'released', of: 1 },
    { id: id('lead'), channel: channels.b, topic: 'billing', claimAfter: 30, replyAfter: 90, end: 'lost', of: 3 },
  ];
  for (const lead of leads) {
    event('lead.created', { lead_id: lead.id, channel_key: lead.channel, topic: lead.topic });
    const claimAt = T0 + lead.claimAfter * 1000;
    const replyAt = lead.replyAfter === null ? null : T0 + lead.replyAfter * 1000;
    statements.push(
      platformDb
        .prepare(
          `INSERT INTO leads (id, workspace_id, demand_id, channel_id, conversation_id, status, trigger, topic,
          first_claimed_at, first_contacted_at, created_at) VALUES (?, ?, ?, ?, ?, ?, 'consultation', ?, ?, ?, ?)`,
        )
        .bind(
          lead.id,
          workspaceId,
          id('dem'),
          channelId(lead.channel),
          conversationIds[lead.of],
          'open',
          lead.topic,
          claimAt,
          replyAt,
          T0,
        ),
    );
    const moves: Array<[string | null, string, number, number | null]> = [
      [null, 'open', T0, null],
      ['open', 'claimed', claimAt, null],
    ];
    if (lead.end === 'released') moves.push(['claimed', 'open', claimAt + 1000, null]);
    else {
      moves.push(['claimed', 'contacted', replyAt!, null], ['contacted', 'qualified', replyAt! + 1000, null]);
      moves.push(['qualified', lead.end, replyAt! + 2000, lead.end === 'won' ? 120_000 : null]);
    }
    for (const [from, to, at, value] of moves)
      statements.push(
        platformDb
          .prepare(
            `INSERT INTO lead_events (id, lead_id, from_status, to_status, actor_kind, created_at, value_minor,
            value_currency) VALUES (?, ?, ?, ?, 'system', ?, ?, ?)`,
          )
          .bind(id('lev'), lead.id, from, to, at, value, value === null ? null : 'EUR'),
      );
  }
  // The agents' attempts: agent X answered twice in the first conversation and declined once; robot Y
  // answered once, in the fourth. Each answer is an agent message of its conversation.
  for (const [provider, outcome, of] of [
    ['prv_histx', 'success', 0],
    ['prv_histx', 'success', 0],
    ['prv_histx', 'declined', 2],
    ['prv_histy', 'success', 3],
  ] as const) {
    const executionId = id('exe');
    statements.push(
      platformDb
        .prepare(
          `INSERT INTO agent_attempts (id, execution_id, provider_id, workspace_id, outcome, duration_ms, created_at)
          VALUES (?, ?, ?, ?, ?, 10, ?)`,
        )
        .bind(id('att'), executionId, provider, workspaceId, outcome, T0),
    );
    if (outcome === 'success')
      statements.push(
        platformDb
          .prepare(
            `INSERT INTO messages (id, conversation_id, role, text, author_id, execution_id, created_at)
            VALUES (?, ?, 'agent', 'An answer.', ?, ?, ?)`,
          )
          .bind(id('msg'), conversationIds[of], provider, executionId, T0),
      );
  }
  await platformDb.batch(statements);
}

async function sweepAll() {
  // A few ticks: the sweep reads 5,000 rows of a source a tick, and the whole suite shares the tables.
  for (let tick = 0; tick < 4; tick++) await rollUp(db());
}

describe('insights against a hand-built history', () => {
  let owner: Awaited<ReturnType<typeof signUpOwner>>;
  let channels: { a: string; b: string };
  const insights = async (query: string) =>
    call(`/api/insights?workspace_id=${owner.workspaceId}&${query}`, {
      headers: { Cookie: `egw_session=${owner.cookie}` },
    });

  beforeAll(async () => {
    owner = await signUpOwner();
    const key = await issueKey(owner.workspaceId, { scopes: ['channels:write', 'channels:read', 'execute'] });
    channels = { a: await createChannel(key.token), b: await createChannel(key.token) };
    await buildHistory(owner.workspaceId, channels);
    // Another tenant's identical day, never counted here.
    const other = await createTenant({ scopes: ['channels:write', 'channels:read', 'execute'] });
    await buildHistory(other.workspaceId, { a: await createChannel(other.token), b: await createChannel(other.token) });
    await sweepAll();
  });

  it('counts the funnel, the statuses, the percentiles, the value, the agents and the topics', async () => {
    const view = await json(await insights(`from=${DAY}&to=${DAY}`));
    expect(view).toMatchObject({ from: DAY, to: DAY, channel: null });
    expect(view.totals).toEqual({
      conversations: 4,
      answered_by_agent: 2,
      answered_by_robot: 1,
      leads: 3,
      claimed: 3,
      replied: 2,
      held: 1,
      rejected: 1,
      leads_by_status: { open: 1, claimed: 0, contacted: 0, qualified: 0, won: 1, lost: 1 },
      // First claims after 30, 60 and 600 s: the median is 60, the 90th percentile 600.
      time_to_first_claim_s: { p50: 60, p90: 600 },
      // First replies after 90 and 300 s.
      time_to_first_reply_s: { p50: 90, p90: 300 },
      won_rate: 0.333,
      won_value: [{ currency: 'EUR', value_minor: 120_000 }],
      // Each step a part of the one before: the second answer in a conversation counts it once.
      funnel: { conversations: 4, answered: 2, leads: 3, claimed: 3, replied: 2, won: 1 },
      api_leads: 0,
      knowledge: { answered: 0, declined: 0, conversations: 0, handoffs: 0, resolution_rate: null },
    });
    expect(view.days).toEqual([
      {
        date: DAY,
        conversations: 4,
        answered_by_knowledge: 0,
        answered_by_agent: 2,
        answered_by_robot: 1,
        leads: 3,
        won: 1,
      },
    ]);
    expect(view.agents).toEqual([
      { provider_id: 'prv_histx', display_name: null, attempts: 3, answered: 2, declined: 1 },
      { provider_id: 'prv_histy', display_name: null, attempts: 1, answered: 1, declined: 0 },
    ]);
    expect(view.topics).toEqual([
      { topic: 'billing', count: 2 },
      { topic: 'vat', count: 1 },
    ]);
  });

  it('filters by channel', async () => {
    const view = await json(await insights(`from=${DAY}&to=${DAY}&channel=${channels.a}`));
    expect(view.channel).toBe(channels.a);
    expect(view.totals).toMatchObject({
      conversations: 3,
      answered_by_agent: 2,
      answered_by_robot: 0,
      leads: 2,
      held: 1,
      rejected: 0,
      leads_by_status: { open: 1, won: 1, lost: 0 },
      time_to_first_claim_s: { p50: 60, p90: 600 },
      time_to_first_reply_s: { p50: 300, p90: 300 },
      won_rate: 0.5,
    });
  });

  it('answers zeros and nulls for an empty range, and a day per date of a longer one', async () => {
    const empty = await json(await insights('from=2026-01-01&to=2026-01-07'));
    expect(empty.totals).toMatchObject({
      conversations: 0,
      leads: 0,
      time_to_first_claim_s: { p50: null, p90: null },
      won_rate: null,
      won_value: [],
    });
    expect(empty.days).toHaveLength(7);
    const week = await json(await insights('from=2026-09-28&to=2026-10-04'));
    expect(week.days.map((day: { date: string }) => day.date)).toEqual([
      '2026-09-28',
      '2026-09-29',
      '2026-09-30',
      '2026-10-01',
      '2026-10-02',
      '2026-10-03',
      '2026-10-04',
    ]);
    expect(week.totals.conversations).toBe(4);
  });

  it('draws the page, and each of its tables downloads as CSV with the API’s numbers', async () => {
    const range = `ws=${owner.workspaceId}&from=${DAY}&to=${DAY}`;
    const page = await getPage(`/integrations/insights?${range}`, owner.cookie);
    expect(page.status).toBe(200);
    expectStrictPageHeaders(page);
    const html = await page.text();
    expect(html.match(/<svg/g)).toHaveLength(2);
    expect(html).toContain(
      'Visitors’ conversations: 4; Became leads: 3; Claimed by an expert: 3; Replied to: 2; Won: 1',
    );
    expect(html).toContain('2 of 4 were answered by an agent or robot at least once.');
    expect(html).toContain('<td data-label="Value">1 min</td>');
    expect(html).toContain('€1,200.00');
    const csv = async (table: string) =>
      (await (await getPage(`/integrations/insights/${table}.csv?${range}`, owner.cookie)).text()).trim().split('\r\n');
    expect(await csv('funnel')).toEqual([
      'step,count',
      'Visitors’ conversations,4',
      'Became leads,3',
      'Claimed by an expert,3',
      'Replied to,2',
      'Won,1',
    ]);
    expect(await csv('days')).toEqual([
      'day,Answered from your knowledge,Answered by an agent,Answered by a robot,Leads for experts',
      `${DAY},0,2,1,3`,
    ]);
    expect(await csv('agents')).toEqual(['agent,asked,answered,declined', 'prv_histx,3,2,1', 'prv_histy,1,1,0']);
    // A provider's name is the tenant's text, not a formula a spreadsheet runs (one CSV writer for every export).
    await platformDb.batch([
      platformDb.prepare(
        `INSERT INTO users (id, email, password_hash, role, created_at, updated_at)
          VALUES ('usr_histy', 'histy@x.test', 'x', 'provider', 0, 0)`,
      ),
      platformDb.prepare(
        `INSERT INTO providers (id, user_id, status, kind, display_name, created_at, updated_at)
          VALUES ('prv_histy', 'usr_histy', 'active', 'robot', '=HYPERLINK("http://evil.test","x")', 0, 0)`,
      ),
    ]);
    const agents = await getPage(`/integrations/insights/agents.csv?${range}`, owner.cookie);
    expect(agents.headers.get('X-Content-Type-Options')).toBe('nosniff');
    expect((await agents.text()).split('\r\n')[2]).toBe(`"'=HYPERLINK(""http://evil.test"",""x"")",1,1,0`);
    expect(await csv('topics')).toEqual(['topic,leads', 'billing,2', 'vat,1']);
    expect(await csv('outcomes')).toContain('Won value,120000,minor units of EUR');
    expect(await csv('outcomes')).toContain('"First claim, median",60,seconds');
  });

  it('refuses a bad range, another tenant’s channel, and a key without channels:read', async () => {
    await expectProblem(await insights('from=2025-01-01&to=2026-06-01'), 422, 'validation_failed');
    await expectProblem(await insights('from=2026-02-30'), 422, 'validation_failed');
    await expectProblem(await insights('from=2026-03-02&to=2026-03-01'), 422, 'validation_failed');
    // Dates at the calendar's edges are refused by the schema, not a 500.
    for (const query of ['from=9999-11-01&to=9999-12-31', 'to=0000-01-01', 'from=1999-12-31', 'to=2101-01-01'])
      await expectProblem(await insights(query), 422, 'validation_failed');
    const usage = await call(`/api/usage?workspace_id=${owner.workspaceId}&from=9999-11-01&to=9999-12-31`, {
      headers: { Cookie: `egw_session=${owner.cookie}` },
    });
    await expectProblem(usage, 422, 'validation_failed');
    // The page and its CSVs show the form again with the reason beside the dates as typed.
    for (const query of [
      'from=9999-11-01&to=9999-12-31',
      'from=2026-03-02&to=2026-03-01',
      'from=2024-01-01&to=2026-01-01',
    ]) {
      const page = await getPage(`/integrations/insights?ws=${owner.workspaceId}&${query}`, owner.cookie);
      expect(page.status, query).toBe(200);
      const html = await page.text();
      expect(html).toContain('id="f-range-error" role="alert"');
      expect(html).toContain(`value="${query.slice(5, 15)}"`);
      expect(html).toContain('aria-invalid="true"');
      const csv = await getPage(`/integrations/insights/days.csv?ws=${owner.workspaceId}&${query}`, owner.cookie);
      expect(csv.status, query).toBe(200);
    }
    const other = await createTenant({ scopes: ['channels:write', 'channels:read'] });
    const theirs = await createChannel(other.token);
    await expectProblem(await insights(`channel=${theirs}`), 404, 'not_found');
    const narrow = await issueKey(owner.workspaceId, { scopes: ['execute'] });
    await expectProblem(await call('/api/insights', { token: narrow.token }), 403, 'insufficient_scope');
    const reader = await issueKey(owner.workspaceId, { scopes: ['channels:read'] });
    const byKey = await json(await call(`/api/insights?from=${DAY}&to=${DAY}`, { token: reader.token }));
    expect(byKey.totals.conversations).toBe(4);
    await expectProblem(await call('/api/insights', { token: ADMIN_TOKEN }), 403, 'admin_required');
  });
});

describe('the rollups after concurrent changes', () => {
  it('equal a recount from the raw rows, however the sweep interleaves with the writes', {
    timeout: 60_000,
  }, async () => {
    const owner = await signUpOwner();
    const key = await issueKey(owner.workspaceId, {
      scopes: ['channels:write', 'channels:read', 'execute', 'leads:write'],
    });
    const channel = await createChannel(key.token);
    const expert = await createActiveExpert({ domains: ['consultation'] });
    const say = (index: number) =>
      call(`/api/public/widget/${channel}/intake`, {
        body: { message: { text: `Concurrent visitor ${index}` } },
        headers: { Origin: SITE, 'CF-Connecting-IP': `198.18.90.${index + 1}` },
      });
    // Visitors, API calls and sweeps at once.
    const first = await Promise.all([
      ...Array.from({ length: 12 }, (_, index) => say(index)),
      ...Array.from({ length: 6 }, (_, index) =>
        call('/api/execute', {
          token: key.token,
          body: { domain: 'consultation', execution_mode: 'sync', required_scopes: [], text: `API ${index}` },
        }),
      ),
      rollUp(db()),
      rollUp(db()),
    ]);
    const leadIds = (await Promise.all(first.slice(0, 12).map((response) => json(response as Response)))).map(
      (answer) => answer.lead_id as string,
    );
    // The expert works the leads while the sweep runs.
    await Promise.all([
      ...leadIds.slice(0, 8).map(async (leadId, index) => {
        const claim = (to: string, extra: Record<string, unknown> = {}) =>
          sessionCall(expert.cookie, `/api/provider/workbench/leads/${leadId}/status`, {
            body: { status: to, ...extra },
          });
        expect(
          (await sessionCall(expert.cookie, `/api/provider/workbench/leads/${leadId}/claim`, { method: 'POST' }))
            .status,
        ).toBe(200);
        if (index % 2 === 0) return;
        await claim('contacted');
        await claim('qualified');
        await claim(
          index % 4 === 1 ? 'won' : 'lost',
          index % 4 === 1 ? { value: { value_minor: 1000 * index, currency: 'EUR' } } : {},
        );
      }),
      rollUp(db()),
      rollUp(db()),
    ]);
    await sweepAll();

    const rollups = async (metric: string) =>
      // Day rows only: each count is there once by day and once by month.
      (
        await platformDb
          .prepare(
            `SELECT coalesce(sum(value), 0) AS n FROM daily_rollups WHERE workspace_id = ? AND metric = ?
            AND length(day) = 10`,
          )
          .bind(owner.workspaceId, metric)
          .first<{ n: number }>()
      )?.n;
    const recount = async (query: string) =>
      (await platformDb.prepare(query).bind(owner.workspaceId).first<{ n: number }>())?.n;
    expect(await rollups('conversations')).toBe(
      await recount('SELECT count(*) AS n FROM conversations WHERE workspace_id = ?'),
    );
    expect(await rollups('executions')).toBe(
      await recount("SELECT count(*) AS n FROM executions WHERE workspace_id = ? AND status = 'completed'"),
    );
    expect(await rollups('leads')).toBe(await recount('SELECT count(*) AS n FROM leads WHERE workspace_id = ?'));
    for (const status of ['open', 'claimed', 'contacted', 'qualified', 'won', 'lost'])
      expect(await rollups(`lead_status.${status}`), status).toBe(
        await recount(`SELECT count(*) AS n FROM leads WHERE workspace_id = ? AND status = '${status}'`),
      );
    const claimed = await platformDb
      .prepare(
        `SELECT coalesce(sum(value), 0) AS n FROM daily_rollups WHERE workspace_id = ? AND metric LIKE 'first_claim_s.%'
        AND length(day) = 10`,
      )
      .bind(owner.workspaceId)
      .first<{ n: number }>();
    expect(claimed?.n).toBe(8);
    expect(await rollups('won_value.EUR')).toBe(
      await recount(
        `SELECT sum(le.value_minor) AS n FROM lead_events le JOIN leads l ON l.id = le.lead_id
          WHERE l.workspace_id = ? AND le.to_status = 'won'`,
      ),
    );
  });
});

describe('the funnel with real traffic', () => {
  it('narrows at every step; leads made through the API are counted apart', async () => {
    const owner = await signUpOwner();
    const key = await issueKey(owner.workspaceId, {
      scopes: ['channels:write', 'channels:read', 'execute', 'leads:write'],
    });
    const domain = `funnel-${Math.random().toString(36).slice(2, 8)}`;
    await call('/api/admin/domains', { token: ADMIN_TOKEN, body: { domain, name: domain } });
    const channel = await createChannel(key.token, { domain });
    const expert = await createActiveExpert({ domains: [domain] });
    const leadIds: string[] = [];
    for (const index of [1, 2]) {
      const answer = await call(`/api/public/widget/${channel}/intake`, {
        body: { message: { text: `Visitor number ${index} needs help.` } },
        headers: { Origin: SITE, 'CF-Connecting-IP': `198.18.93.${index}` },
      });
      leadIds.push((await json(answer)).lead_id);
    }
    for (const index of [1, 2, 3])
      await call('/api/execute', {
        token: key.token,
        body: { domain, execution_mode: 'sync', required_scopes: [], text: `API lead ${index}.` },
      });
    await sessionCall(expert.cookie, `/api/provider/workbench/leads/${leadIds[0]}/claim`, { method: 'POST' });
    await sweepAll();
    const today = new Date().toISOString().slice(0, 10);
    const view = await json(
      await call(`/api/insights?workspace_id=${owner.workspaceId}&from=${today}&to=${today}`, {
        headers: { Cookie: `egw_session=${owner.cookie}` },
      }),
    );
    const { funnel } = view.totals;
    expect(funnel).toEqual({ conversations: 2, answered: 0, leads: 2, claimed: 1, replied: 0, won: 0 });
    expect(view.totals.api_leads).toBe(3);
    const steps = [funnel.conversations, funnel.leads, funnel.claimed, funnel.replied, funnel.won];
    for (let step = 1; step < steps.length; step++) expect(steps[step]).toBeLessThanOrEqual(steps[step - 1]!);
    const html = await (await getPage(`/integrations/insights?ws=${owner.workspaceId}`, owner.cookie)).text();
    expect(html).toContain('Leads made through the API, not in the funnel: 3.');
  });
});

describe('the people’s numbers', () => {
  it('an expert sees their claims, time to first reply, outcome and value on the workbench', async () => {
    const owner = await signUpOwner();
    const key = await issueKey(owner.workspaceId, { scopes: ['channels:write', 'channels:read'] });
    const domain = `people-${Math.random().toString(36).slice(2, 8)}`;
    await call('/api/admin/domains', { token: ADMIN_TOKEN, body: { domain, name: domain } });
    const channel = await createChannel(key.token, { domain });
    const expert = await createActiveExpert({ domains: [domain] });
    const lead = await json(
      await call(`/api/public/widget/${channel}/intake`, {
        body: { message: { text: 'An expert’s own numbers' } },
        headers: { Origin: SITE, 'CF-Connecting-IP': '198.18.91.1' },
      }),
    );
    const base = `/api/provider/workbench/leads/${lead.lead_id}`;
    expect((await sessionCall(expert.cookie, `${base}/claim`, { method: 'POST' })).status).toBe(200);
    expect(
      (await sessionCall(expert.cookie, `${base}/messages`, { body: { text: 'Hello, I can help.' } })).status,
    ).toBe(201);
    await sessionCall(expert.cookie, `${base}/status`, { body: { status: 'qualified' } });
    // The workbench's form takes what the API takes, and nothing more.
    const form = `/provider/workbench/leads/${lead.lead_id}/status`;
    for (const fields of [
      { status: 'won', value_amount: '999999999999.99', value_currency: 'EUR' },
      { status: 'won', note: 'Signed \u202e today' },
      { status: 'won', note: 'Bell \u0007 and \u0000' },
      { status: 'won', note: 'x'.repeat(1001) },
    ] as Array<Record<string, string>>) {
      const refused = await postForm(form, fields, { cookie: expert.cookie });
      expect(refused.status, JSON.stringify(fields)).toBe(422);
    }
    const stillQualified = await platformDb
      .prepare('SELECT status FROM leads WHERE id = ?')
      .bind(lead.lead_id)
      .first<{ status: string }>();
    expect(stillQualified?.status).toBe('qualified');
    const won = await sessionCall(expert.cookie, `${base}/status`, {
      body: { status: 'won', value: { value_minor: 45_000, currency: 'EUR' } },
    });
    expect((await json(won)).history.at(-1)).toMatchObject({
      to: 'won',
      value: { value_minor: 45_000, currency: 'EUR' },
    });
    const html = await (await getPage('/provider/workbench', expert.cookie)).text();
    expect(html).toContain('Your last 30 days');
    expect(html).toMatch(/Leads claimed<\/th><td data-label="Value">1</);
    expect(html).toContain('1 (100% of your claims)');
    expect(html).toContain('€450.00');
    // A value goes with `won` only.
    await expectProblem(
      await sessionCall(expert.cookie, `${base}/status`, {
        body: { status: 'lost', value: { value_minor: 1, currency: 'EUR' } },
      }),
      422,
      'validation_failed',
    );
  });

  it('one lead’s times to first claim and first reply read the same on every page', async () => {
    const owner = await signUpOwner();
    const key = await issueKey(owner.workspaceId, { scopes: ['channels:write', 'channels:read'] });
    const domain = `times-${Math.random().toString(36).slice(2, 8)}`;
    await call('/api/admin/domains', { token: ADMIN_TOKEN, body: { domain, name: domain } });
    const channel = await createChannel(key.token, { domain });
    const expert = await createActiveExpert({ domains: [domain] });
    try {
      const lead = await json(
        await call(`/api/public/widget/${channel}/intake`, {
          body: { message: { text: 'How long until someone answers?' } },
          headers: { Origin: SITE, 'CF-Connecting-IP': '198.18.91.2' },
        }),
      );
      const base = `/api/provider/workbench/leads/${lead.lead_id}`;
      moveClockForTests(37_000);
      expect((await sessionCall(expert.cookie, `${base}/claim`, { method: 'POST' })).status).toBe(200);
      moveClockForTests(41_000);
      const replied = await sessionCall(expert.cookie, `${base}/messages`, { body: { text: 'Here now.' } });
      expect(replied.status).toBe(201);
      await rollUp(db());
      // One definition: from the visitor's request to the first claim (37 s) and to the first reply (78 s).
      const day = new Date(clock.now()).toISOString().slice(0, 10);
      const view = await json(
        await call(`/api/insights?from=${day}&to=${day}&channel=${channel}`, { token: key.token }),
      );
      expect(view.totals.time_to_first_claim_s.p50).toBe(37);
      expect(view.totals.time_to_first_reply_s.p50).toBe(78);
      const ws = `ws=${owner.workspaceId}`;
      const insightsPage = await (
        await getPage(`/integrations/insights?${ws}&from=${day}&to=${day}`, owner.cookie)
      ).text();
      expect(insightsPage).toMatch(/First claim, median<\/th><td[^>]*>37 s</);
      expect(insightsPage).toMatch(/First reply, median<\/th><td[^>]*>1\.3 min</);
      const intake = await (await getPage(`/integrations/channels/${channel}/intake?${ws}`, owner.cookie)).text();
      expect(intake).toContain('first claim after 37 s · first reply after 1.3 min');
      const workbench = await (await getPage('/provider/workbench', expert.cookie)).text();
      expect(workbench).toMatch(/Time to first reply, from the request \(median\)<\/th><td[^>]*>1\.3 min</);
    } finally {
      resetClockForTests();
    }
  });

  it('an administrator sees the platform’s leads and agents', async () => {
    await sweepAll();
    const admin = await signUpPlatformAdmin();
    const page = await getPage('/admin/insights?days=30', admin.cookie);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Platform insights');
    expect(html).toContain('Escalated to their owners');
  });
});
