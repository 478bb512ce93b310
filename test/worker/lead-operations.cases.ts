import { describe, expect, it } from 'vitest';
import { sweepLeadTimers } from '../../worker/platform/leads';
import { newDomain } from './agent-helpers';
import { getPage, signUpOwner, signUpPlatformAdmin } from './console-helpers';
import { call, expectProblem, issueKey, json, workerDb } from './helpers';
import { completeProfile, review, SITE, sessionCall, signUpProvider, type TestProvider } from './provider-helpers';
import { clock } from '../../worker/lib/clock';
import { platformDb } from './platform-db';

const MINUTE = 60_000;
const db = () => workerDb();
const rows = (sql: string, ...params: unknown[]) =>
  platformDb
    .prepare(sql)
    .bind(...params)
    .all<Record<string, any>>()
    .then((result) => result.results);

/** An active expert with this profile; lead alerts off unless a test is about them. */
async function expert(profile: {
  domain: string;
  topics?: string[];
  languages?: string[];
  regions?: string[];
  alerts?: boolean;
}) {
  const provider = await signUpProvider();
  const body = {
    ...completeProfile({ domains: [profile.domain], topics: profile.topics ?? [] }),
    ...(profile.languages ? { languages: profile.languages } : {}),
    ...(profile.regions ? { regions: profile.regions } : {}),
    submit: true,
  };
  expect((await sessionCall(provider.cookie, '/api/provider/profile', { body })).status).toBe(200);
  expect((await review(provider.providerId, 'approve')).status).toBe(200);
  if (!profile.alerts) {
    await platformDb.prepare("UPDATE providers SET lead_alerts = 'off' WHERE id = ?").bind(provider.providerId).run();
  }
  return provider;
}

/** A channel of a new domain with these routing settings, in a workspace with a signed-up owner. */
async function channel(routing: Record<string, number> = {}) {
  const domain = await newDomain('ops');
  const owner = await signUpOwner();
  const key = await issueKey(owner.workspaceId, { scopes: ['channels:write', 'channels:read'] });
  const created = await call('/api/integrations/channels', {
    token: key.token,
    body: { name: 'Ops site', domain, allowed_origins: [SITE], routing },
  });
  expect(created.status, await created.clone().text()).toBe(201);
  const view = await json(created);
  return { domain, owner, key, channelKey: view.channel_key as string, view };
}

