/**
 * Password reset (docs/design/identity-and-access.md#password-reset): /auth/forgot answers the
 * same whether or not the address has an account, within per-address and per-client limits; the
 * emailed link works once, for an hour (the test clock moves past it), and only with its secret;
 * a reset ends every session of the account and tells its owner by email.
 */
import { env } from 'cloudflare:test';
import { afterEach, describe, expect, it } from 'vitest';
import { moveClockForTests, resetClockForTests } from '../../worker/lib/clock';
import { getPage, postForm, sessionCookieFrom, signUpUser, uniqueEmail } from './console-helpers';
import { mailTo } from './mail-helpers';

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
