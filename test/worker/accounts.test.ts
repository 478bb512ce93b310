/**
 * Accounts people can trust (docs/design/identity-and-access.md), in one file for the suite's
 * sake (each file starts a runtime of its own):
 * - password reset: /auth/forgot answers the same whether or not the address has an account,
 *   within per-address and per-client limits; the emailed link works once, for an hour (the test
 *   clock moves past it), and only with its secret; a reset ends every session and tells the owner;
 * - two-step sign-in: an authenticator app set up on /account/security (its key, a code, 10
 *   recovery codes shown once); sign-in then asks for a code after the password; a code works
 *   once, a recovery code once, 5 wrong codes in 15 minutes lock the factor, and turning it off
 *   asks for the password;
 * - sessions and events: the open sessions listed, one or every other ended (never another
 *   account's), and the recent security events.
 */
import { decodeBase32IgnorePadding } from '@oslojs/encoding';
import { generateHOTP } from '@oslojs/otp';
import { env } from 'cloudflare:test';
import { afterEach, describe, expect, it } from 'vitest';
import { clock, moveClockForTests, resetClockForTests } from '../../worker/lib/clock';
import { deviceOf } from '../../worker/platform/identity';
import { getPage, postForm, sessionCookieFrom, setCookies, signUpUser, uniqueEmail } from './console-helpers';
import { ORIGIN } from './helpers';
import { mailTo } from './mail-helpers';
import { workerFetch } from './self';

afterEach(() => resetClockForTests());

/** Asks for a reset link from a client address of its own (the per-client limit is not under test here). */
const forgot = (email: string, ip = `198.51.100.${Math.floor(Math.random() * 250) + 1}`) =>
  postForm('/auth/forgot', { email }, { ip });

/** The reset link's path, from the email the sink received. */
async function resetPathFor(email: string): Promise<string> {
  const mail = await mailTo(email, /Reset your password/);
  const url = /https?:\/\/\S+\/auth\/reset\/(atk_[0-9a-z]+\.[0-9a-f]+)/.exec(mail!.text);
  expect(url, mail!.text).toBeTruthy();
  expect(mail!.headers['list-unsubscribe']).toBeUndefined();
  return `/auth/reset/${url![1]}`;
}

