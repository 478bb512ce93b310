import { beforeAll, describe, expect, it } from 'vitest';
import { getPage, postForm, signUpOwner } from './console-helpers';
import { call, createTenant, expectProblem, issueKey, json, type Tenant } from './helpers';
import { platformDb } from './platform-db';

const SITE = 'https://shop.example.com';

async function newChannel(tenant: Tenant, extra: Record<string, unknown> = {}) {
  const response = await call('/api/integrations/channels', {
    token: tenant.token,
    body: { name: 'Site', domain: 'consultation', allowed_origins: [SITE], ...extra },
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return json(response);
}

const config = async (key: string, headers: Record<string, string> = {}, query = '') =>
  json(await call(`/api/public/widget/${key}/config${query}`, { headers: { Origin: SITE, ...headers } }));

function intake(key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return call(`/api/public/widget/${key}/intake`, {
    body,
    headers: { Origin: SITE, 'CF-Connecting-IP': '203.0.113.90', ...headers },
  });
}

const conversationLanguage = async (sessionId: string) => {
  const hash = [...new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(sessionId)))]
    .map((byte) => byte.toString(16).padStart(2, '0'))
    .join('');
  const row = await platformDb
    .prepare('SELECT language FROM conversations WHERE token_hash = ?')
    .bind(hash)
    .first<{ language: string }>();
  return row?.language;
};

