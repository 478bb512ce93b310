import { afterEach, describe, expect, it } from 'vitest';
import { clock, moveClockForTests, resetClockForTests } from '../../worker/lib/clock';
import { deviceOf } from '../../worker/platform/identity';
import {
  getPage,
  postForm,
  sessionCookieFrom,
  setCookies,
  enrolAuthenticator,
  signUpOwner,
  signUpPlatformAdmin,
  signUpUser,
  totpCodeAt,
  uniqueEmail,
  verificationPathFor,
} from './console-helpers';
import { completeProfile, createActiveExpert, sessionCall } from './provider-helpers';
import { expectProblem, ORIGIN } from './helpers';
import { mailTo } from './mail-helpers';
import { workerFetch } from './self';
import { SoftAuthenticator } from './soft-authenticator';
import { platformDb } from './platform-db';

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
  afterEach(() => resetClockForTests());
  it('answers the same whether or not the address has an account, and writes only for a real one', async () => {
    const user = await signUpUser();
    const known = await forgot(user.email);
    const unknown = await forgot(uniqueEmail('nobody'));
    // The same redirect to the same page, whether or not the address has an account.
    expect([known.status, unknown.status]).toEqual([303, 303]);
    expect(known.headers.get('Location')).toBe(unknown.headers.get('Location'));
    const tokens = await platformDb
      .prepare("SELECT email FROM account_tokens WHERE email IN (?, ?) AND purpose = 'password_reset'")
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
    expect((await forgot(user.email)).status).toBe(303);
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
      for (let i = 0; i < 3; i++) expect((await forgot(email)).status).toBe(303);
      const refused = await forgot(email);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0);
    }
    const ip = '192.0.2.77';
    for (let i = 0; i < 10; i++) expect((await forgot(uniqueEmail('many'), ip)).status).toBe(303);
    expect((await forgot(uniqueEmail('many'), ip)).status).toBe(429);
  });

  it('refuses a cross-site request, and a malformed link is the same "no longer works" page', async () => {
    const crossSite = await postForm('/auth/forgot', { email: 'a@example.com' }, { origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
    expect((await getPage('/auth/reset/not-a-link')).status).toBe(404);
    expect((await postForm('/auth/forgot', { email: 'not an address' })).status).toBe(422);
  });
});

const codeAt = totpCodeAt;

/** A signed-up account with the app set up: its key and recovery codes. */
async function enrolled() {
  const user = await signUpUser();
  // A wrong code does not turn it on.
  expect((await postForm('/account/security/totp', {}, { cookie: user.cookie })).status).toBe(303);
  const wrong = await postForm('/account/security/totp/confirm', { code: '000000' }, { cookie: user.cookie });
  expect(wrong.status).toBe(422);
  // The same key stays, with the form and the reason beside its field: the app already holds it.
  const keyOf = (html: string) => /<code id="totp-key">([A-Z2-7]+)<\/code>/.exec(html)?.[1];
  const shownKey = keyOf(await wrong.text());
  expect(shownKey).toBeTruthy();
  expect(keyOf(await (await getPage('/account/security', user.cookie)).text())).toBe(shownKey);
  const { key, codes } = await enrolAuthenticator(user.cookie);
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
  afterEach(() => resetClockForTests());
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
    ).toBe(303);
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
  afterEach(() => resetClockForTests());
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
    const one = await postForm(`/account/security/sessions/${phoneHandle}/end`, {}, { cookie: laptop });
    // Every post ends on the page by a redirect, so a reload sends nothing again.
    expect([one.status, one.headers.get('Location')]).toEqual([303, '/account/security?notice=session_ended']);
    expect((await getPage('/account/security', phone)).status).toBe(303);
    expect((await getPage('/account/security', user.cookie)).status).toBe(200);

    const ended = await postForm('/account/security/sessions/others/end', {}, { cookie: laptop });
    expect(ended.headers.get('Location')).toBe('/account/security?notice=sessions_ended');
    expect(await (await getPage('/account/security?notice=sessions_ended', laptop)).text()).toContain(
      'Every other session is signed out.',
    );
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
    const before = await platformDb.prepare('SELECT count(*) AS n FROM security_events').first<{ n: number }>();
    await postForm(
      '/auth/sign-in',
      { email: 'nobody.here@example.com', password: 'whatever it is' },
      { ip: '198.51.100.62' },
    );
    expect((await platformDb.prepare('SELECT count(*) AS n FROM security_events').first<{ n: number }>())!.n).toBe(
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
    // The sign-in from a device the account had not used was emailed; another from it is not.
    expect(await mailTo(user.email, /^A new sign-in to your account \(Firefox on Windows\)$/)).toBeTruthy();
    await signInFrom(user, FIREFOX, 'PT');
    const written = await platformDb
      .prepare(
        `SELECT count(*) AS n FROM emails e JOIN users u ON u.id = e.user_id
       WHERE u.email = ? AND e.subject LIKE 'A new sign-in%'`,
      )
      .bind(user.email)
      .first<{ n: number }>();
    expect(written!.n).toBe(1);
  });
});

