import { beforeAll, describe, expect, it } from 'vitest';
import { createActiveAgent, messageResult, newDomain, partsOf, remotes, rpcAgent, taskResult } from './agent-helpers';
import { getPage, signUpOwner } from './console-helpers';
import { call, createTenant, expectProblem, issueKey, json } from './helpers';
import {
  createActiveExpert,
  createChannel,
  review,
  SITE,
  sessionCall,
  type TestProvider,
  visitorSays,
} from './provider-helpers';
import { workerFetch } from './self';
import {
  until,
  type Frame,
  openSocket,
  visitorTicket,
  providerTicket,
  reply,
  thread,
  claimedLead,
} from './live-fixtures';
import { platformDb } from './platform-db';

describe('the claimer replies, the visitor reads', () => {
  it('a reply reaches the thread with its author; the first moves claimed to contacted, once', async () => {
    const { channelKey, expert, session, leadId } = await claimedLead();
    const first = await reply(expert, leadId, 'Hi! I can help. <img src=x onerror=alert(1)>');
    expect(first.status, await first.clone().text()).toBe(201);
    const { message_id: firstId } = await json(first);
    expect(firstId).toMatch(/^msg_/);
    expect((await reply(expert, leadId, 'Which CRM do you use today?')).status).toBe(201);

    const read = await json(await thread(channelKey, session));
    expect(read.reference).toMatch(/^D-/);
    expect(read.lead).toEqual({ status: 'contacted', claimed_by_name: 'Test Expert' });
    expect(read.messages.map((message: any) => [message.role, message.author_name, message.text])).toEqual([
      ['visitor', null, 'Hello, I need a person.'],
      ['system', null, expect.stringContaining('bringing in')],
      ['provider', 'Test Expert', 'Hi! I can help. <img src=x onerror=alert(1)>'],
      ['provider', 'Test Expert', 'Which CRM do you use today?'],
    ]);
    expect(read.has_more).toBe(false);
    // `after` reads on from a message; the history shows one move to contacted.
    const after = await json(await thread(channelKey, session, firstId));
    expect(after.messages.map((message: any) => message.text)).toEqual(['Which CRM do you use today?']);
    const detail = await json(await sessionCall(expert.cookie, `/api/provider/workbench/leads/${leadId}`));
    expect(detail.history.filter((entry: any) => entry.to === 'contacted')).toHaveLength(1);
    expect(detail.messages.at(-1)).toMatchObject({ role: 'provider', author_name: 'Test Expert' });
  });

  it('after the claim, the visitor’s messages get no automatic reply: the claimer answers', async () => {
    const { channelKey, session } = await claimedLead();
    const next = await visitorSays(channelKey, { session_id: session, message: { text: 'Are you there?' } });
    expect(next.reply).toBe('');
    expect(next.messages.map((message: any) => message.role)).toEqual(['visitor']);
    const read = await json(await thread(channelKey, session));
    expect(read.messages.at(-1)).toMatchObject({ role: 'visitor', text: 'Are you there?' });
  });

  it('refuses the others: another expert, a released claimer, a suspended one, a closed lead', async () => {
    const { domain, expert, leadId } = await claimedLead();
    // An expert it was never offered to: as if it did not exist.
    const other = await createActiveExpert({ domains: [domain] });
    await expectProblem(await reply(other, leadId, 'Me too'), 404, 'not_found');
    await expectProblem(await providerTicket(other, leadId), 404, 'not_found');
    const outsider = await createActiveExpert({ domains: ['consultation'] });
    await expectProblem(await reply(outsider, leadId, 'Hi'), 404, 'not_found');

    // Released: the conversation is closed to its former claimer.
    const move = (who: TestProvider, status: string) =>
      sessionCall(who.cookie, `/api/provider/workbench/leads/${leadId}/status`, { body: { status } });
    expect((await move(expert, 'contacted')).status).toBe(200);
    expect((await move(expert, 'open')).status).toBe(200);
    await expectProblem(await reply(expert, leadId, 'Still here'), 403, 'not_claimer');
    await expectProblem(await providerTicket(expert, leadId), 403, 'not_claimer');
    // The release offered it to every matching expert: another takes it over, and loses it. Lost: closed.
    expect(
      (await sessionCall(other.cookie, `/api/provider/workbench/leads/${leadId}/claim`, { method: 'POST' })).status,
    ).toBe(200);
    for (const status of ['contacted', 'qualified', 'lost']) expect((await move(other, status)).status).toBe(200);
    const closed = await expectProblem(await reply(other, leadId, 'Hello?'), 409, 'lead_closed');
    expect(closed.status).toBe(409);
    await expectProblem(await providerTicket(other, leadId), 409, 'lead_closed');

    const second = await claimedLead();
    expect((await review(second.expert.providerId, 'suspend', 'Checks')).status).toBe(200);
    await expectProblem(await reply(second.expert, second.leadId, 'Hi'), 403, 'provider_inactive');
    await expectProblem(await providerTicket(second.expert, second.leadId), 403, 'provider_inactive');
  });

  it('bad replies are problems: empty, blank, too long, unknown fields', async () => {
    const { expert, leadId } = await claimedLead();
    for (const body of [{ text: '' }, { text: '   ' }, { text: 'x'.repeat(4001) }, { text: 'hi', extra: 1 }, {}]) {
      const response = await sessionCall(expert.cookie, `/api/provider/workbench/leads/${leadId}/messages`, { body });
      await expectProblem(response, 422, 'validation_failed');
    }
    expect((await reply(expert, leadId, 'x'.repeat(4000))).status).toBe(201);
  });

  it('at most 60 replies a minute per provider', async () => {
    const { expert, leadId } = await claimedLead();
    const statuses = await Promise.all(
      Array.from({ length: 61 }, async (_, index) => (await reply(expert, leadId, `Reply ${index}`)).status),
    );
    expect(statuses.filter((status) => status === 201)).toHaveLength(60);
    expect(statuses.filter((status) => status === 429)).toHaveLength(1);
    const refused = await reply(expert, leadId, 'One more');
    await expectProblem(refused, 429, 'rate_limited');
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0);
  });

  it('the visitor’s thread needs that visitor’s session, on that channel', async () => {
    const { channelKey, session } = await claimedLead();
    const elsewhere = await claimedLead();
    await expectProblem(
      await call(`/api/public/widget/${channelKey}/messages`, { headers: { Origin: SITE } }),
      401,
      'invalid_session',
    );
    await expectProblem(await thread(channelKey, 'egv_unknown'), 401, 'invalid_session');
    await expectProblem(await thread(channelKey, elsewhere.session), 401, 'invalid_session');
    await expectProblem(await visitorTicket(channelKey, elsewhere.session), 401, 'invalid_session');
    await expectProblem(
      await call(`/api/public/widget/${channelKey}/messages`, {
        headers: { Origin: 'https://evil.example.com', Authorization: `Bearer ${session}` },
      }),
      403,
      'origin_not_allowed',
    );
    await expectProblem(await thread(channelKey, session, 'not-a-message'), 422, 'validation_failed');
  });
});

