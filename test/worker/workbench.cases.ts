import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ADMIN_TOKEN, call, createTenant, execute, executeBody, expectProblem, json, type Tenant } from './helpers';
import { getPage, postForm, signUpOwner } from './console-helpers';
import {
  completeProfile,
  createActiveExpert,
  createChannel,
  review,
  seedActiveExperts,
  sessionCall,
  signUpProvider,
  visitorSays,
  type TestProvider,
} from './provider-helpers';
import { clock } from '../../worker/lib/clock';
import { platformDb } from './platform-db';

let ipCounter = 0;
/** A new client address per message, so the intake rate limit never interferes. */
const nextIp = () => `198.18.${Math.floor(++ipCounter / 250)}.${(ipCounter % 250) + 1}`;

const say = (channelKey: string, body: Record<string, unknown>) => visitorSays(channelKey, body, nextIp());

async function newDomain(): Promise<string> {
  const domain = `d-${clock.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}`;
  expect((await call('/api/admin/domains', { token: ADMIN_TOKEN, body: { domain, name: domain } })).status).toBe(201);
  return domain;
}

const available = async (provider: TestProvider, query = '') =>
  json(await sessionCall(provider.cookie, `/api/provider/workbench/leads?scope=available${query}`));
const availableIds = async (provider: TestProvider) =>
  (await available(provider, '&limit=100')).data.map((lead: { lead_id: string }) => lead.lead_id);
const claim = (provider: TestProvider, leadId: string) =>
  sessionCall(provider.cookie, `/api/provider/workbench/leads/${leadId}/claim`, { method: 'POST' });
const setStatus = (provider: TestProvider, leadId: string, status: string, note?: string) =>
  sessionCall(provider.cookie, `/api/provider/workbench/leads/${leadId}/status`, {
    body: { status, ...(note ? { note } : {}) },
  });

const SCOPES = ['execute', 'leads:write', 'channels:read', 'channels:write'];