describe('password reset', () => {
  it('answers the same whether or not the address has an account, and writes only for a real one', async () => {
    const user = await signUpUser();
    const known = await forgot(user.email);
    const unknown = await forgot(uniqueEmail('nobody'));
    expect([known.status, unknown.status]).toEqual([200, 200]);
    const strip = (html: string) => html.replace(/value="[^"]*"/g, '');
    expect(strip(await known.text())).toBe(strip(await unknown.text()));
    const tokens = await env.DB.prepare('SELECT email FROM account_tokens WHERE email IN (?, ?)')
      .bind(user.email, 'nobody')
      .all();
    expect(tokens.results).toEqual([{ email: user.email }]);
  });

  it('sets a new password from the emailed link once; every session of the account ends', async () => {
    const user = await signUpUser();
    const elsewhere = sessionCookieFrom(
      await postForm('/auth/sign-in', { email: user.email, password: user.password }, { ip: '203.0.113.9' }),
    )!;
    expect((await getPage('/onboarding/workspace', elsewhere)).status).toBe(200);
    expect((await forgot(user.email)).status).toBe(200);
    const path = await resetPathFor(user.email);
    const page = await getPage(path);
    expect(page.status).toBe(200);
    // The link's secret is in the URL: the page sends no Referer anywhere.
    expect(await page.text()).toContain('<meta name="referrer" content="no-referrer"/>');
    // A weak password is refused, and the link still works.
    expect((await postForm(path, { password: 'password' })).status).toBe(422);
    const done = await postForm(path, { password: 'a brand new long passphrase 7' });
    expect(done.status).toBe(303);
    expect(done.headers.get('Location')).toBe('/auth/sign-in?password_reset=1');
    // Used: the link answers that it no longer works, and a second use changes nothing.
    expect((await getPage(path)).status).toBe(404);
    expect((await postForm(path, { password: 'yet another long passphrase 8' })).status).toBe(404);
    // Every session of the account ended; the old password is refused, the new one signs in.
    expect((await getPage('/onboarding/workspace', elsewhere)).status).toBe(303);
    expect((await postForm('/auth/sign-in', { email: user.email, password: user.password })).status).toBe(401);
    expect(
      (await postForm('/auth/sign-in', { email: user.email, password: 'a brand new long passphrase 7' })).status,
    ).toBe(303);
    await mailTo(user.email, /Your password was changed/);
  });

  it('a link expires after an hour, and only its own secret opens it', async () => {
    const user = await signUpUser();
    await forgot(user.email);
    const path = await resetPathFor(user.email);
    const forged = `${path.slice(0, -4)}0000`;
    expect((await getPage(forged)).status).toBe(404);
    expect((await postForm(forged, { password: 'a brand new long passphrase 7' })).status).toBe(404);
    moveClockForTests(60 * 60 * 1000 + 1);
    expect((await getPage(path)).status).toBe(404);
    expect((await postForm(path, { password: 'a brand new long passphrase 7' })).status).toBe(404);
  });

  it('limits requests per address and per client, whether or not the address has an account', async () => {
    for (const email of [(await signUpUser()).email, uniqueEmail('nobody')]) {
      for (let i = 0; i < 3; i++) expect((await forgot(email)).status).toBe(200);
      const refused = await forgot(email);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0);
    }
    const ip = '192.0.2.77';
    for (let i = 0; i < 10; i++) expect((await forgot(uniqueEmail('many'), ip)).status).toBe(200);
    expect((await forgot(uniqueEmail('many'), ip)).status).toBe(429);
  });

  it('refuses a cross-site request, and a malformed link is the same "no longer works" page', async () => {
    const crossSite = await postForm('/auth/forgot', { email: 'a@example.com' }, { origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
    expect((await getPage('/auth/reset/not-a-link')).status).toBe(404);
    expect((await postForm('/auth/forgot', { email: 'not an address' })).status).toBe(422);
  });
});

/** The code an authenticator app shows for `key` at a time step (now, by default). */
const codeAt = (key: string, step = Math.floor(clock.now() / 30_000)) =>
  generateHOTP(decodeBase32IgnorePadding(key), BigInt(step), 6);

/** A signed-up account with the app set up: its key and recovery codes. */
async function enrolled() {
  const user = await signUpUser();
  const started = await postForm('/account/security/totp', {}, { cookie: user.cookie });
  expect(started.status).toBe(200);
  const key = /<code id="totp-key">([A-Z2-7]+)<\/code>/.exec(await started.text())![1]!;
  // A wrong code does not turn it on.
  expect((await postForm('/account/security/totp/confirm', { code: '000000' }, { cookie: user.cookie })).status).toBe(
    422,
  );
  const confirmed = await postForm('/account/security/totp/confirm', { code: codeAt(key) }, { cookie: user.cookie });
  expect(confirmed.status).toBe(200);
  const codes = [...(await confirmed.text()).matchAll(/<code>([0-9a-z]{5}-[0-9a-z]{5})<\/code>/g)].map((m) => m[1]!);
  expect(codes).toHaveLength(10);
  return { ...user, key, codes };
}

/** Signs in with the password: answers the pending cookie the second step needs. */
async function passwordStep(user: { email: string; password: string }) {
  const response = await postForm(
    '/auth/sign-in',
    { email: user.email, password: user.password },
    { ip: '203.0.113.40' },
  );
  expect(response.status).toBe(303);
  expect(response.headers.get('Location')).toBe('/auth/second-factor');
  expect(sessionCookieFrom(response)).toBeUndefined();
  const pending = setCookies(response)
    .map((cookie) => /^egw_pending=([^;]+)/.exec(cookie)?.[1])
    .find(Boolean);
  expect(pending).toBeTruthy();
  return pending!;
}

/** The second step of signing in, with the pending cookie the password step set. */
function workerPost(pending: string, code: string) {
  return workerFetch(`${ORIGIN}/auth/second-factor`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: ORIGIN, Cookie: `egw_pending=${pending}` },
    body: new URLSearchParams({ code }).toString(),
    redirect: 'manual',
  });
}