describe('the language of the widget’s configuration', () => {
  let tenant: Tenant;
  let auto: string;
  beforeAll(async () => {
    tenant = await createTenant({ scopes: ['channels:read', 'channels:write'] });
    auto = (await newChannel(tenant)).channel_key;
  });

  it('auto follows the browser’s most preferred language with a catalog, else English', async () => {
    const german = await config(auto, { 'Accept-Language': 'de-CH,de;q=0.9,en;q=0.8' });
    expect(german).toMatchObject({ language: 'de', direction: 'ltr' });
    expect(german.copy).toMatchObject({ greeting: expect.stringMatching(/^Hallo!/), title: 'Chat mit Test Org' });
    expect(german.provider_entry.label).toBe('Experte werden');
    // q-values count, not the order written; a language without a catalog is passed over.
    expect((await config(auto, { 'Accept-Language': 'uk;q=1, en;q=0.2, pl;q=0.5' })).language).toBe('pl');
    expect((await config(auto, { 'Accept-Language': 'uk, ja' })).language).toBe('en');
    expect((await config(auto)).copy.greeting).toBe('Hi! Tell us what you need and an expert will help.');
    const arabic = await config(auto, { 'Accept-Language': 'ar-SA' });
    expect(arabic).toMatchObject({ language: 'ar', direction: 'rtl' });
    expect(arabic.copy.launcher_label).toBe('فتح المحادثة');
    // Caches keep one answer per language.
    const response = await call(`/api/public/widget/${auto}/config`, {
      headers: { Origin: SITE, 'Accept-Language': 'he' },
    });
    expect(response.headers.get('Vary')).toContain('Accept-Language');
    expect((await json(response)).direction).toBe('rtl');
  });

  it('a channel set to one language speaks it whatever the browser; ?lang= is an explicit choice', async () => {
    const french = (await newChannel(tenant, { language: 'fr' })).channel_key;
    expect((await config(french, { 'Accept-Language': 'de' })).language).toBe('fr');
    expect((await config(french, { 'Accept-Language': 'de' }, '?lang=it')).language).toBe('it');
    const updated = await call(`/api/integrations/channels/${french}`, {
      method: 'PATCH',
      token: tenant.token,
      body: { language: 'he' },
    });
    expect((await json(updated)).language).toBe('he');
    expect((await config(french)).direction).toBe('rtl');
    await expectProblem(
      await call(`/api/integrations/channels/${french}`, {
        method: 'PATCH',
        token: tenant.token,
        body: { language: 'tlh' },
      }),
      422,
      'validation_failed',
    );
  });

  it('an owner’s copy on a channel of one language is in that language unless it says otherwise', async () => {
    const german = (await newChannel(tenant, { language: 'de' })).channel_key;
    const patched = await call(`/api/integrations/channels/${german}`, {
      method: 'PATCH',
      token: tenant.token,
      body: { widget: { copy: { greeting: 'Hallo! Fragen Sie uns zur Buchhaltung.' } } },
    });
    expect((await json(patched)).widget.copy_language).toBe('de');
    expect((await config(german, { 'Accept-Language': 'de' })).copy.greeting).toBe(
      'Hallo! Fragen Sie uns zur Buchhaltung.',
    );
    // A new channel of one language starts in it; one that names its copy's language keeps that.
    expect((await newChannel(tenant, { language: 'fr' })).widget.copy_language).toBe('fr');
    const named = await newChannel(tenant, { language: 'fr', widget: { copy_language: 'en' } });
    expect(named.widget.copy_language).toBe('en');
    // An auto channel's copy stays in English, and a patch without copy changes nothing of it.
    const autoPatched = await call(`/api/integrations/channels/${auto}`, {
      method: 'PATCH',
      token: tenant.token,
      body: { widget: { copy: { greeting: 'Hello there!' } } },
    });
    expect((await json(autoPatched)).widget.copy_language).toBe('en');
    const colours = await call(`/api/integrations/channels/${named.channel_key}`, {
      method: 'PATCH',
      token: tenant.token,
      body: { widget: { colors: { primary: '#224488' } } },
    });
    expect((await json(colours)).widget.copy_language).toBe('en');
  });

  it('the owner’s copy wins in its language: that language’s words, then `copy` there, then the catalog', async () => {
    const channel = await newChannel(tenant, {
      widget: {
        copy: { greeting: 'Olá! Somos a Lisboa Contabilidade.' },
        copy_language: 'pt',
        copy_by_language: { de: { placeholder: 'Ihre Frage an uns…' } },
      },
    });
    const key = channel.channel_key;
    expect(channel.widget.copy_by_language).toEqual({ de: { placeholder: 'Ihre Frage an uns…' } });
    expect((await config(key, { 'Accept-Language': 'pt' })).copy.greeting).toBe('Olá! Somos a Lisboa Contabilidade.');
    // Copy written in Portuguese is not shown to a German visitor: German words, or the German catalog.
    const german = await config(key, { 'Accept-Language': 'de' });
    expect(german.copy).toMatchObject({ placeholder: 'Ihre Frage an uns…', launcher_label: 'Chat öffnen' });
    expect(german.copy.greeting).toMatch(/^Hallo!/);
    // Nor to an English one.
    expect((await config(key, { 'Accept-Language': 'en' })).copy.greeting).toBe(
      'Hi! Tell us what you need and an expert will help.',
    );
    // A later change merges language by language.
    const patched = await call(`/api/integrations/channels/${key}`, {
      method: 'PATCH',
      token: tenant.token,
      body: { widget: { copy_by_language: { de: { greeting: 'Hallo aus Lissabon!' }, pl: { title: 'Czat' } } } },
    });
    expect((await json(patched)).widget.copy_by_language).toEqual({
      de: { placeholder: 'Ihre Frage an uns…', greeting: 'Hallo aus Lissabon!' },
      pl: { title: 'Czat' },
    });
    expect((await config(key, { 'Accept-Language': 'de' })).copy.greeting).toBe('Hallo aus Lissabon!');
    expect((await config(key, { 'Accept-Language': 'pl' })).copy).toMatchObject({
      title: 'Czat',
      placeholder: 'Wpisz wiadomość…',
    });
  });
});