describe('routing: who sees a demand', () => {
  let domainX: string;
  let domainY: string;
  let tenant: Tenant;
  let inX: TestProvider;
  let suspendedInX: TestProvider;
  let inY: TestProvider;
  let payrollInX: TestProvider;
  let memberInX: TestProvider;
  let owner: Awaited<ReturnType<typeof signUpOwner>>;

  beforeAll(async () => {
    [domainX, domainY] = [await newDomain(), await newDomain()];
    owner = await signUpOwner();
    const key = await call('/api/admin/api-keys', {
      token: ADMIN_TOKEN,
      body: { workspace_id: owner.workspaceId, name: 'k', scopes: SCOPES },
    });
    const issued = await json(key);
    tenant = { organizationId: '', workspaceId: owner.workspaceId, keyId: issued.key_id, token: issued.token };
    inX = await createActiveExpert({ domains: [domainX] });
    suspendedInX = await createActiveExpert({ domains: [domainX] });
    expect((await review(suspendedInX.providerId, 'suspend', 'Paused.')).status).toBe(200);
    inY = await createActiveExpert({ domains: [domainY] });
    payrollInX = await createActiveExpert({ domains: [domainX], topics: ['payroll'] });
    memberInX = await createActiveExpert({ domains: [domainX] });
    // memberInX joins the workspace: it sees the workspace's own pool too.
    await postForm(
      `/integrations/team/invite?ws=${owner.workspaceId}`,
      { email: memberInX.email, role: 'member' },
      { cookie: owner.cookie },
    );
    const invitation = await platformDb
      .prepare("SELECT id FROM invitations WHERE email = ? AND status = 'pending'")
      .bind(memberInX.email)
      .first<{ id: string }>();
    expect((await postForm(`/invitations/${invitation!.id}/accept`, {}, { cookie: memberInX.cookie })).status).toBe(
      303,
    );
  }, 60_000);

  it('a demand in domain X reaches the active experts scoped to X; not the suspended one, nor Y', async () => {
    const channel = await createChannel(tenant.token, { domain: domainX });
    const answer = await say(channel, { message: { text: 'I need a hand with my books.' } });
    expect(answer.lead_id).toMatch(/^lead_/);
    expect(await availableIds(inX)).toContain(answer.lead_id);
    expect(await availableIds(memberInX)).toContain(answer.lead_id);
    expect(await availableIds(inY)).not.toContain(answer.lead_id);
    // The suspended expert may not use the workbench at all.
    await expectProblem(
      await sessionCall(suspendedInX.cookie, '/api/provider/workbench/leads'),
      403,
      'provider_inactive',
    );
    // Listing no topics, inX sees it; listing only payroll, payrollInX does not (the topic is general).
    expect(await availableIds(payrollInX)).not.toContain(answer.lead_id);
  });

  it(
    'judgement: a demand that names a provider topic gets that topic, and reaches the experts of that ' + 'topic too',
    async () => {
      const channel = await createChannel(tenant.token, { domain: domainX });
      const answer = await say(channel, { message: { text: 'Our PAYROLL run failed; we need help today.' } });
      const lead = await platformDb
        .prepare('SELECT topic, urgency FROM leads WHERE id = ?')
        .bind(answer.lead_id)
        .first();
      expect(lead).toEqual({ topic: 'payroll', urgency: 'high' });
      expect(await availableIds(payrollInX)).toContain(answer.lead_id);
      expect(await availableIds(inX)).toContain(answer.lead_id);
      expect(answer.reply).toContain('An expert in payroll will follow up');
    },
  );

  it('matched_providers counts the active experts who may see it, by pool and topic', async () => {
    const platform = json(
      await execute(tenant.token, { ...executeBody(), domain: domainX, text: 'General bookkeeping question.' }),
    );
    // inX and memberInX (no topics) match; payrollInX does not (topic general); suspended and Y never.
    expect((await platform).output.result.matched_providers).toBe(2);
    const payroll = await json(
      await execute(tenant.token, { ...executeBody(), domain: domainX, text: 'A payroll question.' }),
    );
    expect(payroll.output.result).toMatchObject({ topic: 'payroll', matched_providers: 3 });
    // A key without leads:write makes no lead: the answer claims no offer either.
    const noLeads = await createTenant({ scopes: ['execute'] });
    const recorded = await json(
      await execute(noLeads.token, { ...executeBody(), domain: domainX, text: 'General bookkeeping question.' }),
    );
    expect(recorded.output.result.lead_id).toBeUndefined();
    expect(recorded.output.result.matched_providers).toBe(0);
    expect(recorded.output.result.reply).not.toContain('offered');
  });

  it('a workspace-pool channel reaches only experts who are members of the workspace', async () => {
    const channel = await createChannel(tenant.token, { domain: domainX, routingPool: 'workspace' });
    const answer = await say(channel, { message: { text: 'For our own team only.' } });
    expect(await availableIds(memberInX)).toContain(answer.lead_id);
    expect(await availableIds(inX)).not.toContain(answer.lead_id);
    await expectProblem(
      await sessionCall(inX.cookie, `/api/provider/workbench/leads/${answer.lead_id}`),
      404,
      'not_found',
    );
    await expectProblem(await claim(inX, answer.lead_id), 404, 'not_found');
  });

  it('a held demand (a blocked term) is stored but reaches no one', async () => {
    await postForm(
      `/integrations/settings?ws=${owner.workspaceId}`,
      { blocked_terms: 'crypto giveaway\ncasino' },
      { cookie: owner.cookie },
    );
    const channel = await createChannel(tenant.token, { domain: domainX });
    const answer = await say(channel, { message: { text: 'Win big at our CASINO tonight' } });
    expect(answer.lead_id).toBeUndefined();
    expect(answer.next).toBe('continue');
    const demand = await platformDb
      .prepare('SELECT disposition, reasons FROM demands WHERE id = ?')
      .bind(answer.demand_id)
      .first();
    expect(demand).toEqual({ disposition: 'held', reasons: '["blocked_term"]' });
    const before = await Promise.all([inX, memberInX, payrollInX].map((expert) => available(expert)));
    expect(
      await platformDb.prepare('SELECT COUNT(*) AS n FROM leads WHERE demand_id = ?').bind(answer.demand_id).first(),
    ).toEqual({ n: 0 });
    // The rest of the conversation stays held, and the experts' lists do not grow.
    const again = await say(channel, {
      session_id: answer.session_id,
      message: { text: 'Hello again, a normal question.' },
    });
    expect(again.lead_id).toBeUndefined();
    const after = await Promise.all([inX, memberInX, payrollInX].map((expert) => available(expert)));
    expect(after.map((page) => page.counts.available)).toEqual(before.map((page) => page.counts.available));
  });

  it('an API execution without leads:write records the demand but makes no lead', async () => {
    const narrow = await createTenant({ scopes: ['execute'] });
    const envelope = await json(await execute(narrow.token, { ...executeBody(), domain: domainX }));
    expect(envelope.output.result.lead_id).toBeUndefined();
    expect(envelope.exact_bridge.source_record).toBe(envelope.output.result.demand_id);
  });
});