describe('email verification', () => {
  afterEach(() => resetClockForTests());
  const blocked = async (response: Response) => {
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('Confirm your email address first');
  };

  it('sends a link at sign-up; until it is followed, the gated actions answer 403 email_unverified', async () => {
    const user = await signUpUser('business', {}, { verified: false });
    const mail = await mailTo(user.email, /Confirm your email address/);
    const link = /https?:\/\/\S+(\/auth\/verify\/atk_[0-9a-z]+\.[0-9a-f]+)/.exec(mail!.text)![1]!;
    expect(link).toBe(await verificationPathFor(user.email));
    expect(await (await getPage('/onboarding/workspace', user.cookie)).text()).toContain('verify-banner');
    const organisation = { organization_name: 'Early Org', workspace_name: 'Production' };
    const early = await postForm('/onboarding/workspace', organisation, { cookie: user.cookie });
    // The form stays as typed, with why and the link's button beside it.
    const earlyPage = await early.clone().text();
    expect(earlyPage).toContain('value="Early Org"');
    expect(earlyPage).toContain('action="/auth/verify/send"');
    await blocked(early);

    const provider = await signUpUser('provider', {}, { verified: false });
    const submit = (cookie: string, extra: Record<string, unknown>) =>
      sessionCall(cookie, '/api/provider/profile', { body: { ...completeProfile(), ...extra } });
    await expectProblem(await submit(provider.cookie, { submit: true }), 403, 'email_unverified');
    // Saving a draft is allowed: only sending it to review waits.
    expect((await submit(provider.cookie, {})).status).toBe(200);
    await blocked(await postForm('/provider/onboarding/submit', {}, { cookie: provider.cookie }));

    // Opening the link confirms nothing (a mail scanner opens links); its button does, once.
    expect((await getPage(link)).status).toBe(200);
    await blocked(await postForm('/onboarding/workspace', organisation, { cookie: user.cookie }));
    const confirmed = await postForm(link, {});
    expect([confirmed.status, confirmed.headers.get('Location')]).toEqual([303, '/auth/verify/done']);
    expect(await (await getPage('/auth/verify/done', user.cookie)).text()).toContain('email is confirmed');
    expect((await postForm(link, {})).status).toBe(404);
    expect((await postForm('/onboarding/workspace', organisation, { cookie: user.cookie })).status).toBe(303);
    expect(await (await getPage('/account/security', user.cookie)).text()).not.toContain('verify-banner');
  });

  it('a link expires after a day; "send it again" is limited to 3 an hour, and the newest link works', async () => {
    const user = await signUpUser('business', {}, { verified: false });
    const first = await verificationPathFor(user.email);
    moveClockForTests(24 * 60 * 60 * 1000 + 1000);
    expect((await postForm(first, {})).status).toBe(404);
    const statuses = [];
    for (let index = 0; index < 4; index++)
      statuses.push((await postForm('/auth/verify/send', {}, { cookie: user.cookie })).status);
    expect(statuses).toEqual([303, 303, 303, 429]);
    const newest = await verificationPathFor(user.email);
    expect(newest).not.toBe(first);
    expect((await postForm(newest, {})).status).toBe(303);
    // Confirmed: sending again does nothing more.
    expect((await postForm('/auth/verify/send', {}, { cookie: user.cookie })).status).toBe(303);
  });

  it('a changed email is unconfirmed again: a link to the new address, a notice to the old one', async () => {
    const expert = await createActiveExpert();
    const password = 'correct horse battery staple';
    const newEmail = uniqueEmail('moved');
    const change = (fields: Record<string, string>) =>
      postForm('/account/security/email', fields, { cookie: expert.cookie });
    expect((await change({ email: newEmail, email_password: 'not the password' })).status).toBe(401);
    expect((await change({ email: expert.email, email_password: password })).status).toBe(422);
    expect((await change({ email: newEmail, email_password: password })).status).toBe(303);

    expect(await mailTo(expert.email, /sign-in email of your account was changed/)).toBeTruthy();
    expect(await mailTo(newEmail, /Confirm your email address/)).toBeTruthy();
    // An active expert whose address is unconfirmed claims nothing until it is.
    const claim = () => sessionCall(expert.cookie, '/api/provider/workbench/leads/lead_none/claim', { method: 'POST' });
    await expectProblem(await claim(), 403, 'email_unverified');
    expect((await postForm(await verificationPathFor(newEmail), {})).status).toBe(303);
    expect((await claim()).status).toBe(404);
    const events = await platformDb
      .prepare('SELECT kind FROM security_events WHERE user_id = ? ORDER BY id')
      .bind(expert.userId)
      .all<{ kind: string }>();
    expect(events.results.map((event) => event.kind)).toEqual(
      expect.arrayContaining(['email_changed', 'email_verified']),
    );
  });
});