describe('two-step sign-in', () => {
  it('asks for a code after the password; a code works once, a recovery code once', async () => {
    const user = await enrolled();
    const pending = await passwordStep(user);
    // Without the pending cookie, the second step starts again at sign-in.
    expect((await getPage('/auth/second-factor')).status).toBe(303);
    expect((await workerPost(pending, '123456')).status).toBe(401);
    moveClockForTests(30_000);
    const code = codeAt(user.key);
    const done = await workerPost(pending, code);
    expect(done.status).toBe(303);
    expect(sessionCookieFrom(done)).toBeTruthy();
    // The same code again is refused, even within its 30 seconds.
    expect((await workerPost(await passwordStep(user), code)).status).toBe(401);
    // A recovery code signs in once (spaces and case do not matter), then never again.
    const recovery = user.codes[0]!;
    expect((await workerPost(await passwordStep(user), ` ${recovery.toUpperCase()} `)).status).toBe(303);
    expect((await workerPost(await passwordStep(user), recovery)).status).toBe(401);
    // A forged pending cookie opens nothing: back to sign-in, no session.
    const forged = await workerPost(
      `${pending.slice(0, -4)}0000`,
      codeAt(user.key, Math.floor(clock.now() / 30_000) + 1),
    );
    expect(forged.headers.get('Location')).toBe('/auth/sign-in');
    expect(sessionCookieFrom(forged)).toBeUndefined();
  });

  it('five wrong codes lock the factor for 15 minutes, even against the right code', async () => {
    const user = await enrolled();
    const pending = await passwordStep(user);
    for (let i = 0; i < 5; i++) expect((await workerPost(pending, '000000')).status).toBe(401);
    const refused = await workerPost(pending, codeAt(user.key, Math.floor(clock.now() / 30_000) + 1));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0);
    moveClockForTests(15 * 60 * 1000 + 1000);
    expect((await workerPost(await passwordStep(user), codeAt(user.key))).status).toBe(303);
  });

  it('turning it off asks for the password; then sign-in is one step again', async () => {
    const user = await enrolled();
    expect(
      (await postForm('/account/security/totp/remove', { password: 'wrong one' }, { cookie: user.cookie })).status,
    ).toBe(401);
    expect(
      (await postForm('/account/security/totp/remove', { password: user.password }, { cookie: user.cookie })).status,
    ).toBe(200);
    // Its owner is told by email, both times.
    await mailTo(user.email, /Two-step sign-in was turned on/);
    await mailTo(user.email, /Two-step sign-in was turned off/);
    const response = await postForm(
      '/auth/sign-in',
      { email: user.email, password: user.password },
      { ip: '203.0.113.41' },
    );
    expect(response.status).toBe(303);
    expect(sessionCookieFrom(response)).toBeTruthy();
    expect((await getPage('/account/security', user.cookie)).status).toBe(200);
  });
});

/** Signs the account in from a browser of its own: answers the session's cookie. */
async function signInFrom(user: { email: string; password: string }, userAgent: string, country: string) {
  const response = await workerFetch(`${ORIGIN}/auth/sign-in`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Origin: ORIGIN,
      'User-Agent': userAgent,
      'CF-IPCountry': country,
      'CF-Connecting-IP': '198.51.100.60',
    },
    body: new URLSearchParams({ email: user.email, password: user.password }).toString(),
    redirect: 'manual',
  });
  expect(response.status).toBe(303);
  return sessionCookieFrom(response)!;
}

const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';
const SAFARI =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 Version/18.1 Mobile/15E148 Safari/604.1';