describe('API conversations (session_id)', () => {
  it(
    'executions with one session_id form one conversation: one demand, one lead; another workspace’s session finds ' +
      'nothing',
    async () => {
      const tenant = await createTenant({ scopes: [...SCOPES, 'memory:write'] });
      const other = await createTenant({ scopes: SCOPES });
      const first = await json(
        await execute(tenant.token, executeBody({ session_id: 'chat-42', text: 'First turn.' })),
      );
      const second = await json(
        await execute(tenant.token, executeBody({ session_id: 'chat-42', text: 'Second turn.' })),
      );
      expect(second.output.result.demand_id).toBe(first.output.result.demand_id);
      expect(second.output.result.lead_id).toBe(first.output.result.lead_id);
      const elsewhere = await json(
        await execute(other.token, executeBody({ session_id: 'chat-42', text: 'Same id, other workspace.' })),
      );
      expect(elsewhere.output.result.demand_id).not.toBe(first.output.result.demand_id);
      const messages = await platformDb
        .prepare(
          'SELECT m.role, m.text FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE ' +
            'c.workspace_id = ' +
            "? AND c.external_session_id = 'chat-42' ORDER BY m.id",
        )
        .bind(tenant.workspaceId)
        .all();
      expect(messages.results.filter((row) => row.role === 'visitor').map((row) => row.text)).toEqual([
        'First turn.',
        'Second turn.',
      ]);
    },
  );

  it(
    'a one-off call without session_id forms no conversation: its demand and lead stand alone, and the lead opens ' +
      'in the workbench',
    async () => {
      const tenant = await createTenant({ scopes: [...SCOPES, 'memory:write'] });
      // An expert of a domain of its own: the lead's first wave (an API lead takes the default 3) reaches them.
      const domain = await newDomain();
      const expert = await createActiveExpert({ domains: [domain] });
      const envelope = await json(
        await execute(tenant.token, executeBody({ domain, text: 'One question, no session.' })),
      );
      const conversations = await platformDb
        .prepare('SELECT COUNT(*) AS n FROM conversations WHERE workspace_id = ?')
        .bind(tenant.workspaceId)
        .first<{ n: number }>();
      expect(conversations!.n).toBe(0);
      const demand = await platformDb
        .prepare('SELECT conversation_id, text FROM demands WHERE id = ?')
        .bind(envelope.output.result.demand_id)
        .first();
      expect(demand).toEqual({ conversation_id: null, text: 'One question, no session.' });
      const detail = await sessionCall(
        expert.cookie,
        `/api/provider/workbench/leads/${envelope.output.result.lead_id}`,
      );
      expect(detail.status).toBe(200);
      expect((await json(detail)).messages).toEqual([]);
    },
  );
});