describe('platform administrators', () => {
  afterEach(() => resetClockForTests());
  it('must set up a second factor before any admin page or admin change answers', async () => {
    const admin = await signUpPlatformAdmin({ enrolled: false });
    for (const path of ['/admin/providers', '/admin/billing', '/admin/requests', '/admin/insights']) {
      const page = await getPage(path, admin.cookie);
      expect([path, page.status, page.headers.get('Location')]).toEqual([
        path,
        303,
        '/account/security?notice=admin_factor',
      ]);
    }
    const change = await postForm('/admin/billing/credits', {}, { cookie: admin.cookie });
    expect([change.status, await change.text()]).toEqual([403, expect.stringContaining('two-step sign-in first')]);
    await enrolAuthenticator(admin.cookie);
    expect((await getPage('/admin/providers', admin.cookie)).status).toBe(200);
  });
});

describe('an organisation that requires a second factor', () => {
  afterEach(() => resetClockForTests());
  it('closes its workspaces to members without one, and only an owner with one may turn it on', async () => {
    const owner = await signUpOwner();
    const member = await signUpUser();
    const ws = `?ws=${owner.workspaceId}`;
    await postForm(`/integrations/team/invite${ws}`, { email: member.email, role: 'member' }, { cookie: owner.cookie });
    const invitation = await platformDb
      .prepare('SELECT id FROM invitations WHERE email = ?')
      .bind(member.email)
      .first<{ id: string }>();
    expect((await postForm(`/invitations/${invitation!.id}/accept`, {}, { cookie: member.cookie })).status).toBe(303);

    const requireIt = () =>
      postForm(`/integrations/team/second-factor${ws}`, { required: 'on' }, { cookie: owner.cookie });
    expect((await requireIt()).status).toBe(409);
    await enrolAuthenticator(owner.cookie);
    expect((await requireIt()).status).toBe(303);
    // The member's pages open the security page; the session API says why.
    const page = await getPage(`/integrations${ws}`, member.cookie);
    expect([page.status, page.headers.get('Location')]).toEqual([303, '/account/security?notice=org_factor']);
    const channels = () =>
      workerFetch(`${ORIGIN}/api/integrations/channels`, {
        headers: { Cookie: `egw_session=${member.cookie}`, 'X-Workspace-Id': owner.workspaceId },
      });
    await expectProblem(await channels(), 403, 'second_factor_required');
    expect((await getPage(`/integrations${ws}`, owner.cookie)).status).toBe(200);
    await enrolAuthenticator(member.cookie);
    const allowed = await channels();
    expect(allowed.status, await allowed.clone().text()).toBe(200);
    expect((await getPage(`/integrations${ws}`, member.cookie)).status).toBe(200);
  });
});

/** Registration and sign-in options, as the routes answer them. */
interface CeremonyOptions {
  challenge: string;
  rp: { id: string };
  rpId: string;
  attestation?: string;
  allowCredentials: { id: string }[];
}

