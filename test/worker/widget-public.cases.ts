import { beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, expectProblem, json, type Tenant } from './helpers';
import { platformDb } from './platform-db';

const CONSOLE = 'http://gateway.test';
const THIRD_PARTY = 'https://shop.example.com';
const FIRST_PARTY = 'https://www.acme.test';
const STRANGER = 'https://evil.example.net';

async function newChannel(tenant: Tenant, widget: Record<string, unknown> = {}) {
  const response = await call('/api/integrations/channels', {
    token: tenant.token,
    body: {
      name: 'Site',
      domain: 'consultation',
      allowed_origins: [THIRD_PARTY],
      first_party_origins: [FIRST_PARTY],
      widget,
    },
  });
  expect(response.status).toBe(201);
  return (await json(response)).channel_key as string;
}

const configPaths = (key: string) => [`/api/public/channels/${key}/widget-config`, `/api/public/widget/${key}/config`];
const intakePaths = (key: string) => [`/api/public/channels/${key}/intake`, `/api/public/widget/${key}/intake`];

function intake(
  key: string,
  body: Record<string, unknown>,
  origin: string | null = THIRD_PARTY,
  path = intakePaths(key)[1]!,
  ip = '203.0.113.7',
) {
  const headers: Record<string, string> = { 'CF-Connecting-IP': ip };
  if (origin) headers.Origin = origin;
  return call(path, { body, headers });
}

describe('public widget config', () => {
  let tenant: Tenant;
  let key: string;
  beforeAll(async () => {
    tenant = await createTenant({ scopes: ['channels:read', 'channels:write'] });
    key = await newChannel(tenant);
  });

  it('is served at both paths by one handler, under 1 KB', async () => {
    const [a, b] = await Promise.all(configPaths(key).map((path) => call(path, { headers: { Origin: THIRD_PARTY } })));
    const [textA, textB] = [await a!.text(), await b!.text()];
    expect(a!.status).toBe(200);
    expect(textA).toBe(textB);
    expect(new TextEncoder().encode(textA).byteLength).toBeLessThanOrEqual(1024);
    const config = JSON.parse(textA);
    expect(config).toMatchObject({
      channel_key: key,
      colors: { primary: '#2450c9', on_primary: '#ffffff' },
      position: { side: 'bottom-right', offset_x: 20, offset_y: 20 },
      lead_capture: { name: 'optional', email: 'required', phone: 'off' },
      hosted_inbox_url: `${CONSOLE}/widget/${key}`,
      intake_url: `${CONSOLE}/api/public/widget/${key}/intake`,
    });
    expect(config.provider_entry.url).toBe(`${CONSOLE}/auth/sign-up?role=provider&ref=${key}`);
    for (const field of ['title', 'greeting', 'placeholder', 'launcher_label', 'success_message', 'privacy_note']) {
      expect(typeof config.copy[field]).toBe('string');
    }
  });

  const resolution: [string, string, Record<string, string>, boolean][] = [
    ['auto', 'the console origin', { Origin: CONSOLE }, true],
    ['auto', 'a same-origin page (no Origin header)', { 'Sec-Fetch-Site': 'same-origin' }, true],
    // An owner's own site recruits no experts unless the owner says `on`.
    ['auto', 'a first-party origin', { Origin: FIRST_PARTY }, false],
    ['on', 'a first-party origin', { Origin: FIRST_PARTY }, true],
    ['auto', 'a third-party embed', { Origin: THIRD_PARTY }, false],
    ['auto', 'no origin at all', {}, false],
    ['on', 'a third-party embed', { Origin: THIRD_PARTY }, true],
    ['off', 'a first-party origin', { Origin: FIRST_PARTY }, false],
    ['off', 'the console origin', { Origin: CONSOLE }, false],
  ];
  for (const [mode, from, headers, enabled] of resolution) {
    it(`provider_entry ${mode} from ${from} → enabled ${enabled}`, async () => {
      const channel = mode === 'auto' ? key : await newChannel(tenant, { provider_entry: { mode } });
      const config = await json(await call(configPaths(channel)[0]!, { headers }));
      expect(config.provider_entry.enabled).toBe(enabled);
    });
  }

  it('answers an allowed origin exactly, with Vary: Origin, never *', async () => {
    const response = await call(configPaths(key)[1]!, { headers: { Origin: THIRD_PARTY } });
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe(THIRD_PARTY);
    expect(response.headers.get('Vary')).toContain('Origin');
  });

  it('refuses another origin with 403 and no CORS header', async () => {
    const response = await call(configPaths(key)[1]!, { headers: { Origin: STRANGER } });
    await expectProblem(response, 403, 'origin_not_allowed');
    expect(response.headers.get('Access-Control-Allow-Origin')).toBeNull();
  });

  it('sends an ETag and short caching, and answers 304 to If-None-Match', async () => {
    const first = await call(configPaths(key)[0]!, { headers: { Origin: THIRD_PARTY } });
    const etag = first.headers.get('ETag');
    expect(etag).toMatch(/^"[0-9a-f]{40}"$/);
    // Locally BASE_URL and CONSOLE_URL are unset, so the links inside follow the host: private caching only.
    expect(first.headers.get('Cache-Control')).toMatch(/^private, max-age=60/);
    const again = await call(configPaths(key)[0]!, { headers: { Origin: THIRD_PARTY, 'If-None-Match': etag! } });
    expect(again.status).toBe(304);
    // A different origin may see a different provider_entry, so a different ETag.
    const platform = await call(configPaths(key)[0]!, { headers: { Origin: CONSOLE } });
    expect(platform.headers.get('ETag')).not.toBe(etag);
  });

  it('is 404 for an unknown or a disabled channel', async () => {
    await expectProblem(
      await call('/api/public/widget/ch_nope/config', { headers: { Origin: THIRD_PARTY } }),
      404,
      'not_found',
    );
    const disabled = await newChannel(tenant);
    await call(`/api/integrations/channels/${disabled}`, {
      method: 'PATCH',
      token: tenant.token,
      body: { status: 'disabled' },
    });
    await expectProblem(await call(configPaths(disabled)[1]!, { headers: { Origin: THIRD_PARTY } }), 404, 'not_found');
  });

  it('answers the CORS preflight only for admitted origins', async () => {
    const allowed = await call(intakePaths(key)[0]!, {
      method: 'OPTIONS',
      headers: {
        Origin: THIRD_PARTY,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type',
      },
    });
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('Access-Control-Allow-Origin')).toBe(THIRD_PARTY);
    expect(allowed.headers.get('Access-Control-Allow-Methods')).toContain('POST');
    expect(allowed.headers.get('Access-Control-Allow-Headers')).toBe('Content-Type,Authorization,X-EGW-Bookmark');
    const refused = await call(intakePaths(key)[0]!, {
      method: 'OPTIONS',
      headers: { Origin: STRANGER, 'Access-Control-Request-Method': 'POST' },
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('Access-Control-Allow-Origin')).toBeNull();
  });
});

