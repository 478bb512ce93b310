/**
 * The workspace's knowledge as the first agent of a channel (docs/design/knowledge.md): asked
 * first when the channel has it on; a confident answer is the reply, with its sources, counted on
 * the agent_calls meter, in one more D1 read at most; a declined question goes on to the experts
 * exactly as before and becomes a gap, which keeps the expert's answer. The rollups count both,
 * and the handoffs after a knowledge answer.
 */
import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { app } from '../../worker/index';
import { recordContract } from './billing-helpers';
import { ADMIN_TOKEN, call, createTenant, json, type Tenant, workerDb } from './helpers';
import { createActiveExpert, createChannel, SITE, sessionCall, visitorSays } from './provider-helpers';
import { newDomain } from './agent-helpers';
import { rollUp } from '../../worker/platform/rollups';
import { platformDb } from './platform-db';

let tenant: Tenant;
let channelKey: string;
let domain: string;

beforeAll(async () => {
  domain = await newDomain('kb');
  tenant = await createTenant({
    scopes: ['execute', 'channels:read', 'channels:write', 'knowledge:read', 'knowledge:write'],
  });
  channelKey = await createChannel(tenant.token, { domain });
  const source = await call('/api/knowledge/sources', {
    token: tenant.token,
    body: {
      kind: 'document',
      title: 'Store help',
      url: 'https://shop.example.com/help',
      content_type: 'text/markdown',
      content:
        '# Store help\n\n## Returns\n\nYou can return any item within 30 days for a full refund. Print the return ' +
        'label from your order page.\n\n## Delivery\n\nStandard delivery takes three to five working days.\n',
    },
  });
  expect(source.status).toBe(201);
  const on = await call(`/api/integrations/channels/${channelKey}`, {
    method: 'PATCH',
    token: tenant.token,
    body: { knowledge: { enabled: true, min_confidence: 0.5 } },
  });
  expect((await json(on)).knowledge).toEqual({ enabled: true, min_confidence: 0.5 });
});

