/**
 * Two-step sign-in (docs/design/identity-and-access.md#second-factor): an account sets up an
 * authenticator app on /account/security (its key, then a code, then 10 recovery codes shown
 * once); signing in then asks for a code after the password; a code works once, a recovery code
 * once, 5 wrong codes in 15 minutes lock the factor (the test clock opens it again), and turning
 * it off asks for the password.
 */
import { decodeBase32IgnorePadding } from '@oslojs/encoding';
import { generateHOTP } from '@oslojs/otp';
import { afterEach, describe, expect, it } from 'vitest';
import { clock, moveClockForTests, resetClockForTests } from '../../worker/lib/clock';
import { getPage, postForm, sessionCookieFrom, setCookies, signUpUser } from './console-helpers';
import { ORIGIN } from './helpers';
import { mailTo } from './mail-helpers';
import { workerFetch } from './self';

afterEach(() => resetClockForTests());

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