describe('public intake', () => {
  let tenant: Tenant;
  let key: string;
  beforeAll(async () => {
    tenant = await createTenant({ scopes: ['channels:read', 'channels:write'] });
    key = await newChannel(tenant);
  });

  const campaign = { utm_source: 'newsletter', utm_medium: 'email', utm_campaign: 'spring' };
  const attribution = {
    source_site: THIRD_PARTY,
    page_url: `${THIRD_PARTY}/pricing?utm_source=newsletter`,
    referrer: 'https://news.example.org/',
    campaign,
  };

  it(
    'happy path: a message starts a conversation, its demand and its lead, and answers what happens ' + 'next',
    async () => {
      const response = await intake(key, { message: { text: 'Do you do payroll audits?' }, attribution });
      expect(response.status, await response.clone().text()).toBe(200);
      expect(response.headers.get('Access-Control-Allow-Origin')).toBe(THIRD_PARTY);
      expect(response.headers.get('Vary')).toContain('Origin');
      const body = await json(response);
      expect(body.session_id).toMatch(/^egv_[1-9A-HJ-NP-Za-km-z]{20,}$/);
      expect(body.next).toBe('collect_contact');
      expect(body.reference).toBe(`D-${body.demand_id.slice(-6).toUpperCase()}`);
      expect(body.reply).toContain(body.reference);
      expect(body.reply).toContain('Leave your email');
      expect(body.lead_id).toMatch(/^lead_/);

      const demand = await platformDb
        .prepare('SELECT * FROM demands WHERE id = ?')
        .bind(body.demand_id)
        .first<Record<string, string>>();
      expect(demand).toMatchObject({
        text: 'Do you do payroll audits?',
        trigger: 'consultation',
        workspace_id: tenant.workspaceId,
        disposition: 'routed',
      });
      expect(JSON.parse(demand!.attribution!)).toEqual(attribution);
      const execution = await platformDb
        .prepare('SELECT actor_kind, actor_id, key_id, source_record FROM executions WHERE id = ?')
        .bind(demand!.execution_id)
        .first();
      expect(execution).toEqual({ actor_kind: 'channel', actor_id: key, key_id: null, source_record: body.lead_id });
      const messages = await platformDb
        .prepare('SELECT role, text FROM messages WHERE conversation_id = ? ORDER BY id')
        .bind(demand!.conversation_id)
        .all();
      expect(messages.results).toEqual([
        { role: 'visitor', text: 'Do you do payroll audits?' },
        { role: 'system', text: body.reply },
      ]);
      const conversation = await platformDb
        .prepare('SELECT token_hash, demand_id, lead_id FROM conversations WHERE id = ?')
        .bind(demand!.conversation_id)
        .first<Record<string, string>>();
      expect(conversation).toMatchObject({ demand_id: body.demand_id, lead_id: body.lead_id });
      expect(conversation!.token_hash).not.toContain(body.session_id);
    },
  );

  it('serves both intake paths with one handler: a conversation started on one continues on the other', async () => {
    const [pathA, pathB] = intakePaths(key);
    const first = await json(await intake(key, { message: { text: 'Via the first path' } }, THIRD_PARTY, pathA));
    const second = await intake(
      key,
      { session_id: first.session_id, message: { text: 'Via the second path' } },
      THIRD_PARTY,
      pathB,
    );
    expect(second.status).toBe(200);
    expect(second.headers.get('Access-Control-Allow-Origin')).toBe(THIRD_PARTY);
    const body = await json(second);
    expect(Object.keys(body).sort()).toEqual(Object.keys(first).sort());
    expect(body.session_id).toBe(first.session_id);
    // One conversation: the same demand, the same reference, the same lead.
    expect(body.demand_id).toBe(first.demand_id);
    expect(body.reference).toBe(first.reference);
    expect(body.lead_id).toBe(first.lead_id);
  });

  it('one conversation keeps one demand and one lead across many messages, a handoff and a contact form', async () => {
    const first = await json(await intake(key, { message: { text: 'Hello' }, attribution }));
    const turns = [];
    for (const text of ['A second question', 'And a third'])
      turns.push(await json(await intake(key, { session_id: first.session_id, message: { text } })));
    const handoff = await json(
      await intake(key, {
        session_id: first.session_id,
        message: { text: 'Can I talk to a person? It is urgent.' },
        trigger: 'handoff',
        attribution: { ...attribution, campaign: { utm_source: 'later-touch' } },
      }),
    );
    const contact = await json(
      await intake(key, {
        session_id: first.session_id,
        trigger: 'lead_capture',
        contact: { name: 'Ada', email: 'ada@example.com' },
      }),
    );
    for (const answer of [...turns, handoff, contact]) {
      expect(answer.session_id).toBe(first.session_id);
      expect(answer.demand_id).toBe(first.demand_id);
      expect(answer.reference).toBe(first.reference);
      expect(answer.lead_id).toBe(first.lead_id);
    }
    expect(contact.next).toBe('done');
    // The reply thanks without the name: it is stored in the transcript experts read before a claim.
    expect(contact.reply).toMatch(/^Thanks! /);
    expect(contact.reply).not.toContain('Ada');

    const conversationId = (await platformDb
      .prepare('SELECT conversation_id FROM demands WHERE id = ?')
      .bind(first.demand_id)
      .first<{ conversation_id: string }>())!.conversation_id;
    expect(
      await platformDb
        .prepare('SELECT COUNT(*) AS n FROM demands WHERE conversation_id = ?')
        .bind(conversationId)
        .first(),
    ).toEqual({ n: 1 });
    expect(
      await platformDb
        .prepare('SELECT COUNT(*) AS n FROM leads WHERE conversation_id = ?')
        .bind(conversationId)
        .first(),
    ).toEqual({ n: 1 });
    expect(
      await platformDb
        .prepare('SELECT COUNT(*) AS n FROM executions WHERE actor_id = ? AND source_record = ?')
        .bind(key, first.lead_id)
        .first(),
    ).toEqual({ n: 5 });
    const messages = await platformDb
      .prepare("SELECT COUNT(*) AS n FROM messages WHERE conversation_id = ? AND role = 'visitor'")
      .bind(conversationId)
      .first();
    expect(messages).toEqual({ n: 4 });

    const lead = await platformDb
      .prepare('SELECT * FROM leads WHERE id = ?')
      .bind(first.lead_id)
      .first<Record<string, string>>();
    expect(lead).toMatchObject({
      trigger: 'lead_capture',
      status: 'open',
      urgency: 'high',
      contact_name: 'Ada',
      contact_email: 'ada@example.com',
      contact_phone: null,
      summary: 'Hello',
    });
    // First touch: the conversation keeps what its first message reported.
    expect(JSON.parse(lead!.attribution!).campaign).toEqual(campaign);
    const afterContact = await json(
      await intake(key, { session_id: first.session_id, message: { text: 'One more thing' } }),
    );
    expect(afterContact.next).toBe('continue');
  });

  it('answers each message while the lead waits: where the request is, and the form until a contact', async () => {
    const first = await json(await intake(key, { message: { text: 'Do you do VAT returns?' } }));
    expect(first.reply).toContain('Leave your email');
    expect(first.next).toBe('collect_contact');
    for (const text of ['Also for a small company?', 'And how soon?']) {
      const later = await json(await intake(key, { session_id: first.session_id, message: { text } }));
      expect(later).toMatchObject({ next: 'collect_contact', lead_id: first.lead_id });
      expect(later.reply).toBe(
        'An expert has your question and will answer here. Leave your email so they can reach you.',
      );
      expect(later.messages.map((message: { role: string }) => message.role)).toEqual(['visitor', 'system']);
    }
    // In the visitor's language.
    const german = await json(
      await intake(key, { session_id: first.session_id, language: 'de', message: { text: 'Und wie schnell?' } }),
    );
    expect(german.reply).toContain('Ein Experte hat Ihre Frage und antwortet hier.');
    // Asking for a person is answered, each time.
    const handoff = await json(
      await intake(key, { session_id: first.session_id, trigger: 'handoff', message: { text: 'A person, please.' } }),
    );
    expect(handoff.reply).toContain(first.reference);
  });

  it('lead_capture on a fresh session creates a lead with its contact and attribution', async () => {
    const response = await json(
      await intake(key, {
        trigger: 'lead_capture',
        contact: { email: 'grace@example.com', phone: '+1 (555) 010-9999' },
        attribution,
      }),
    );
    const lead = await platformDb
      .prepare('SELECT trigger, contact_email, contact_phone, attribution FROM leads WHERE id = ?')
      .bind(response.lead_id)
      .first<Record<string, string>>();
    expect(lead).toMatchObject({
      trigger: 'lead_capture',
      contact_email: 'grace@example.com',
      contact_phone: '+1 (555) 010-9999',
    });
    expect(JSON.parse(lead!.attribution!)).toEqual(attribution);

    const listed = await json(await call(`/api/integrations/channels/${key}/intake`, { token: tenant.token }));
    const entry = listed.data.find((item: { demand_id: string }) => item.demand_id === response.demand_id);
    expect(entry.lead).toEqual({
      lead_id: response.lead_id,
      status: 'open',
      claimed_by: null,
      contact_fields: ['email', 'phone'],
      wave: 1,
      held: false,
      seconds_to_first_claim: null,
      seconds_to_first_contact: null,
    });
    expect(entry.attribution.campaign).toEqual(campaign);
    expect(JSON.stringify(listed)).not.toContain('grace@example.com');
  });

  it('lead_capture enforces the channel’s required fields and valid contact details', async () => {
    const missing = await expectProblem(
      await intake(key, { trigger: 'lead_capture', contact: { name: 'No Email' } }),
      422,
      'validation_failed',
    );
    expect(missing.errors.map((entry: { pointer: string }) => entry.pointer)).toEqual(['/contact/email']);
    const invalid = await expectProblem(
      await intake(key, { trigger: 'lead_capture', contact: { email: 'not-an-email' } }),
      422,
      'validation_failed',
    );
    expect(invalid.errors[0].pointer).toBe('/contact/email');
    expect(invalid.errors[0].pointer).not.toBe('');
  });

  it('a session token of another channel starts a new session there, and still continues its own', async () => {
    const otherKey = await newChannel(tenant);
    const first = await json(await intake(otherKey, { message: { text: 'Hi there' } }));
    const elsewhere = await json(
      await intake(key, { session_id: first.session_id, message: { text: 'Same visitor?' } }),
    );
    expect(elsewhere.session_id).not.toBe(first.session_id);
    expect(elsewhere.demand_id).not.toBe(first.demand_id);
    // Its own channel still knows the token: the same conversation continues, no new one is minted.
    const again = await json(await intake(otherKey, { session_id: first.session_id, message: { text: 'Back again' } }));
    expect(again.session_id).toBe(first.session_id);
    expect(again.demand_id).toBe(first.demand_id);
  });

  it(
    'a filled honeypot answers like any message, stores a rejected demand for audit, and offers it to ' + 'no one',
    async () => {
      const response = await intake(key, { message: { text: 'Cheap pills' }, website: 'http://spam.example' });
      expect(response.status).toBe(200);
      const body = await json(response);
      expect(body.reply).toBeTypeOf('string');
      expect(body.lead_id).toBeUndefined();
      const demand = await platformDb
        .prepare('SELECT disposition, reasons FROM demands WHERE id = ?')
        .bind(body.demand_id)
        .first<{ disposition: string; reasons: string }>();
      expect(demand).toEqual({ disposition: 'rejected', reasons: '["honeypot"]' });
      expect(
        await platformDb.prepare('SELECT COUNT(*) AS n FROM leads WHERE demand_id = ?').bind(body.demand_id).first(),
      ).toEqual({ n: 0 });
    },
  );

  it('refuses a message over 4,000 characters (422) and a body over 16 KiB (413)', async () => {
    const long = await expectProblem(
      await intake(key, { message: { text: 'x'.repeat(4001) } }),
      422,
      'validation_failed',
    );
    expect(long.errors[0].pointer).toBe('/message/text');
    expect((await intake(key, { message: { text: 'x'.repeat(4000) } })).status).toBe(200);
    await expectProblem(
      await intake(key, { message: { text: 'x'.repeat(3000) }, attribution: { page_url: 'y'.repeat(17000) } }),
      413,
      'payload_too_large',
    );
  });

  it('needs a message unless it is a lead capture', async () => {
    const problem = await expectProblem(await intake(key, { trigger: 'handoff' }), 422, 'validation_failed');
    expect(problem.errors[0].pointer).toBe('/message/text');
  });

  it('is 404 for a disabled or unknown channel', async () => {
    const disabled = await newChannel(tenant);
    await call(`/api/integrations/channels/${disabled}`, {
      method: 'PATCH',
      token: tenant.token,
      body: { status: 'disabled' },
    });
    await expectProblem(await intake(disabled, { message: { text: 'Hello' } }), 404, 'not_found');
    await expectProblem(await intake('ch_doesnotexist', { message: { text: 'Hello' } }), 404, 'not_found');
  });

  it('refuses a disallowed origin (403, no CORS header) and a request without Origin', async () => {
    const refused = await intake(key, { message: { text: 'Hello' } }, STRANGER);
    await expectProblem(refused, 403, 'origin_not_allowed');
    expect(refused.headers.get('Access-Control-Allow-Origin')).toBeNull();
    await expectProblem(await intake(key, { message: { text: 'Hello' } }, null), 403, 'origin_not_allowed');
  });

  it('accepts first-party and console origins', async () => {
    for (const origin of [FIRST_PARTY, CONSOLE]) {
      const response = await intake(key, { message: { text: 'Hello from home' } }, origin);
      expect(response.status).toBe(200);
      expect(response.headers.get('Access-Control-Allow-Origin')).toBe(origin);
    }
  });

  it('rate-limits per channel and client: the 31st message in a minute is 429 with Retry-After', async () => {
    const channel = await newChannel(tenant);
    for (let i = 0; i < 30; i++)
      expect(
        (await intake(channel, { message: { text: `m${i}` } }, THIRD_PARTY, undefined, '198.51.100.1')).status,
      ).toBe(200);
    const limited = await intake(
      channel,
      { message: { text: 'one too many' } },
      THIRD_PARTY,
      undefined,
      '198.51.100.1',
    );
    await expectProblem(limited, 429, 'rate_limited');
    expect(Number(limited.headers.get('Retry-After'))).toBeGreaterThan(0);
    expect(limited.headers.get('Access-Control-Allow-Origin')).toBe(THIRD_PARTY);
    // Another client on the same channel is not affected.
    expect(
      (await intake(channel, { message: { text: 'different visitor' } }, THIRD_PARTY, undefined, '198.51.100.2'))
        .status,
    ).toBe(200);
  });
});