describe('the core’s replies in the conversation’s language', () => {
  let key: string;
  beforeAll(async () => {
    const tenant = await createTenant({ scopes: ['channels:read', 'channels:write'] });
    key = (await newChannel(tenant)).channel_key;
  });

  it('a conversation starts in the browser’s language and keeps it; intake’s language changes it', async () => {
    const first = await json(
      await intake(key, { message: { text: 'Potrzebuję pomocy.' } }, { 'Accept-Language': 'pl-PL,pl;q=0.9' }),
    );
    expect(first.reply).toMatch(/^Dziękujemy, Twoje zgłoszenie D-[0-9A-Z]+ zostało przyjęte\./);
    expect(await conversationLanguage(first.session_id)).toBe('pl');
    // Another browser language later: the conversation keeps Polish.
    const again = await json(
      await intake(
        key,
        { session_id: first.session_id, trigger: 'handoff', message: { text: 'Ekspert?' } },
        { 'Accept-Language': 'en' },
      ),
    );
    expect(again.reply).toMatch(/^Rozumiemy: /);
    // Intake's language is the visitor's choice: from here on, Arabic.
    // (A plain message that only adds to the waiting lead gets no repeated reply; a hand-off is answered.)
    const arabic = await json(
      await intake(key, {
        session_id: first.session_id,
        trigger: 'handoff',
        message: { text: 'مرحبا' },
        language: 'ar-EG',
      }),
    );
    expect(arabic.reply).toMatch(/^تم: /);
    expect(await conversationLanguage(first.session_id)).toBe('ar');
    // A language without a catalog changes nothing.
    const unknown = await json(
      await intake(key, {
        session_id: first.session_id,
        trigger: 'handoff',
        message: { text: 'Привіт' },
        language: 'uk',
      }),
    );
    expect(unknown.reply).toMatch(/^تم: /);
  });

  it('the hosted inbox page speaks the visitor’s language, right to left for Hebrew', async () => {
    const page = await (await call(`/widget/${key}`, { headers: { 'Accept-Language': 'he-IL' } })).text();
    expect(page).toContain('<html lang="he" dir="rtl">');
    expect(page).toContain('src="/embed/panel.he.js"');
    expect(page).toContain('הצ׳אט הזה דורש JavaScript');
    const english = await (await call(`/widget/${key}?lang=en`, { headers: { 'Accept-Language': 'he' } })).text();
    expect(english).toContain('<html lang="en" dir="ltr">');
    const missing = await call('/widget/ch_nope', { headers: { 'Accept-Language': 'es' } });
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('Este chat no está disponible');
  });
});

describe('the copy per language in the console', () => {
  it('the owner writes one language’s copy, sees the fallback as grey text, and takes a field back out', async () => {
    const owner = await signUpOwner();
    const key = await issueKey(owner.workspaceId, { scopes: ['channels:write', 'channels:read'] });
    const channel = (await newChannel({ token: key.token } as Tenant)).channel_key as string;
    const page = `/integrations/channels/${channel}?ws=${owner.workspaceId}`;
    const polish = await (await getPage(`${page}&copy=pl`, owner.cookie)).text();
    expect(polish).toContain('Copy in each language');
    // Which languages fall back: English reads the owner's copy, Polish the default wording.
    expect(polish).toMatch(/English<\/span><\/th><td data-label="What visitors read">Your copy above</);
    expect(polish).toMatch(
      /polski<\/span><\/th><td data-label="What visitors read">The default wording \(falls back\)</,
    );
    expect(polish).toContain('placeholder="Cześć! Napisz, czego potrzebujesz, a ekspert Ci pomoże."');
    const save = (fields: Record<string, string>) =>
      postForm(`/integrations/channels/${channel}/copy/pl?ws=${owner.workspaceId}`, fields, { cookie: owner.cookie });
    const saved = await save({ greeting: 'Dzień dobry! W czym możemy pomóc?', title: '' });
    expect(saved.status).toBe(303);
    expect(saved.headers.get('Location')).toContain('&copy=pl#copy-languages-title');
    const greeting = async () => (await config(channel, { 'Accept-Language': 'pl' })).copy.greeting;
    expect(await greeting()).toBe('Dzień dobry! W czym możemy pomóc?');
    expect((await config(channel, { 'Accept-Language': 'de' })).copy.greeting).toMatch(/^Hallo!/);
    expect(await (await getPage(`${page}&copy=pl`, owner.cookie)).text()).toContain(
      '>Dzień dobry! W czym możemy pomóc?</textarea>',
    );
    const tooLong = await save({ greeting: 'a'.repeat(281) });
    expect(tooLong.status).toBe(422);
    expect(await tooLong.text()).toContain('Some of the copy is not valid.');
    // Emptied: Polish falls back to the catalog again, and the language leaves the configuration.
    expect((await save({ greeting: '' })).status).toBe(303);
    expect(await greeting()).toBe('Cześć! Napisz, czego potrzebujesz, a ekspert Ci pomoże.');
    const stored = await call(`/api/integrations/channels/${channel}`, { token: key.token });
    expect((await json(stored)).widget.copy_by_language).toEqual({});
    expect((await save({ greeting: 'x' })).status).toBe(303);
    await expectProblem(
      await call(`/api/integrations/channels/${channel}`, {
        method: 'PATCH',
        token: key.token,
        body: { widget: { copy_by_language: { xx: { greeting: 'Hi' } } } },
      }),
      422,
      'validation_failed',
    );
  });
});