describe('claiming', () => {
  let tenant: Tenant;
  let domain: string;
  let claimers: TestProvider[];
  beforeAll(async () => {
    tenant = await createTenant({ scopes: SCOPES });
    domain = await newDomain();
    claimers = [];
    claimers.push(...(await seedActiveExperts(20, { domains: [domain] })));
  }, 120_000);

  // 3 rounds here; `npm run bench -- claims` runs 20 rounds of the same race.
  it(
    '20 concurrent claims on one lead, 3 times over: exactly one 200 each time, and one claimer in the ' + 'table',
    async () => {
      const channel = await createChannel(tenant.token, { domain });
      for (let round = 0; round < 3; round++) {
        const lead = await say(channel, { message: { text: `Race ${round}` } });
        const responses = await Promise.all(claimers.map((claimer) => claim(claimer, lead.lead_id)));
        const statuses = responses.map((response) => response.status);
        expect(statuses.filter((status) => status === 200)).toHaveLength(1);
        expect(statuses.filter((status) => status === 409)).toHaveLength(19);
        for (const response of responses.filter((r) => r.status === 409))
          expect(((await response.json()) as { code: string }).code).toBe('already_claimed');
        const winner = claimers[statuses.indexOf(200)]!;
        const row = await platformDb
          .prepare('SELECT status, claimed_by FROM leads WHERE id = ?')
          .bind(lead.lead_id)
          .first();
        expect(row).toEqual({ status: 'claimed', claimed_by: winner.providerId });
        const events = await platformDb
          .prepare("SELECT COUNT(*) AS n FROM lead_events WHERE lead_id = ? AND to_status = 'claimed'")
          .bind(lead.lead_id)
          .first();
        expect(events).toEqual({ n: 1 });
        const audits = await platformDb
          .prepare("SELECT COUNT(*) AS n FROM audit_log WHERE target_id = ? AND action = 'lead.claimed'")
          .bind(lead.lead_id)
          .first();
        expect(audits).toEqual({ n: 1 });
      }
    },
  );

  it(
    'a claimed lead leaves Available for everyone else; the claimer sees it in Mine, with the contact ' + 'details',
    async () => {
      const channel = await createChannel(tenant.token, { domain });
      const lead = await say(channel, { message: { text: 'Please call me.' } });
      await say(channel, {
        session_id: lead.session_id,
        trigger: 'lead_capture',
        contact: { name: 'Ada', email: 'ada.claim@example.com' },
      });
      const [winner, other] = claimers as [TestProvider, TestProvider];
      const claimed = await json(await claim(winner, lead.lead_id));
      expect(claimed.contact).toEqual({ name: 'Ada', email: 'ada.claim@example.com', phone: null });
      expect(claimed.claimed_at).toBeTypeOf('string');
      expect(await availableIds(other)).not.toContain(lead.lead_id);
      const mine = await json(await sessionCall(winner.cookie, '/api/provider/workbench/leads?scope=mine&limit=100'));
      expect(mine.data.find((entry: { lead_id: string }) => entry.lead_id === lead.lead_id).contact.email).toBe(
        'ada.claim@example.com',
      );
      // Claiming again is harmless for the claimer, and 409 for anyone else.
      expect((await claim(winner, lead.lead_id)).status).toBe(200);
      await expectProblem(await claim(other, lead.lead_id), 409, 'already_claimed');
      // Only the claimer changes its status; another expert in scope gets 403.
      await expectProblem(await setStatus(other, lead.lead_id, 'contacted'), 403, 'not_claimer');
    },
  );
});

describe(
  'lead status changes through the API (the whole table is a unit test: ' + 'platform/leads/transitions.test.ts)',
  () => {
    let tenant: Tenant;
    let channel: string;
    let expert: TestProvider;
    let domain: string;

    beforeAll(async () => {
      tenant = await createTenant({ scopes: SCOPES });
      domain = await newDomain();
      channel = await createChannel(tenant.token, { domain });
      expert = await createActiveExpert({ domains: [domain] });
    }, 60_000);

    /** A lead claimed by the expert and moved along `steps`. */
    async function claimedLead(steps: string[] = []): Promise<string> {
      const lead = await say(channel, { message: { text: `Lead to move along ${steps.join(' ')}` } });
      expect((await claim(expert, lead.lead_id)).status).toBe(200);
      for (const step of steps) expect((await setStatus(expert, lead.lead_id, step)).status).toBe(200);
      return lead.lead_id;
    }

    it('an allowed move answers the lead, with the note in its history', async () => {
      const leadId = await claimedLead(['contacted']);
      const moved = await json(await setStatus(expert, leadId, 'qualified', 'Note for the history.'));
      expect(moved.status).toBe('qualified');
      expect(moved.history.at(-1)).toMatchObject({
        from: 'contacted',
        to: 'qualified',
        actor: 'provider',
        by_you: true,
        note: 'Note for the history.',
      });
    });

    it('a move the table refuses is 409 invalid_transition and changes nothing; won is final', async () => {
      const leadId = await claimedLead();
      await expectProblem(await setStatus(expert, leadId, 'won'), 409, 'invalid_transition');
      expect(await platformDb.prepare('SELECT status FROM leads WHERE id = ?').bind(leadId).first()).toEqual({
        status: 'claimed',
      });
      const won = await claimedLead(['contacted', 'qualified', 'won']);
      await expectProblem(await setStatus(expert, won, 'open'), 409, 'invalid_transition');
      await expectProblem(await setStatus(expert, won, 'lost'), 409, 'invalid_transition');
    });

    it('a release returns the lead to open and unclaimed, offered to everyone but its releaser', async () => {
      const leadId = await claimedLead(['contacted']);
      expect((await json(await setStatus(expert, leadId, 'open'))).status).toBe('open');
      expect(await platformDb.prepare('SELECT claimed_by, wave FROM leads WHERE id = ?').bind(leadId).first()).toEqual({
        claimed_by: null,
        wave: 2,
      });
      // The releaser waits 24 hours before they may see or claim it again (lead-operations.cases.ts).
      expect(await availableIds(expert)).not.toContain(leadId);
    });

    it('an open lead is claimed, not moved by status: 403 not_claimer', async () => {
      const lead = await say(channel, { message: { text: 'Still open' } });
      await expectProblem(await setStatus(expert, lead.lead_id, 'contacted'), 403, 'not_claimer');
    });
  },
);