/** A visitor's handoff on the channel: a new lead. */
async function newLead(channelKey: string, text = 'Please help me with this.', headers: Record<string, string> = {}) {
  const response = await call(`/api/public/widget/${channelKey}/intake`, {
    body: { message: { text }, trigger: 'handoff' },
    headers: { Origin: SITE, 'CF-Connecting-IP': `203.0.113.${Math.floor(Math.random() * 200)}`, ...headers },
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return (await json(response)).lead_id as string;
}

const offeredTo = async (leadId: string) =>
  (await rows('SELECT provider_id, wave FROM lead_offers WHERE lead_id = ? ORDER BY provider_id', leadId)).map(
    (row) => row.provider_id as string,
  );
const claim = (who: TestProvider, leadId: string) =>
  sessionCall(who.cookie, `/api/provider/workbench/leads/${leadId}/claim`, { method: 'POST' });
const available = async (who: TestProvider) =>
  (await json(await sessionCall(who.cookie, '/api/provider/workbench/leads?scope=available'))).data.map(
    (lead: any) => lead.lead_id,
  );
const lead = async (leadId: string) => (await rows('SELECT * FROM leads WHERE id = ?', leadId))[0]!;
const history = async (leadId: string) =>
  // By time first: the sweeps here run on a clock ahead of the real one.
  (await rows('SELECT note FROM lead_events WHERE lead_id = ? ORDER BY created_at, id', leadId)).map((row) => row.note);

describe('routing settings', () => {
  it('defaults, partial changes, and 422 on bad values', async () => {
    const { view, key, channelKey } = await channel();
    expect(view.routing).toEqual({
      offer_first: 3,
      offer_widen_minutes: 10,
      escalate_minutes: 60,
      claim_sla_minutes: 60,
    });
    const changed = await call(`/api/integrations/channels/${channelKey}`, {
      method: 'PATCH',
      token: key.token,
      body: { routing: { offer_first: 2 } },
    });
    expect((await json(changed)).routing).toMatchObject({ offer_first: 2, claim_sla_minutes: 60 });
    for (const routing of [
      { offer_first: 0 },
      { claim_sla_minutes: 10_081 },
      { escalate_minutes: 1.5 },
      { other: 1 },
    ]) {
      const refused = await call(`/api/integrations/channels/${channelKey}`, {
        method: 'PATCH',
        token: key.token,
        body: { routing },
      });
      await expectProblem(refused, 422, 'validation_failed');
    }
  });
});

describe('the first wave', () => {
  it('goes to the best offer_first experts; Available, detail and claim honour the offer', async () => {
    const { domain, channelKey } = await channel({ offer_first: 1 });
    const first = await expert({ domain });
    const second = await expert({ domain });
    const leadId = await newLead(channelKey);
    expect(await offeredTo(leadId)).toEqual([first.providerId]);
    expect(await available(first)).toEqual([leadId]);
    expect(await available(second)).toEqual([]);
    await expectProblem(await sessionCall(second.cookie, `/api/provider/workbench/leads/${leadId}`), 404, 'not_found');
    await expectProblem(await claim(second, leadId), 404, 'not_found');
    // Not offered answers exactly as a made-up id does, on every lead route: no oracle of ids.
    for (const id of [leadId, 'lead_01made0up0000000000000000']) {
      const base = `/api/provider/workbench/leads/${id}`;
      await expectProblem(
        await sessionCall(second.cookie, `${base}/status`, { body: { status: 'contacted' } }),
        404,
        'not_found',
      );
      await expectProblem(
        await sessionCall(second.cookie, `${base}/messages`, { body: { text: 'Hi' } }),
        404,
        'not_found',
      );
      await expectProblem(
        await sessionCall(second.cookie, `${base}/live-ticket`, { method: 'POST' }),
        404,
        'not_found',
      );
    }
    // Once another expert holds it, the claim says no more than that either.
    expect((await claim(first, leadId)).status).toBe(200);
    await expectProblem(await claim(second, leadId), 404, 'not_found');
    expect(await history(leadId)).toEqual(['Offered to the best matching expert.', null]);
    expect((await lead(leadId)).wave).toBe(1);
  });

  it('ranks by topic, then language, then region, then open claims, then the longest since a claim', async () => {
    // Each pair is equal but for one criterion; the later-created one wins by it (ids alone favour the earlier).
    const topic = await channel({ offer_first: 1 });
    await expert({ domain: topic.domain });
    const specific = await expert({ domain: topic.domain, topics: ['payroll'] });
    expect(await offeredTo(await newLead(topic.channelKey, 'Our payroll run failed.'))).toEqual([specific.providerId]);

    const language = await channel({ offer_first: 1 });
    await expert({ domain: language.domain, languages: ['en'] });
    const german = await expert({ domain: language.domain, languages: ['en', 'de'] });
    const germanLead = await newLead(language.channelKey, 'Hallo', { 'Accept-Language': 'de-DE,de;q=0.9' });
    expect(await offeredTo(germanLead)).toEqual([german.providerId]);
    expect((await lead(germanLead)).language).toBe('de');

    const region = await channel({ offer_first: 1 });
    await expert({ domain: region.domain, regions: ['global'] });
    const local = await expert({ domain: region.domain, regions: ['FR'] });
    expect(await offeredTo(await newLead(region.channelKey, 'Bonjour', { 'CF-IPCountry': 'FR' }))).toEqual([
      local.providerId,
    ]);

    const load = await channel({ offer_first: 1 });
    const busy = await expert({ domain: load.domain });
    const idle = await expert({ domain: load.domain });
    const taken = await newLead(load.channelKey);
    expect(await offeredTo(taken)).toEqual([busy.providerId]);
    expect((await claim(busy, taken)).status).toBe(200);
    expect(await offeredTo(await newLead(load.channelKey))).toEqual([idle.providerId]);

    const turns = await channel({ offer_first: 1 });
    const recent = await expert({ domain: turns.domain });
    const waiting = await expert({ domain: turns.domain });
    const done = await newLead(turns.channelKey);
    expect((await claim(recent, done)).status).toBe(200);
    const won = (status: string) =>
      sessionCall(recent.cookie, `/api/provider/workbench/leads/${done}/status`, { body: { status } });
    for (const status of ['contacted', 'qualified', 'won']) expect((await won(status)).status).toBe(200);
    // Neither holds a lead now: the one who claimed longest ago (never) is next.
    expect(await offeredTo(await newLead(turns.channelKey))).toEqual([waiting.providerId]);
  });

  it('away experts get no offers, in the first wave or a wider one', async () => {
    const { domain, channelKey } = await channel({ offer_first: 3 });
    const away = await expert({ domain });
    const present = await expert({ domain });
    expect(
      (await sessionCall(away.cookie, '/api/provider/preferences', { body: { availability: 'away' } })).status,
    ).toBe(200);
    const leadId = await newLead(channelKey);
    expect(await offeredTo(leadId)).toEqual([present.providerId]);
    await sweepLeadTimers(db(), clock.now() + 11 * MINUTE);
    expect(await offeredTo(leadId)).toEqual([present.providerId]);
  });
});

describe('timers', () => {
  it('a widening sweep that offers one expert 40 leads at once queues at most 30 instant alerts', async () => {
    const { domain, channelKey } = await channel({ offer_first: 1, offer_widen_minutes: 10 });
    const first = await expert({ domain, alerts: true });
    const second = await expert({ domain, alerts: true });
    const leadIds: string[] = [];
    for (let index = 0; index < 40; index++) leadIds.push(await newLead(channelKey, `Request ${index}`));
    const alerts = async (who: TestProvider) =>
      rows(
        `SELECT status, COUNT(*) AS n FROM emails WHERE provider_id = ? AND kind = 'lead_alert' GROUP BY status
         ORDER BY status`,
        who.providerId,
      );
    const secondWaves = await rows(
      `SELECT COUNT(*) AS n FROM lead_offers WHERE provider_id = ? AND lead_id IN (${leadIds.map(() => '?').join()})`,
      second.providerId,
      ...leadIds,
    );
    expect(secondWaves[0]!.n).toBe(0);
    const latest = Math.max(...(await Promise.all(leadIds.map(async (id) => (await lead(id)).created_at as number))));
    await sweepLeadTimers(db(), latest + 10 * MINUTE);
    // One statement offered the second expert all 40: 30 go now, 10 wait for the digest.
    expect(await alerts(second)).toEqual([
      { status: 'held', n: 10 },
      { status: 'queued', n: 30 },
    ]);
    for (const who of [first, second]) {
      const instant = (await alerts(who)).filter((row) => row.status !== 'held');
      expect(instant.reduce((sum, row) => sum + (row.n as number), 0)).toBeLessThanOrEqual(30);
    }
  });

  it('widens after offer_widen_minutes, escalates after escalate_minutes, once for overlapping sweeps', async () => {
    const { domain, channelKey } = await channel({ offer_first: 1, offer_widen_minutes: 10, escalate_minutes: 60 });
    const first = await expert({ domain, alerts: true });
    const second = await expert({ domain, alerts: true });
    const leadId = await newLead(channelKey);
    const created = (await lead(leadId)).created_at as number;

    await sweepLeadTimers(db(), created + 9 * MINUTE);
    expect(await offeredTo(leadId)).toEqual([first.providerId]);
    const sweeps = await Promise.all([
      sweepLeadTimers(db(), created + 10 * MINUTE),
      sweepLeadTimers(db(), created + 10 * MINUTE),
    ]);
    expect(sweeps.map((sweep) => sweep.widened).sort()).toEqual([0, 1]);
    expect((await offeredTo(leadId)).sort()).toEqual([first.providerId, second.providerId].sort());
    expect((await lead(leadId)).wave).toBe(2);
    expect(await available(second)).toEqual([leadId]);
    // The newly offered expert is alerted (the first was, with the lead).
    const alerts = await rows('SELECT provider_id FROM emails WHERE lead_id = ? AND kind = ?', leadId, 'lead_alert');
    expect(alerts.map((row) => row.provider_id).sort()).toEqual([first.providerId, second.providerId].sort());

    await Promise.all([sweepLeadTimers(db(), created + 60 * MINUTE), sweepLeadTimers(db(), created + 61 * MINUTE)]);
    const unclaimed = await rows(
      "SELECT data FROM events WHERE type = 'lead.unclaimed' AND data LIKE ?",
      `%${leadId}%`,
    );
    expect(unclaimed).toHaveLength(1);
    expect(JSON.parse(unclaimed[0]!.data)).toMatchObject({ lead_id: leadId, domain, channel_key: channelKey });
    const ownerEmails = await rows(
      'SELECT user_id FROM emails WHERE lead_id = ? AND kind = ?',
      leadId,
      'lead_unclaimed',
    );
    expect(ownerEmails).toHaveLength(1);
    expect(await history(leadId)).toEqual([
      'Offered to the best matching expert.',
      'Nobody claimed it within 10 minutes: offered to every matching expert.',
      "Nobody claimed it within 60 minutes: the workspace's owners were emailed.",
    ]);
  });

  it('a claim unanswered for claim_sla_minutes is released, offered to others; its claimer waits 24 h', async () => {
    const { domain, channelKey } = await channel({ offer_first: 1, claim_sla_minutes: 30 });
    const slow = await expert({ domain });
    const other = await expert({ domain });
    const lapsing = await newLead(channelKey);
    expect((await claim(slow, lapsing)).status).toBe(200);
    // The next lead goes to `other` (fewer open claims), who claims and replies in time.
    const answered = await newLead(channelKey);
    await expectProblem(await claim(slow, answered), 404, 'not_found');
    expect((await claim(other, answered)).status).toBe(200);
    const replied = await sessionCall(other.cookie, `/api/provider/workbench/leads/${answered}/messages`, {
      body: { text: 'On it.' },
    });
    expect(replied.status).toBe(201);

    const claimedAt = (await lead(lapsing)).claimed_at as number;
    expect((await sweepLeadTimers(db(), claimedAt + 29 * MINUTE)).lapsed).toBe(0);
    const [a, b] = await Promise.all([
      sweepLeadTimers(db(), claimedAt + 30 * MINUTE),
      sweepLeadTimers(db(), claimedAt + 30 * MINUTE),
    ]);
    expect(a.lapsed + b.lapsed).toBe(1);
    expect(await lead(lapsing)).toMatchObject({ status: 'open', claimed_by: null, wave: 2 });
    expect((await lead(answered)).status).toBe('contacted');
    const released = await rows("SELECT data FROM events WHERE type = 'lead.released' AND data LIKE ?", `%${lapsing}%`);
    expect(JSON.parse(released[0]!.data)).toMatchObject({
      reason: 'claim_sla',
      released_by: { provider_id: slow.providerId, name: 'Test Expert' },
    });
    expect((await history(lapsing)).at(-1)).toBe(
      'Released: no reply within 30 minutes of the claim. Offered to every other matching expert.',
    );
    await expectProblem(await claim(slow, lapsing), 409, 'recently_released');
    expect(await available(slow)).not.toContain(lapsing);
    expect((await claim(other, lapsing)).status).toBe(200);
  });
});

describe('bounds', () => {
  it('capacity, the cooldown after a release, and 30 claims an hour', async () => {
    const { domain, channelKey } = await channel({ offer_first: 5 });
    const busy = await expert({ domain, alerts: true });
    await sessionCall(busy.cookie, '/api/provider/preferences', { body: { max_open_claims: 1 } });
    const one = await newLead(channelKey);
    const two = await newLead(channelKey);
    expect((await claim(busy, one)).status).toBe(200);
    const full = await expectProblem(await claim(busy, two), 409, 'capacity_reached');
    expect(full).toMatchObject({ open_claims: 1, max_open_claims: 1 });

    const release = await sessionCall(busy.cookie, `/api/provider/workbench/leads/${one}/status`, {
      body: { status: 'open', note: 'Not for me.' },
    });
    expect(release.status).toBe(200);
    await expectProblem(await claim(busy, one), 409, 'recently_released');
    // The release alerted the others it was offered to anew, never the releaser.
    const alerted = await rows('SELECT provider_id FROM emails WHERE lead_id = ? AND kind = ?', one, 'lead_alert');
    expect(alerted.filter((row) => row.provider_id === busy.providerId)).toHaveLength(1);
    expect((await claim(busy, two)).status).toBe(200);

    // Lost races and wrong ids cost nothing but attempts: the limit counts claims that won.
    const eager = await expert({ domain });
    const rival = await expert({ domain });
    const [three, four, five] = [await newLead(channelKey), await newLead(channelKey), await newLead(channelKey)];
    expect((await claim(rival, five)).status).toBe(200);
    const attempts = await Promise.all([
      ...Array.from({ length: 20 }, () => claim(eager, 'lead_01nonexistent0000000000000')),
      ...Array.from({ length: 20 }, () => claim(eager, five)),
    ]);
    expect(attempts.map((response) => response.status).sort()).toEqual([
      ...Array<number>(20).fill(404),
      ...Array<number>(20).fill(409),
    ]);
    expect((await claim(eager, three)).status).toBe(200);
    const window = async () =>
      (await rows('SELECT count FROM rate_limit_windows WHERE key_id = ?', `claims:${eager.providerId}`))[0]?.count;
    expect(await window()).toBe(1);
    // 30 claims won within the hour: the next one is refused, and writes nothing.
    await platformDb
      .prepare('UPDATE rate_limit_windows SET count = 30 WHERE key_id = ?')
      .bind(`claims:${eager.providerId}`)
      .run();
    const limited = await expectProblem(await claim(eager, four), 429, 'rate_limited');
    expect(limited.detail).toContain('30 claims an hour');
    expect((await lead(four)).status).toBe('open');
    expect(await window()).toBe(30);

    // Platform admins see how many contacts each expert has revealed (one per claim) on the review page.
    const admin = await signUpPlatformAdmin();
    const review = await (await getPage(`/admin/providers/${busy.providerId}`, admin.cookie)).text();
    expect(review).toContain('Contact reveals');
    expect(review).toContain('2 (one per claim)');
  });

  it('20 experts claiming one lead at once: one winner, with offers and capacity in force', async () => {
    const { domain, channelKey } = await channel({ offer_first: 3 });
    const experts = await Promise.all(Array.from({ length: 20 }, () => expert({ domain })));
    const leadId = await newLead(channelKey);
    expect(await offeredTo(leadId)).toHaveLength(3);
    await sweepLeadTimers(db(), clock.now() + 10 * MINUTE);
    expect(await offeredTo(leadId)).toHaveLength(20);
    const answers = await Promise.all(experts.map((who) => claim(who, leadId)));
    const statuses = answers.map((response) => response.status).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(19);
    expect((await lead(leadId)).status).toBe('claimed');
  });
});

describe('the owner’s view', () => {
  it('recent intake shows each lead’s wave and its times to first claim and contact', async () => {
    const { domain, channelKey, key } = await channel({ offer_first: 1 });
    const first = await expert({ domain });
    const leadId = await newLead(channelKey);
    await claim(first, leadId);
    await sessionCall(first.cookie, `/api/provider/workbench/leads/${leadId}/messages`, { body: { text: 'Hello!' } });
    const intake = await json(await call(`/api/integrations/channels/${channelKey}/intake`, { token: key.token }));
    expect(intake.data[0].lead).toMatchObject({
      lead_id: leadId,
      wave: 1,
      seconds_to_first_claim: expect.any(Number),
      seconds_to_first_contact: expect.any(Number),
    });
  });
});