describe('the handoff between the agent and a person', () => {
  it('the agent answers after a decline, and is silent once a person claims the lead', async () => {
    const domain = await newDomain('handoff');
    const tenant = await createTenant({ scopes: ['execute', 'channels:write'] });
    const channelKey = await createChannel(tenant.token, { domain });
    const expert = await createActiveExpert({ domains: [domain] });
    await createActiveAgent('https://faq-agent.example.com', { domain, name: 'FAQ agent' });
    const asked: string[] = [];
    remotes.set(
      'https://faq-agent.example.com/a2a',
      rpcAgent((rpc) => {
        const text = partsOf(rpc).text ?? '';
        asked.push(text);
        return text.includes('hours') ? messageResult('We are open 9 to 5.') : taskResult('TASK_STATE_REJECTED');
      }),
    );
    const first = await visitorSays(channelKey, { message: { text: 'What are your opening hours?' } });
    expect(first.answered_by).toEqual({ kind: 'agent', name: 'FAQ agent' });
    const session = first.session_id as string;
    const declined = await visitorSays(channelKey, { session_id: session, message: { text: 'Do my payroll?' } });
    expect(declined.answered_by).toBeUndefined();
    expect(declined.lead_id).toMatch(/^lead_/);
    // The decline did not silence it: the next question it covers, it answers.
    const again = await visitorSays(channelKey, { session_id: session, message: { text: 'And hours on Friday?' } });
    expect(again).toMatchObject({ answered_by: { kind: 'agent' }, reply: 'We are open 9 to 5.' });
    expect(asked).toHaveLength(3);

    const claimed = await sessionCall(expert.cookie, `/api/provider/workbench/leads/${declined.lead_id}/claim`, {
      method: 'POST',
    });
    expect(claimed.status).toBe(200);
    const after = await visitorSays(channelKey, { session_id: session, message: { text: 'Your hours again?' } });
    expect(after.answered_by).toBeUndefined();
    expect(after.reply).toBe('');
    expect(asked).toHaveLength(3);
  });
});