describe('contact details reach the claimer only', () => {
  it('absent from the list, the detail, the console and the logs for everyone but the claimer', async () => {
    const log = vi.spyOn(console, 'log');
    const owner = await signUpOwner();
    const issued = await json(
      await call('/api/admin/api-keys', {
        token: ADMIN_TOKEN,
        body: { workspace_id: owner.workspaceId, name: 'k', scopes: SCOPES },
      }),
    );
    const domain = await newDomain();
    const channel = await createChannel(issued.token, { domain });
    const [claimer, bystander] = [
      await createActiveExpert({ domains: [domain] }),
      await createActiveExpert({ domains: [domain] }),
    ];
    const EMAIL = 'secret.visitor@example.com';
    const PHONE = '+44 20 7946 0958';
    const lead = await say(channel, { message: { text: 'Call me back please' } });
    await say(channel, {
      session_id: lead.session_id,
      trigger: 'lead_capture',
      contact: { name: 'Grace', email: EMAIL, phone: PHONE },
    });

    const seenBeforeClaim = [
      await (await sessionCall(bystander.cookie, '/api/provider/workbench/leads?scope=available&limit=100')).text(),
      await (await sessionCall(bystander.cookie, `/api/provider/workbench/leads/${lead.lead_id}`)).text(),
      await (await sessionCall(claimer.cookie, '/api/provider/workbench/leads?scope=available&limit=100')).text(),
      await (await sessionCall(claimer.cookie, `/api/provider/workbench/leads/${lead.lead_id}`)).text(),
    ];
    for (const text of seenBeforeClaim) {
      expect(text).not.toContain(EMAIL);
      // The number's digits, spaced or not (a bare '7946' can turn up inside a random id).
      for (const digits of ['7946 0958', '79460958']) expect(text).not.toContain(digits);
    }
    expect((await claim(claimer, lead.lead_id)).status).toBe(200);
    expect(await (await sessionCall(claimer.cookie, `/api/provider/workbench/leads/${lead.lead_id}`)).text()).toContain(
      EMAIL,
    );
    expect(await (await getPage(`/provider/workbench/leads/${lead.lead_id}`, claimer.cookie)).text()).toContain(EMAIL);
    // Everyone else, after the claim: the bystander, the site owner in the console and the channel API.
    const after = [
      await (await sessionCall(bystander.cookie, `/api/provider/workbench/leads/${lead.lead_id}`)).text(),
      await (await getPage(`/provider/workbench/leads/${lead.lead_id}`, bystander.cookie)).text(),
      await (await getPage(`/integrations/channels/${channel}/intake?ws=${owner.workspaceId}`, owner.cookie)).text(),
      await (await call(`/api/integrations/channels/${channel}/intake`, { token: issued.token })).text(),
    ];
    for (const text of after) {
      expect(text).not.toContain(EMAIL);
      // The number's digits, spaced or not (a bare '7946' can turn up inside a random id).
      for (const digits of ['7946 0958', '79460958']) expect(text).not.toContain(digits);
    }
    // The site owner sees the status and the claimer's display name.
    expect(after[2]).toContain('claimed');
    expect(after[2]).toContain('by Test Expert');
    const logged = log.mock.calls.map(([line]) => String(line)).join('\n');
    log.mockRestore();
    expect(logged).not.toContain(EMAIL);
    // Random ids and trace ids may hold any four digits: look for the number as it could be written.
    expect(logged).not.toContain('7946 0958');
    expect(logged).not.toContain('79460958');
  });
});

describe('workbench pagination', () => {
  it('pages stay stable while new leads arrive (cursor on the time-sortable id)', async () => {
    const tenant = await createTenant({ scopes: SCOPES });
    const domain = await newDomain();
    const channel = await createChannel(tenant.token, { domain });
    const expert = await createActiveExpert({ domains: [domain] });
    const first: string[] = [];
    for (let i = 0; i < 5; i++) first.unshift((await say(channel, { message: { text: `Lead ${i}` } })).lead_id);
    const page1 = await available(expert, '&limit=2');
    expect(page1.data.map((lead: { lead_id: string }) => lead.lead_id)).toEqual(first.slice(0, 2));
    expect(page1.has_more).toBe(true);
    expect(page1.counts.available).toBe(5);
    // Three more leads arrive before the next page is read.
    for (let i = 0; i < 3; i++) await say(channel, { message: { text: `Late lead ${i}` } });
    const page2 = await available(expert, `&limit=2&starting_after=${page1.data[1].lead_id}`);
    const page3 = await available(expert, `&limit=2&starting_after=${page2.data[1].lead_id}`);
    expect([...page1.data, ...page2.data, ...page3.data].map((lead: { lead_id: string }) => lead.lead_id)).toEqual(
      first,
    );
    expect(page3.has_more).toBe(false);
    expect(page3.counts.available).toBe(8);
  });
});