describe('a channel with its knowledge on', () => {
  it('answers a covered question from the knowledge, with its sources, counted as an agent call', async () => {
    await recordContract(tenant.workspaceId, { allowances: { executions: 100, agent_calls: 100, leads: 100 } });
    const answered = await visitorSays(channelKey, { message: { text: 'How many days do I have to return an item?' } });
    expect(answered.answered_by).toEqual({ kind: 'knowledge', name: expect.any(String) });
    expect(answered.reply).toMatch(/^From “Store help”: .*within 30 days/);
    expect(answered.lead_id).toBeUndefined();
    const reply = answered.messages.find((message: { role: string }) => message.role === 'agent');
    expect(reply.sources).toEqual([{ title: 'Store help › Returns', url: 'https://shop.example.com/help#returns' }]);
    // The thread keeps the sources with the message.
    const thread = await json(
      await call(`/api/public/widget/${channelKey}/messages`, {
        headers: { Origin: SITE, Authorization: `Bearer ${answered.session_id}` },
      }),
    );
    expect(thread.messages.at(-1).sources).toEqual(reply.sources);
    const meter = await platformDb
      .prepare(
        "SELECT used FROM usage_meters WHERE kind = 'contract' AND meter = 'agent_calls' AND key_id IN " +
          '(SELECT id FROM contracts WHERE workspace_id = ?)',
      )
      .bind(tenant.workspaceId)
      .first<{ used: number }>();
    expect(meter?.used).toBe(1);
    const event = await platformDb
      .prepare(
        "SELECT data FROM events WHERE workspace_id = ? AND type = 'execution.completed' ORDER BY rowid DESC LIMIT 1",
      )
      .bind(tenant.workspaceId)
      .first<{ data: string }>();
    expect(JSON.parse(event!.data)).toMatchObject({
      handled_by: { kind: 'knowledge' },
      knowledge: 'answered',
      knowledge_first: true,
    });
  });

  it('a question it does not cover goes to the experts as before, and is a gap with the expert’s answer', async () => {
    const expert = await createActiveExpert({ domains: [domain] });
    const question = 'Can I pay with a gift card from another shop?';
    const first = await visitorSays(channelKey, { message: { text: question }, trigger: 'handoff' });
    expect(first.answered_by).toBeUndefined();
    expect(first.lead_id).toMatch(/^lead_/);
    // A plain message the knowledge declines: no answer is guessed, and it is counted.
    const again = await visitorSays(channelKey, { message: { text: question } });
    expect(again.answered_by).toBeUndefined();
    const gaps = await json(await call('/api/knowledge/gaps', { token: tenant.token }));
    expect(gaps.data).toEqual([expect.objectContaining({ question, count: 1, expert_answer: null })]);
    // The expert answers in the conversation of the gap: the owner sees the answer beside it.
    const lead = again.lead_id ?? first.lead_id;
    expect(
      (await sessionCall(expert.cookie, `/api/provider/workbench/leads/${lead}/claim`, { method: 'POST' })).status,
    ).toBe(200);
    const replied = await sessionCall(expert.cookie, `/api/provider/workbench/leads/${lead}/messages`, {
      body: { text: 'Only our own gift cards are accepted.' },
    });
    expect(replied.status).toBe(201);
    const after = await json(await call('/api/knowledge/gaps', { token: tenant.token }));
    expect(after.data[0]).toMatchObject({ question, expert_answer: 'Only our own gift cards are accepted.' });
  });

  it('a handoff after a knowledge answer counts against the resolution rate', async () => {
    const asked = await json(
      await call('/api/knowledge/ask', {
        token: tenant.token,
        body: { question: 'How long does standard delivery take?' },
      }),
    );
    const answered = await visitorSays(channelKey, { message: { text: 'How long does standard delivery take?' } });
    expect(answered.answered_by?.kind, JSON.stringify(asked)).toBe('knowledge');
    const handoff = await visitorSays(channelKey, {
      session_id: answered.session_id,
      message: { text: 'I still need a person.' },
      trigger: 'handoff',
    });
    expect(handoff.lead_id).toMatch(/^lead_/);
    await rollUp(workerDb());
    const metrics = await platformDb
      .prepare(
        'SELECT metric, SUM(value) AS n FROM daily_rollups WHERE workspace_id = ? AND length(day) = 10 GROUP BY metric',
      )
      .bind(tenant.workspaceId)
      .all<{ metric: string; n: number }>();
    const of = Object.fromEntries(metrics.results.map((row) => [row.metric, row.n]));
    expect(of).toMatchObject({
      answered_by_knowledge: 2,
      declined_by_knowledge: 1,
      knowledge_conversations: 2,
      knowledge_handoffs: 1,
    });
    // The owner reads them in insights: of the 2 conversations it answered in, 1 went to a person.
    const view = await json(await call('/api/insights', { token: tenant.token }));
    expect(view.totals.knowledge).toEqual({
      answered: 2,
      declined: 1,
      conversations: 2,
      handoffs: 1,
      resolution_rate: 0.5,
    });
    // Day by day too, beside the agents' and robots' answers.
    expect(view.days.at(-1)).toMatchObject({ answered_by_knowledge: 2 });
  });

  it('asking the knowledge costs the intake one D1 round trip at most', async () => {
    const trips = async (key: string, text: string) => {
      const lines: string[] = [];
      const spy = vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
      const response = await app.request(
        `http://gateway.test/api/public/widget/${key}/intake`,
        {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Origin: SITE, 'CF-Connecting-IP': '203.0.113.77' },
          body: JSON.stringify({ message: { text } }),
        },
        env,
      );
      spy.mockRestore();
      expect(response.status).toBe(200);
      return lines.map((line) => JSON.parse(line)).find((entry) => entry.message === 'request').d1_round_trips;
    };
    const off = await createChannel(tenant.token, { domain });
    const question = 'What is the delivery time for standard delivery?';
    // Warm both channels' caches, then count.
    await trips(channelKey, question);
    await trips(off, question);
    const [withKnowledge, without] = [await trips(channelKey, question), await trips(off, question)];
    expect(withKnowledge - without).toBeLessThanOrEqual(1);
  });

  it('with the knowledge off, the channel routes as before', async () => {
    const other = await createChannel(tenant.token, { domain });
    const plain = await visitorSays(other, { message: { text: 'How many days do I have to return an item?' } });
    expect(plain.answered_by).toBeUndefined();
  });
});