describe('live sockets (the conversation room)', () => {
  let setup: Awaited<ReturnType<typeof claimedLead>>;
  beforeAll(async () => {
    setup = await claimedLead();
  });

  async function visitorSocket() {
    const response = await visitorTicket(setup.channelKey, setup.session);
    expect(response.status).toBe(200);
    const { url, expires_in } = await json(response);
    expect(url).toMatch(/^ws:\/\/gateway\.test\/live\/cnv_[0-9a-z]{26}\?ticket=lvt_/);
    expect(expires_in).toBe(60);
    return openSocket(url);
  }

  async function expertSocket() {
    const response = await providerTicket(setup.expert, setup.leadId);
    expect(response.status, await response.clone().text()).toBe(200);
    return openSocket((await json(response)).url);
  }

  it('fans each message out to every participant, after the resume backlog, each once', async () => {
    const visitorA = await visitorSocket();
    const visitorB = await visitorSocket();
    const expert = await expertSocket();
    for (const socket of [visitorA, visitorB, expert]) socket.send({ type: 'resume', after: null });
    await until(() => [visitorA, visitorB, expert].every((s) => s.frames.some((f) => f.type === 'resumed')));
    const backlog = visitorA.messages().length;
    expect(backlog).toBeGreaterThanOrEqual(2);

    expect((await reply(setup.expert, setup.leadId, 'Live from the expert')).status).toBe(201);
    // Each write's fan-out runs after its commit, beside the next request: the order two writes
    // arrive in is the order their fan-outs finish, so the visitor writes once the reply is out.
    for (const socket of [visitorA, visitorB, expert])
      await until(() => socket.messages().includes('Live from the expert'));
    await visitorSays(setup.channelKey, { session_id: setup.session, message: { text: 'Live from the visitor' } });
    for (const socket of [visitorA, visitorB, expert]) {
      await until(() => socket.messages().includes('Live from the visitor'));
      expect(socket.messages().slice(backlog)).toEqual(['Live from the expert', 'Live from the visitor']);
    }
    // The first reply moved the lead along: every participant heard.
    expect(visitorA.frames).toContainEqual({ type: 'lead', status: 'contacted', claimed_by_name: 'Test Expert' });
    for (const socket of [visitorA, visitorB, expert]) socket.socket.close();
  });

  it('resumes with nothing lost and nothing twice across a disconnect in the middle of a burst', async () => {
    const expertSide = await expertSocket();
    expertSide.send({ type: 'resume', after: null });
    await until(() => expertSide.frames.some((frame) => frame.type === 'resumed'));
    const first = await visitorSocket();
    first.send({ type: 'resume', after: null });
    await until(() => first.frames.some((frame) => frame.type === 'resumed'));

    const burst = Array.from({ length: 20 }, (_, index) => `Burst ${index}`);
    // The second half waits for the drop, so the drop falls mid-burst however fast the replies go.
    let dropped = () => {};
    const drop = new Promise<void>((resolve) => (dropped = resolve));
    const sending = (async () => {
      for (const [index, text] of burst.entries()) {
        if (index === 10) await drop;
        expect((await reply(setup.expert, setup.leadId, text)).status).toBe(201);
      }
    })();
    await until(() => first.messages().includes('Burst 5'));
    first.socket.close(); // The visitor's network drops mid-burst.
    const messagesOf = (frames: Frame[]) => frames.filter((frame) => frame.type === 'message').map((f) => f.message);
    const seen = messagesOf(first.frames);
    // The client resumes after the last message it holds (it keeps its thread in id order).
    const last = seen
      .map((message: any) => message.message_id as string)
      .sort()
      .at(-1)!;
    dropped();

    const second = await visitorSocket();
    second.send({ type: 'resume', after: last });
    await sending;
    // What the client shows: each message once, by id. Two publishes a moment apart may cross, so
    // the resume reads the few seconds before `last` again; the client drops what it holds.
    const shown = () =>
      new Map([...seen, ...messagesOf(second.frames)].map((message: any) => [message.message_id, message.text]));
    await until(() => [...shown().values()].includes('Burst 19'));
    const texts = [...shown()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([, text]) => text as string)
      .filter((text) => text.startsWith('Burst '));
    expect(texts).toEqual(burst); // Nothing lost, in order.
    const resent = messagesOf(second.frames).map((message: any) => message.message_id as string);
    expect(new Set(resent).size).toBe(resent.length); // The socket sends each message once.
    // Polling returns what the socket delivered.
    const polled = await json(await thread(setup.channelKey, setup.session));
    expect(
      polled.messages.map((message: any) => message.text).filter((text: string) => text.startsWith('Burst ')),
    ).toEqual(burst);
    second.socket.close();
    expertSide.socket.close();
  });

  it('a resume reads the seconds before the message it names again: one that came late is not lost', async () => {
    const earlier = await json(await reply(setup.expert, setup.leadId, 'Committed first, delivered second'));
    const later = await json(await reply(setup.expert, setup.leadId, 'Committed second, delivered first'));
    // A client that holds only the later one (the two crossed on their way to the room) resumes after it.
    const socket = await visitorSocket();
    socket.send({ type: 'resume', after: later.message_id });
    await until(() => socket.frames.some((frame) => frame.type === 'resumed'));
    const ids = socket.frames.filter((frame) => frame.type === 'message').map((frame) => frame.message.message_id);
    expect(ids).toContain(earlier.message_id);
    expect(new Set(ids).size).toBe(ids.length);
    socket.socket.close();
  });

  it('typing and read marks travel between the participants; a later socket gets the last read mark', async () => {
    const visitor = await visitorSocket();
    const expert = await expertSocket();
    for (const socket of [visitor, expert]) socket.send({ type: 'resume', after: null });
    await until(() => [visitor, expert].every((s) => s.frames.some((f) => f.type === 'resumed')));
    visitor.send({ type: 'typing', active: true });
    await until(() => expert.frames.some((frame) => frame.type === 'typing'));
    expect(expert.frames.find((frame) => frame.type === 'typing')).toEqual({
      type: 'typing',
      role: 'visitor',
      active: true,
    });
    expect(visitor.frames.some((frame) => frame.type === 'typing')).toBe(false);
    const lastVisitorMessage = expert.frames
      .filter((f) => f.type === 'message' && f.message.role === 'visitor')
      .at(-1)!;
    expert.send({ type: 'read', up_to: lastVisitorMessage.message.message_id });
    await until(() => visitor.frames.some((frame) => frame.type === 'read'));
    expect(visitor.frames.find((frame) => frame.type === 'read')).toEqual({
      type: 'read',
      role: 'provider',
      up_to: lastVisitorMessage.message.message_id,
    });
    // Junk frames are ignored, not fatal.
    visitor.socket.send('not json');
    visitor.send({ type: 'typing', active: 'yes' });
    const later = await visitorSocket();
    later.send({ type: 'resume', after: null });
    await until(() => later.frames.some((frame) => frame.type === 'resumed'));
    expect(later.frames).toContainEqual({
      type: 'read',
      role: 'provider',
      up_to: lastVisitorMessage.message.message_id,
    });
    for (const socket of [visitor, expert, later]) socket.socket.close();
  });

  it('a ticket opens one socket, once; at most 5 sockets per participant', async () => {
    // A conversation of its own: sockets the other tests closed may still be closing in theirs.
    setup = await claimedLead();
    const { url } = await json(await visitorTicket(setup.channelKey, setup.session));
    const opened = await openSocket(url);
    const again = await workerFetch(url.replace(/^ws/, 'http'), { headers: { Upgrade: 'websocket' } });
    await expectProblem(again, 401, 'invalid_token');
    const forged = await workerFetch(`${url.replace(/^ws/, 'http').split('?')[0]}?ticket=lvt_forged`, {
      headers: { Upgrade: 'websocket' },
    });
    expect(forged.status).toBe(401);
    const sockets = [opened];
    for (let i = 0; i < 4; i++) sockets.push(await visitorSocket());
    const { url: sixth } = await json(await visitorTicket(setup.channelKey, setup.session));
    await expectProblem(
      await workerFetch(sixth.replace(/^ws/, 'http'), { headers: { Upgrade: 'websocket' } }),
      429,
      'rate_limited',
    );
    // The expert's own five are counted apart.
    const expert = await expertSocket();
    for (const socket of [...sockets, expert]) socket.socket.close();
    expect((await workerFetch('http://gateway.test/live/not-a-conversation')).status).toBe(404);
  });

  it('a lead lost ends the live session politely, with a closed frame', async () => {
    const own = await claimedLead();
    const ticket = await json(await providerTicket(own.expert, own.leadId));
    const expert = await openSocket(ticket.url);
    const visitor = await openSocket((await json(await visitorTicket(own.channelKey, own.session))).url);
    for (const socket of [visitor, expert]) socket.send({ type: 'resume', after: null });
    await until(() => [visitor, expert].every((s) => s.frames.some((f) => f.type === 'resumed')));
    const closed = new Promise<number>((resolve) =>
      expert.socket.addEventListener('close', (event) => resolve(event.code)),
    );
    for (const status of ['contacted', 'qualified', 'lost']) {
      const moved = await sessionCall(own.expert.cookie, `/api/provider/workbench/leads/${own.leadId}/status`, {
        body: { status },
      });
      expect(moved.status).toBe(200);
    }
    expect(await closed).toBe(1000);
    expect(expert.frames.at(-1)).toEqual({ type: 'closed', reason: 'lead_lost' });
    await until(() => visitor.frames.some((frame) => frame.type === 'closed'));
    expect(visitor.frames).toContainEqual({ type: 'lead', status: 'lost', claimed_by_name: 'Test Expert' });
  });
});

