/**
 * Where an account is signed in (docs/design/identity-and-access.md#sessions): /account/security
 * lists its open sessions (the device in a few words, the country, when it signed in and was last
 * seen) and ends one, or every other one; another account's session is never reached.
 */
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { deviceOf } from '../../worker/platform/identity';
import { ORIGIN } from './helpers';
import { getPage, postForm, sessionCookieFrom, signUpUser } from './console-helpers';
import { mailTo } from './mail-helpers';
import { workerFetch } from './self';

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