describe('passkeys', () => {
  afterEach(() => resetClockForTests());
  /** A signed-in account with a passkey added through its security page. */
  async function withPasskey() {
    const user = await signUpUser();
    const device = new SoftAuthenticator(ORIGIN);
    const options = await (
      await postForm('/account/security/passkeys/options', {}, { cookie: user.cookie })
    ).json<CeremonyOptions>();
    expect(options).toMatchObject({ rp: { id: 'gateway.test' }, attestation: 'none' });
    const answer = JSON.stringify(await device.register(options));
    const added = await postForm('/account/security/passkeys', { name: 'Laptop', answer }, { cookie: user.cookie });
    expect([added.status, added.headers.get('Location')]).toEqual([303, '/account/security?notice=passkey_added']);
    // The same answer again: its challenge is spent.
    expect(
      (await postForm('/account/security/passkeys', { name: 'Again', answer }, { cookie: user.cookie })).status,
    ).toBe(401);
    return { ...user, device };
  }

  it('signs in without a password, once per challenge; the page lists it, and the owner is told', async () => {
    const user = await withPasskey();
    expect(await (await getPage('/account/security', user.cookie)).text()).toContain('Laptop');
    expect(await mailTo(user.email, /A passkey was added/)).toBeTruthy();
    const options = await (await postForm('/auth/passkey/options', {})).json<CeremonyOptions>();
    const answer = JSON.stringify(await user.device.assert(options));
    const signedIn = await postForm('/auth/passkey', { answer });
    expect(signedIn.status).toBe(303);
    expect(sessionCookieFrom(signedIn)).toBeTruthy();
    expect((await postForm('/auth/passkey', { answer })).status).toBe(401);
    // Garbage is a refusal, never a 500.
    for (const garbage of ['{}', 'not json', JSON.stringify({ ...JSON.parse(answer), id: 'x'.repeat(2000) })])
      expect((await postForm('/auth/passkey', { answer: garbage })).status).toBe(401);
  });

  it('is the second step after a password, and only the account’s own passkey answers it', async () => {
    const user = await withPasskey();
    const stranger = await withPasskey();
    const pending = await passwordStep(user);
    const second = (path: string, fields: Record<string, string>) =>
      workerFetch(`${ORIGIN}${path}`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          Origin: ORIGIN,
          Cookie: `egw_pending=${pending}`,
        },
        body: new URLSearchParams(fields).toString(),
        redirect: 'manual',
      });
    const page = await (
      await workerFetch(`${ORIGIN}/auth/second-factor`, { headers: { Cookie: `egw_pending=${pending}` } })
    ).text();
    expect(page).toContain('Use your passkey');
    const options = await (await second('/auth/second-factor/passkey/options', {})).json<CeremonyOptions>();
    expect(options.allowCredentials.map((credential: { id: string }) => credential.id)).toEqual([user.device.id]);
    const strangers = JSON.stringify(await stranger.device.assert(options));
    expect((await second('/auth/second-factor/passkey', { answer: strangers })).status).toBe(401);
    const fresh = await (await second('/auth/second-factor/passkey/options', {})).json<CeremonyOptions>();
    const done = await second('/auth/second-factor/passkey', {
      answer: JSON.stringify(await user.device.assert(fresh)),
    });
    expect(done.status).toBe(303);
    expect(sessionCookieFrom(done)).toBeTruthy();
  });

  it('is renamed, and removed only with the password, never another account’s', async () => {
    const user = await withPasskey();
    const other = await signUpUser();
    const path = `/account/security/passkeys/${user.device.id}`;
    expect((await postForm(`${path}/rename`, { name: 'Work laptop' }, { cookie: other.cookie })).status).toBe(404);
    expect((await postForm(`${path}/rename`, { name: 'Work laptop' }, { cookie: user.cookie })).status).toBe(303);
    expect(await (await getPage('/account/security', user.cookie)).text()).toContain('Work laptop');
    expect(
      (await postForm(`${path}/remove`, { passkey_password: user.password }, { cookie: other.cookie })).status,
    ).toBe(404);
    expect((await postForm(`${path}/remove`, { passkey_password: 'wrong' }, { cookie: user.cookie })).status).toBe(401);
    expect(
      (await postForm(`${path}/remove`, { passkey_password: user.password }, { cookie: user.cookie })).status,
    ).toBe(303);
    expect(await mailTo(user.email, /A passkey was removed/)).toBeTruthy();
  });
});