describe('the events the live rooms read', () => {
  it('lead events name their conversation; message events name their author', async () => {
    const { expert, leadId } = await claimedLead();
    expect((await reply(expert, leadId, 'Named')).status).toBe(201);
    const rows = await platformDb
      .prepare(
        `SELECT type, data FROM events WHERE type IN ('lead.claimed', 'conversation.message_created')
       AND (json_extract(data, '$.lead_id') = ? OR json_extract(data, '$.text') = 'Named')`,
      )
      .bind(leadId)
      .all<{ type: string; data: string }>();
    const byType = Object.fromEntries(rows.results.map((row) => [row.type, JSON.parse(row.data)]));
    expect(byType['lead.claimed'].conversation_id).toMatch(/^cnv_/);
    expect(byType['conversation.message_created']).toMatchObject({ role: 'provider', author_name: 'Test Expert' });
  });
});

describe('the site owner reads a conversation', () => {
  it('whole, read only, with authors, without the visitor’s contact details; 404 for another workspace', async () => {
    const owner = await signUpOwner();
    const key = await issueKey(owner.workspaceId, { scopes: ['execute', 'channels:write'] });
    const domain = await newDomain('owner');
    const channelKey = await createChannel(key.token, { domain });
    const expert = await createActiveExpert({ domains: [domain] });
    const first = await visitorSays(channelKey, {
      message: { text: 'I need <b>help</b> with payroll.' },
      trigger: 'handoff',
    });
    await visitorSays(channelKey, {
      session_id: first.session_id,
      trigger: 'lead_capture',
      contact: { name: 'Robin Vale', email: 'robin.vale@example.com', phone: '+49 30 1234567' },
    });
    expect(
      (await sessionCall(expert.cookie, `/api/provider/workbench/leads/${first.lead_id}/claim`, { method: 'POST' }))
        .status,
    ).toBe(200);
    expect((await reply(expert, first.lead_id, 'Thanks, I will write to you today.')).status).toBe(201);
    const row = await platformDb
      .prepare('SELECT conversation_id AS id FROM leads WHERE id = ?')
      .bind(first.lead_id)
      .first<{ id: string }>();
    const path = `/integrations/channels/${channelKey}/conversations/${row!.id}?ws=${owner.workspaceId}`;

    const channelPage = await (
      await getPage(`/integrations/channels/${channelKey}/intake?ws=${owner.workspaceId}`, owner.cookie)
    ).text();
    expect(channelPage).toContain(`/conversations/${row!.id}`);
    for (const secret of ['Robin Vale', 'robin.vale@example.com', '1234567']) expect(channelPage).not.toContain(secret);
    const page = await getPage(path, owner.cookie);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('I need &lt;b&gt;help&lt;/b&gt; with payroll.');
    expect(html).toContain('Thanks, I will write to you today.');
    expect(html).toContain('Test Expert (expert)');
    expect(html).toContain('status-contacted');
    for (const secret of ['Robin Vale', 'robin.vale@example.com', '1234567']) expect(html).not.toContain(secret);
    expect(html).not.toContain('<textarea'); // Read only: nothing to write with.

    const stranger = await signUpOwner();
    expect((await getPage(`${path.split('?')[0]}?ws=${stranger.workspaceId}`, stranger.cookie)).status).toBe(404);
    const elsewhere = await claimedLead();
    const wrongChannel = `/integrations/channels/${channelKey}/conversations/${
      (
        await platformDb
          .prepare('SELECT conversation_id AS id FROM leads WHERE id = ?')
          .bind(elsewhere.leadId)
          .first<{ id: string }>()
      )!.id
    }?ws=${owner.workspaceId}`;
    expect((await getPage(wrongChannel, owner.cookie)).status).toBe(404);
  });
});