describe('D1 work of the workbench', () => {
  it(
    'listing and claiming take the same number of round trips with 3 or 400 more leads and more ' + 'providers',
    async () => {
      const tenant = await createTenant({ scopes: SCOPES });
      const domain = await newDomain();
      const channel = await createChannel(tenant.token, { domain });
      const expert = await createActiveExpert({ domains: [domain] });
      const trips = (response: Response) => Number(response.headers.get('X-D1-Queries'));
      const measure = async () => {
        const lead = await say(channel, { message: { text: 'Measure me' } });
        const listed = await sessionCall(expert.cookie, '/api/provider/workbench/leads?scope=available&limit=25');
        const available = (await json(listed)).counts.available as number;
        const claimTrips = trips(await claim(expert, lead.lead_id));
        return { trips: { list: trips(listed), claim: claimTrips }, available };
      };
      for (let i = 0; i < 2; i++) await say(channel, { message: { text: `Before ${i}` } });
      const before = await measure();
      // Growth written straight into the tables (as many rows as the API would make, without the API's time).
      const template = (await platformDb
        .prepare('SELECT * FROM leads WHERE id = (SELECT MAX(id) FROM leads WHERE domain = ?)')
        .bind(domain)
        .first<Record<string, unknown>>())!;
      const columns = Object.keys(template).filter(
        (column) => !['id', 'conversation_id', 'status', 'claimed_by', 'claimed_at'].includes(column),
      );
      await platformDb
        .prepare(
          `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400)
       INSERT INTO leads (id, status, ${columns.join(', ')}) SELECT 'lead_growth' || printf('%04d', i) || ?, 'open',
         ${columns.join(', ')} FROM n, (SELECT * FROM leads WHERE id = ?)`,
        )
        .bind(domain, template.id)
        .run();
      await platformDb
        .prepare(
          `INSERT INTO lead_offers (lead_id, provider_id, wave, offered_at)
         SELECT id, ?, 2, 0 FROM leads WHERE id LIKE 'lead_growth%' AND domain = ?`,
        )
        .bind(expert.providerId, domain)
        .run();
      for (let i = 0; i < 3; i++) await createActiveExpert({ domains: [domain] });
      const after = await measure();
      expect(after.available).toBeGreaterThanOrEqual(before.available + 400);
      expect(after.trips).toEqual(before.trips);
      expect(before.trips.list).toBeLessThanOrEqual(3);
    },
  );
});

describe('provider sign-up to first lead, end to end through the API', () => {
  it('a new provider completes the profile, is approved, and works a lead to won', async () => {
    const domain = await newDomain();
    const provider = await signUpProvider();
    await expectProblem(await sessionCall(provider.cookie, '/api/provider/workbench/leads'), 403, 'provider_inactive');
    expect(
      (
        await sessionCall(provider.cookie, '/api/provider/profile', {
          body: { ...completeProfile({ domains: [domain] }), submit: true },
        })
      ).status,
    ).toBe(200);
    expect((await review(provider.providerId, 'approve')).status).toBe(200);
    const tenant = await createTenant({ scopes: SCOPES });
    const channel = await createChannel(tenant.token, { domain });
    const lead = await say(channel, { message: { text: 'We need an expert.' } });
    expect((await claim(provider, lead.lead_id)).status).toBe(200);
    for (const status of ['contacted', 'qualified', 'won'])
      expect((await setStatus(provider, lead.lead_id, status)).status).toBe(200);
    const detail = await json(await sessionCall(provider.cookie, `/api/provider/workbench/leads/${lead.lead_id}`));
    expect(detail.history.map((entry: { to: string }) => entry.to)).toEqual([
      'open',
      'claimed',
      'contacted',
      'qualified',
      'won',
    ]);
    expect(detail.messages.map((message: { role: string }) => message.role)).toEqual(['visitor', 'system']);
  });
});