describe('a declined question and the visitor’s erasure', () => {
  it('a question the visitor asked twice leaves no gap once they are erased', async () => {
    const question = `Do you sell gift cards for the ${crypto.randomUUID().slice(0, 6)} branch?`;
    const first = await visitorSays(channelKey, { message: { text: question } }, '198.18.11.1');
    await visitorSays(channelKey, { session_id: first.session_id, message: { text: question } }, '198.18.11.1');
    const gap = () =>
      platformDb
        .prepare('SELECT count FROM knowledge_gaps WHERE workspace_id = ? AND question = ?')
        .bind(tenant.workspaceId, question)
        .first<{ count: number }>();
    expect((await gap())?.count).toBe(2);
    const conversation = await platformDb
      .prepare('SELECT conversation_id FROM demands WHERE id = ?')
      .bind(first.demand_id)
      .first<{ conversation_id: string }>();
    const asked = await call(`/api/privacy/erasures?workspace_id=${tenant.workspaceId}`, {
      token: ADMIN_TOKEN,
      body: { conversation_id: conversation!.conversation_id },
    });
    expect(asked.status).toBe(202);
    await vi.waitUntil(async () => (await gap()) === null, { timeout: 10_000, interval: 50 });
  });
});

describe('the expert reads what the visitor asked', () => {
  it('a handoff’s lead is about the visitor’s own last question, not the button’s words, in any language', async () => {
    for (const [language, words] of [
      ['en', 'I would like to talk to an expert.'],
      ['de', 'Ich möchte mit einem Experten sprechen.'],
    ] as const) {
      const question = 'How many days do I have to return an item?';
      const asked = await visitorSays(channelKey, { message: { text: question } }, `198.18.12.${language.length}`);
      expect(asked.answered_by?.kind).toBe('knowledge');
      const handoff = await visitorSays(
        channelKey,
        { session_id: asked.session_id, trigger: 'handoff', message: { text: words } },
        `198.18.12.${language.length}`,
      );
      const lead = await platformDb
        .prepare('SELECT summary FROM leads WHERE id = ?')
        .bind(handoff.lead_id)
        .first<{ summary: string }>();
      expect(lead?.summary).toBe(question);
      const created = await platformDb
        .prepare("SELECT data FROM events WHERE type = 'lead.created' AND json_extract(data, '$.lead_id') = ?")
        .bind(handoff.lead_id)
        .first<{ data: string }>();
      expect(JSON.parse(created!.data).summary).toBe(question);
    }
    // Words of the visitor's own with the handoff are what it is about.
    const first = await visitorSays(channelKey, { message: { text: 'How long does delivery take?' } }, '198.18.12.9');
    const own = await visitorSays(
      channelKey,
      {
        session_id: first.session_id,
        trigger: 'handoff',
        message: { text: 'Can someone call me about a bulk order?' },
      },
      '198.18.12.9',
    );
    const row = await platformDb.prepare('SELECT summary FROM leads WHERE id = ?').bind(own.lead_id).first();
    expect(row).toEqual({ summary: 'Can someone call me about a bulk order?' });
  });
});

describe('a question the knowledge declines is always answered', () => {
  it('a question declined once a lead waits is answered: where the request is, in the visitor’s language', async () => {
    const first = await visitorSays(channelKey, { message: { text: 'Do you engrave watches?' } });
    expect(first.lead_id).toMatch(/^lead_/);
    const later = await visitorSays(channelKey, {
      session_id: first.session_id,
      message: { text: 'And can you polish a silver ring?' },
    });
    expect(later.lead_id).toBe(first.lead_id);
    expect(later.answered_by).toBeUndefined();
    expect(later.reply).toContain('An expert has your question and will answer here.');
    expect(later.messages.map((message: { role: string }) => message.role)).toEqual(['visitor', 'system']);
  });

  it('says when it could not search in the visitor’s language, then hands over in it', async () => {
    const asked = await visitorSays(channelKey, {
      language: 'de',
      message: { text: 'Wie lange habe ich Zeit, einen Artikel zurückzugeben?' },
    });
    expect(asked.answered_by).toBeUndefined();
    expect(asked.reply).toMatch(
      new RegExp(
        '^Unsere Hilfeseiten sind auf Englisch geschrieben, und ich habe darin keine Antwort auf Ihre Frage ' +
          'gefunden\\. Danke, Ihre Anfrage D-\\w+ ist eingegangen\\.',
      ),
    );
    // The API says which language the knowledge is in.
    const answer = await json(
      await call('/api/knowledge/ask', { token: tenant.token, body: { question: 'Rückgabe?', language: 'de' } }),
    );
    expect(answer).toMatchObject({ answer: null, knowledge_language: 'en' });
    // In its own language, no such note.
    const english = await visitorSays(channelKey, { message: { text: 'Do you sell watch straps?' } });
    expect(english.reply).toMatch(/^Thanks, your request/);
  });
});