describe('sessions', () => {
  it('names a device in a few words', () => {
    expect(deviceOf(FIREFOX)).toBe('Firefox on Windows');
    expect(deviceOf(SAFARI)).toBe('Safari on iOS');
    expect(deviceOf(undefined)).toBeNull();
  });

  it('lists the open sessions, ends one, then every other, and never another account’s', async () => {
    const user = await signUpUser();
    const laptop = await signInFrom(user, FIREFOX, 'PT');
    const phone = await signInFrom(user, SAFARI, 'DE');
    const page = await (await getPage('/account/security', laptop)).text();
    expect(page).toContain('Firefox on Windows');
    expect(page).toContain('Safari on iOS');
    expect(page).toMatch(/Firefox on Windows<span class="pill"> this device<\/span>/);
    const handles = [...page.matchAll(/\/account\/security\/sessions\/([0-9a-f]{16})\/end/g)].map((m) => m[1]!);
    // The sign-up's session and the phone's can be ended from here; not this device's own.
    expect(handles).toHaveLength(2);

    // Another account cannot end them.
    const stranger = await signUpUser();
    for (const handle of handles)
      await postForm(`/account/security/sessions/${handle}/end`, {}, { cookie: stranger.cookie });
    expect((await getPage('/account/security', phone)).status).toBe(200);

    const phoneHandle = /Safari on iOS[\s\S]*?\/account\/security\/sessions\/([0-9a-f]{16})\/end/.exec(page)![1]!;
    expect(handles).toContain(phoneHandle);
    expect((await postForm(`/account/security/sessions/${phoneHandle}/end`, {}, { cookie: laptop })).status).toBe(200);
    expect((await getPage('/account/security', phone)).status).toBe(303);
    expect((await getPage('/account/security', user.cookie)).status).toBe(200);

    const ended = await postForm('/account/security/sessions/others/end', {}, { cookie: laptop });
    expect(await ended.text()).toContain('1 other session signed out.');
    expect((await getPage('/account/security', user.cookie)).status).toBe(303);
    expect((await getPage('/account/security', laptop)).status).toBe(200);
  });

  it('shows the recent security events: sign-ins, a failed one, the factor, other sessions ended', async () => {
    const user = await signUpUser();
    const laptop = await signInFrom(user, FIREFOX, 'PT');
    const failed = await workerFetch(`${ORIGIN}/auth/sign-in`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Origin: ORIGIN,
        'User-Agent': SAFARI,
        'CF-IPCountry': 'BR',
        'CF-Connecting-IP': '198.51.100.61',
      },
      body: new URLSearchParams({ email: user.email, password: 'not the password' }).toString(),
      redirect: 'manual',
    });
    expect(failed.status).toBe(401);
    // An unknown address's failure is recorded for nobody.
    const before = await env.DB.prepare('SELECT count(*) AS n FROM security_events').first<{ n: number }>();
    await postForm(
      '/auth/sign-in',
      { email: 'nobody.here@example.com', password: 'whatever it is' },
      { ip: '198.51.100.62' },
    );
    expect((await env.DB.prepare('SELECT count(*) AS n FROM security_events').first<{ n: number }>())!.n).toBe(
      before!.n,
    );

    await postForm('/account/security/sessions/others/end', {}, { cookie: laptop });
    const page = (await (await getPage('/account/security', laptop)).text()).replace(/<[^>]+>/g, ' ');
    const events = page.slice(page.indexOf('Recent security events'));
    expect(events).toMatch(/Other sessions signed out\s+Unknown/);
    expect(events).toMatch(/A sign-in failed \(wrong password\)\s+Safari on iOS\s+BR/);
    expect(events).toMatch(/Signed in\s+Firefox on Windows\s+PT/);
    expect(events.indexOf('Other sessions signed out')).toBeLessThan(events.indexOf('A sign-in failed'));
    await mailTo(user.email, /Your other sessions were signed out/);
  });
});
