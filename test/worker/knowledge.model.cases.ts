/**
 * Knowledge answers worded by a model (docs/design/knowledge.md), with the model's
 * OpenAI-compatible endpoint stubbed: the model reads the best passages, numbered, and its answer
 * is used only when it cites one of them in time; an answer citing nothing, a failure or a model
 * slower than 5 s leaves the extractive answer. A declined question in another language is
 * translated, then asked again. Without a model, nothing changes.
 */
import { env } from 'cloudflare:test';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { answerModelOf } from '../../worker/lib/answer-model';
import { readSettings } from '../../worker/env';
import { askKnowledge } from '../../worker/platform/knowledge';
import { MODEL_TIMEOUT_MS } from '../../worker/platform/knowledge/model';
import { call, createTenant, type Tenant, servicesIn } from './helpers';

const MODEL_URL = 'https://models.example.com/v1';
const HELP = `# Shop help

## Returns

You can return any item within 30 days for a full refund. Print the return label from your order page.

## Delivery

Standard delivery takes three to five working days.
`;

/** The model's endpoint, answering `reply` (or hanging, or failing); answers the requests it saw. */
function stubModel(reply: string | 'hang' | 'fail') {
  const seen: Array<{
    url: string;
    authorization: string | null;
    body: { model: string; messages: Array<{ role: string; content: string }> };
  }> = [];
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const request = new Request(input as RequestInfo, init);
    seen.push({ url: request.url, authorization: request.headers.get('Authorization'), body: await request.json() });
    if (reply === 'fail') return new Response('overloaded', { status: 503 });
    if (reply === 'hang')
      return new Promise<Response>((_, reject) =>
        request.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
      );
    return Response.json({ choices: [{ message: { role: 'assistant', content: reply } }] });
  });
  return seen;
}

const settings = readSettings({
  ...env,
  ANSWER_MODEL_URL: MODEL_URL,
  ANSWER_MODEL_KEY: 'sk-test',
  ANSWER_MODEL: 'help-1',
});
const model = answerModelOf({ ...env }, settings)!;

let tenant: Tenant;
beforeAll(async () => {
  tenant = await createTenant({ scopes: ['knowledge:read', 'knowledge:write'] });
  const added = await call('/api/knowledge/sources', {
    token: tenant.token,
    body: {
      kind: 'document',
      title: 'Shop help',
      url: 'https://shop.example.com/help',
      content_type: 'text/markdown',
      content: HELP,
    },
  });
  expect(added.status).toBe(201);
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

/** The Worker's handle in the tenant's organisation, as the channel's door enters it. */
const db = async () => (await servicesIn(tenant.workspaceId)).db;

describe('knowledge answers worded by a model', () => {
  it('the model reads the numbered passages and its answer cites them: chosen_by model', async () => {
    const seen = stubModel('You have 30 days to return an item, for a full refund [1].');
    const answer = await askKnowledge(await db(), tenant.workspaceId, 'How many days do I have to return an item?', {
      language: 'de',
      model,
    });
    expect(answer).toMatchObject({
      answer: 'You have 30 days to return an item, for a full refund [1].',
      chosen_by: 'model',
      declined: null,
      citations: [{ title: 'Shop help › Returns', url: 'https://shop.example.com/help#returns' }],
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ url: `${MODEL_URL}/chat/completions`, authorization: 'Bearer sk-test' });
    expect(seen[0]!.body.model).toBe('help-1');
    expect(seen[0]!.body.messages[0]!.content).toContain('in German');
    expect(seen[0]!.body.messages[1]!.content).toMatch(
      /^\[1\] Shop help › Returns\nYou can return any item within 30 days/,
    );
  });

  it('an answer that cites nothing retrieved, or says it cannot answer, leaves the extractive one', async () => {
    for (const reply of ['Returns are free.', 'See passage [7].', 'NONE']) {
      stubModel(reply);
      const answer = await askKnowledge(await db(), tenant.workspaceId, 'How many days do I have to return an item?', {
        language: 'en',
        model,
      });
      expect(answer, reply).toMatchObject({
        chosen_by: 'extractive',
        answer: expect.stringMatching(/^From “Shop help”: .*30 days/),
      });
      vi.restoreAllMocks();
    }
  });

  it('a failing model, or one slower than 5 s, leaves the extractive answer', async () => {
    stubModel('fail');
    const failed = await askKnowledge(await db(), tenant.workspaceId, 'How long does standard delivery take?', {
      language: 'en',
      model,
    });
    expect(failed).toMatchObject({
      chosen_by: 'extractive',
      answer: expect.stringContaining('three to five working days'),
    });
    vi.restoreAllMocks();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    stubModel('hang');
    const asking = askKnowledge(await db(), tenant.workspaceId, 'How long does standard delivery take?', {
      language: 'en',
      model,
    });
    await vi.advanceTimersByTimeAsync(MODEL_TIMEOUT_MS + 10);
    expect(await asking).toMatchObject({ chosen_by: 'extractive', answer: expect.stringContaining('three to five') });
  });

  it('a question in another language is translated when it matches nothing, then answered in it', async () => {
    const seen: string[] = [];
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const body = (await new Request(input as RequestInfo, init).json()) as { messages: Array<{ content: string }> };
      seen.push(body.messages[0]!.content);
      const translating = body.messages[0]!.content.startsWith('Translate');
      const content = translating
        ? 'How long does standard delivery take?'
        : 'Die Lieferung dauert drei bis fünf Werktage [1].';
      return Response.json({ choices: [{ message: { content } }] });
    });
    const without = await askKnowledge(await db(), tenant.workspaceId, 'Wie lange dauert die Standardlieferung?', {
      language: 'de',
    });
    expect(without).toMatchObject({ answer: null });
    const answer = await askKnowledge(await db(), tenant.workspaceId, 'Wie lange dauert die Standardlieferung?', {
      language: 'de',
      model,
    });
    expect(answer).toMatchObject({
      answer: 'Die Lieferung dauert drei bis fünf Werktage [1].',
      chosen_by: 'model',
      citations: [{ url: 'https://shop.example.com/help#delivery' }],
    });
    expect(seen).toHaveLength(2);
  });

  it('a declined question is never sent to the model: the threshold decides, the model only words', async () => {
    const seen = stubModel('Pineapple pizza is on the menu [1].');
    const answer = await askKnowledge(await db(), tenant.workspaceId, 'Is pineapple pizza on the menu?', {
      language: 'en',
      model,
    });
    expect(answer).toMatchObject({ answer: null, chosen_by: 'extractive' });
    expect(seen).toHaveLength(0);
  });
});
