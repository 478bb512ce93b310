/**
 * Accounts where a probe pushed on them (docs/design/identity-and-access.md): adding a credential
 * asks for the password (or a sign-in) within 5 minutes, and a reset offers to remove what was
 * added; an organisation's two-step rule reaches the workbench of its member-experts; a burst of
 * guesses is held to the limit while right answers in flight block nobody; a pending sign-in is
 * spent by the session it opens; two confirmations of one app say what happened.
 */
import { env } from 'cloudflare:test';
import { afterEach, describe, expect, it } from 'vitest';
import { clock, moveClockForTests, resetClockForTests } from '../../worker/lib/clock';
import { STEP_UP_MS } from '../../worker/platform/identity';
import { accountLinkPath } from '../../worker/lib/account-links';
import {
  cookieValue,
  enrolAuthenticator,
  getPage,
  postForm,
  sessionCookieFrom,
  signUpOwner,
  signUpUser,
  totpCodeAt,
} from './console-helpers';
import { createActiveExpert, createChannel, sessionCall, visitorSays } from './provider-helpers';
import { ADMIN_TOKEN, call, expectProblem, json, ORIGIN } from './helpers';
import { SoftAuthenticator } from './soft-authenticator';
import { workerFetch } from './self';
import { mailTo } from './mail-helpers';
import { platformDb } from './platform-db';

const passkeyOptions = (cookie: string) => postForm('/account/security/passkeys/options', {}, { cookie });

describe('adding a way in asks who you are', () => {
  afterEach(() => resetClockForTests());
  it('a session older than 5 minutes adds no passkey or app until the password is typed again', async () => {
    const user = await signUpUser();
    // Just signed in: a passkey may be added.
    expect((await passkeyOptions(user.cookie)).status).toBe(200);
    moveClockForTests(STEP_UP_MS + 1_000);
    // A copied cookie alone: refused, and the page asks for the password instead.
    expect((await passkeyOptions(user.cookie)).status).toBe(401);
    const answer = JSON.stringify({ id: 'x' });
    expect(
      (await postForm('/account/security/passkeys', { name: 'Laptop', answer }, { cookie: user.cookie })).status,
    ).toBe(401);
    expect((await postForm('/account/security/totp', {}, { cookie: user.cookie })).status).toBe(401);
    const page = await (await getPage('/account/security', user.cookie)).text();
    expect(page).toContain('name="confirm_password"');
    expect(page).not.toContain('data-passkey-ceremony="create"');
    // The wrong password confirms nothing; the right one opens 5 minutes.
    expect(
      (await postForm('/account/security/confirm', { confirm_password: 'not it' }, { cookie: user.cookie })).status,
    ).toBe(401);
    const confirmed = await postForm(
      '/account/security/confirm',
      { confirm_password: user.password },
      { cookie: user.cookie },
    );
    expect([confirmed.status, confirmed.headers.get('Location')]).toEqual([303, '/account/security?notice=confirmed']);
    expect((await passkeyOptions(user.cookie)).status).toBe(200);
    // Setting up an app: the password in its own form works as well, after the window closed again.
    moveClockForTests(STEP_UP_MS + 1_000);
    const { codes } = await enrolAuthenticator(user.cookie, user.password);
    expect(codes).toHaveLength(10);
  });

  it('an app being set up shows its key again only to a confirmed session, and can be cancelled', async () => {
    const user = await signUpUser();
    expect((await postForm('/account/security/totp', {}, { cookie: user.cookie })).status).toBe(303);
    const keyOf = (html: string) => /<code id="totp-key">([A-Z2-7]+)<\/code>/.exec(html)?.[1];
    const key = keyOf(await (await getPage('/account/security', user.cookie)).text());
    expect(key).toBeTruthy();
    // Starting again keeps the key the app may already hold.
    expect((await postForm('/account/security/totp', {}, { cookie: user.cookie })).status).toBe(303);
    expect(keyOf(await (await getPage('/account/security', user.cookie)).text())).toBe(key);
    moveClockForTests(STEP_UP_MS + 1_000);
    expect(keyOf(await (await getPage('/account/security', user.cookie)).text())).toBeUndefined();
    expect(
      (await postForm('/account/security/totp/confirm', { code: totpCodeAt(key!) }, { cookie: user.cookie })).status,
    ).toBe(401);
    const cancelled = await postForm('/account/security/totp/cancel', {}, { cookie: user.cookie });
    expect(cancelled.headers.get('Location')).toBe('/account/security?notice=totp_cancelled');
    expect(
      await platformDb
        .prepare('SELECT COUNT(*) AS n FROM user_factors f JOIN users u ON u.id = f.user_id WHERE u.email = ?')
        .bind(user.email)
        .first(),
    ).toEqual({ n: 0 });
  });

  it('the reset page lists the account’s passkeys and app, and removes the ones its owner picks', async () => {
    const user = await signUpUser();
    await enrolAuthenticator(user.cookie);
    const device = new SoftAuthenticator(ORIGIN);
    const options = await (await passkeyOptions(user.cookie)).json<Parameters<SoftAuthenticator['register']>[0]>();
    const added = await postForm(
      '/account/security/passkeys',
      { name: 'Someone else’s', answer: JSON.stringify(await device.register(options)) },
      { cookie: user.cookie },
    );
    expect(added.status).toBe(303);
    expect((await postForm('/auth/forgot', { email: user.email })).status).toBe(303);
    const token = await platformDb
      .prepare("SELECT id FROM account_tokens WHERE email = ? AND purpose = 'password_reset' ORDER BY created_at DESC")
      .bind(user.email)
      .first<{ id: string }>();
    const link = await accountLinkPath(env.SECRETS_KEY, 'password_reset', token!.id);
    const page = await (await getPage(link)).text();
    expect(page).toContain('Someone else’s');
    expect(page).toContain('name="remove_app"');
    const passkeyId = /name="remove_passkeys" value="([^"]+)"/.exec(page)![1]!;
    const reset = await postForm(link, {
      password: 'a brand new long passphrase',
      remove_app: 'on',
      remove_passkeys: passkeyId,
    });
    expect(reset.status).toBe(303);
    const left = await platformDb
      .prepare(
        `SELECT (SELECT COUNT(*) FROM user_passkeys p JOIN users u ON u.id = p.user_id WHERE u.email = ?1) AS passkeys,
        (SELECT COUNT(*) FROM user_factors f JOIN users u ON u.id = f.user_id WHERE u.email = ?1) AS apps,
        (SELECT COUNT(*) FROM recovery_codes r JOIN users u ON u.id = r.user_id WHERE u.email = ?1) AS codes`,
      )
      .bind(user.email)
      .first();
    expect(left).toEqual({ passkeys: 0, apps: 0, codes: 0 });
  });
});

describe('an organisation’s two-step rule on the workbench', () => {
  afterEach(() => resetClockForTests());
  it('a member-expert without a second factor neither sees nor claims the workspace’s own leads', async () => {
    const owner = await signUpOwner();
    const ws = `?ws=${owner.workspaceId}`;
    const domain = `twostep-${crypto.randomUUID().slice(0, 8)}`;
    expect((await call('/api/admin/domains', { token: ADMIN_TOKEN, body: { domain, name: domain } })).status).toBe(201);
    const expert = await createActiveExpert({ domains: [domain] });
    await postForm(`/integrations/team/invite${ws}`, { email: expert.email, role: 'member' }, { cookie: owner.cookie });
    const invitation = await platformDb
      .prepare('SELECT id FROM invitations WHERE email = ?')
      .bind(expert.email)
      .first<{ id: string }>();
    expect((await postForm(`/invitations/${invitation!.id}/accept`, {}, { cookie: expert.cookie })).status).toBe(303);
    await enrolAuthenticator(owner.cookie);
    expect(
      (await postForm(`/integrations/team/second-factor${ws}`, { required: 'on' }, { cookie: owner.cookie })).status,
    ).toBe(303);
    const key = await json(
      await call('/api/admin/api-keys', {
        token: ADMIN_TOKEN,
        body: { workspace_id: owner.workspaceId, name: 'k', scopes: ['execute', 'leads:write', 'channels:write'] },
      }),
    );
    const channel = await createChannel(key.token, { domain, routingPool: 'workspace' });
    const lead = (await visitorSays(channel, { message: { text: 'For the team only, please.' } }, '198.18.9.1'))
      .lead_id;
    const listed = async () =>
      JSON.stringify(await json(await sessionCall(expert.cookie, '/api/provider/workbench/leads?scope=available')));
    expect(await listed()).not.toContain(lead);
    await expectProblem(await sessionCall(expert.cookie, `/api/provider/workbench/leads/${lead}`), 404, 'not_found');
    await expectProblem(
      await sessionCall(expert.cookie, `/api/provider/workbench/leads/${lead}/claim`, { method: 'POST' }),
      404,
      'not_found',
    );
    // No offer either: no row names them for it.
    expect(
      await platformDb
        .prepare('SELECT COUNT(*) AS n FROM lead_offers WHERE lead_id = ? AND provider_id = ?')
        .bind(lead, expert.providerId)
        .first(),
    ).toEqual({ n: 0 });
    // Once they set one up, the factors' triggers mark the provider, and the next lead is theirs to see.
    const flag = () =>
      platformDb.prepare('SELECT second_factor AS on_ FROM providers WHERE id = ?').bind(expert.providerId).first();
    expect(await flag()).toEqual({ on_: 0 });
    await enrolAuthenticator(expert.cookie);
    expect(await flag()).toEqual({ on_: 1 });
    const next = (await visitorSays(channel, { message: { text: 'Another one for the team.' } }, '198.18.9.2')).lead_id;
    expect(await listed()).toContain(next);
  });
});

describe('guesses in a burst', () => {
  afterEach(() => resetClockForTests());
  /** The password step of a sign-in from one client address: its pending cookie. */
  async function pendingFor(user: { email: string; password: string }) {
    const response = await postForm(
      '/auth/sign-in',
      { email: user.email, password: user.password },
      { ip: '203.0.113.77' },
    );
    return cookieValue(response, 'egw_pending')!;
  }
  const second = (pending: string, code: string) =>
    workerFetch(`${ORIGIN}/auth/second-factor`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Origin: ORIGIN,
        Cookie: `egw_pending=${pending}`,
      },
      body: new URLSearchParams({ code }).toString(),
      redirect: 'manual',
    });

  it('six wrong codes and the right one at once: at most five codes are checked', async () => {
    const user = await signUpUser();
    const { key } = await enrolAuthenticator(user.cookie);
    moveClockForTests(30_000);
    const pending = await pendingFor(user);
    const codes = [...Array.from({ length: 6 }, (_, index) => `00000${index}`), totpCodeAt(key)];
    const answers = await Promise.all(codes.map((code) => second(pending, code)));
    const checked = answers.filter((answer) => answer.status !== 429);
    expect(checked.length).toBeLessThanOrEqual(5);
    // However the burst fell, five wrong codes lock the factor now, the right code too.
    for (let index = 0; index < 5; index++) await second(pending, '999999');
    expect((await second(pending, totpCodeAt(key, Math.floor(clock.now() / 30_000) + 1))).status).toBe(429);
  });

  it('twenty right sign-ins at once all succeed; forty wrong ones get exactly five guesses', async () => {
    const user = await signUpUser();
    const signIn = (password: string, ip: string) => postForm('/auth/sign-in', { email: user.email, password }, { ip });
    const right = await Promise.all(
      Array.from({ length: 20 }, (_, index) => signIn(user.password, `198.51.100.${index + 1}`)),
    );
    expect(right.map((response) => response.status)).toEqual(Array(20).fill(303));
    const wrong = await Promise.all(
      Array.from({ length: 40 }, (_, index) => signIn('not the password', `198.51.101.${index + 1}`)),
    );
    expect(wrong.filter((response) => response.status === 401)).toHaveLength(5);
    expect(wrong.filter((response) => response.status === 429)).toHaveLength(35);
    // Locked by failures: the right password waits out the window too.
    expect((await signIn(user.password, '198.51.102.1')).status).toBe(429);
  });

  it('a slot a dead attempt never gave back stops counting after 30 seconds', async () => {
    const user = await signUpUser();
    // As if five attempts had taken their slots and their Worker died before settling.
    const account = `signin:acct:${await sha256(user.email)}`;
    await platformDb
      .prepare('INSERT INTO rate_limit_windows (key_id, window_start, count, max_count) VALUES (?, ?, 5, 5)')
      .bind(`${account}:flight`, clock.now())
      .run();
    const signIn = () =>
      postForm('/auth/sign-in', { email: user.email, password: user.password }, { ip: '198.51.103.1' });
    expect((await signIn()).status).toBe(429);
    moveClockForTests(31_000);
    expect((await signIn()).status).toBe(303);
  });
});

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text.trim().toLowerCase()));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

describe('a pending sign-in and a new app, once', () => {
  afterEach(() => resetClockForTests());
  it('the pending cookie opens the second step no more once its sign-in finished', async () => {
    const user = await signUpUser();
    const { key } = await enrolAuthenticator(user.cookie);
    moveClockForTests(30_000);
    const response = await postForm(
      '/auth/sign-in',
      { email: user.email, password: user.password },
      { ip: '203.0.113.78' },
    );
    const pending = cookieValue(response, 'egw_pending')!;
    const finish = (code: string) =>
      workerFetch(`${ORIGIN}/auth/second-factor`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          Origin: ORIGIN,
          Cookie: `egw_pending=${pending}`,
        },
        body: new URLSearchParams({ code }).toString(),
        redirect: 'manual',
      });
    const done = await finish(totpCodeAt(key));
    expect(sessionCookieFrom(done)).toBeTruthy();
    moveClockForTests(30_000);
    const again = await workerFetch(`${ORIGIN}/auth/second-factor`, {
      headers: { Cookie: `egw_pending=${pending}` },
      redirect: 'manual',
    });
    expect([again.status, again.headers.get('Location')]).toEqual([303, '/auth/sign-in']);
    const reused = await finish(totpCodeAt(key));
    expect(sessionCookieFrom(reused)).toBeUndefined();
  });

  it('two confirmations of one app at once: one turns it on, the other says so', async () => {
    const user = await signUpUser();
    expect((await postForm('/account/security/totp', {}, { cookie: user.cookie })).status).toBe(303);
    const key = /<code id="totp-key">([A-Z2-7]+)<\/code>/.exec(
      await (await getPage('/account/security', user.cookie)).text(),
    )![1]!;
    const code = totpCodeAt(key);
    const [a, b] = await Promise.all([
      postForm('/account/security/totp/confirm', { code }, { cookie: user.cookie }),
      postForm('/account/security/totp/confirm', { code }, { cookie: user.cookie }),
    ]);
    const statuses = [a.status, b.status].toSorted();
    expect(statuses).toEqual([303, 409]);
    const loser = a.status === 409 ? a : b;
    expect(await loser.text()).toContain('already on');
  });
});

describe('signing up with an address that has an account', () => {
  it('tells the account’s owner, and a client learns at most ten such addresses an hour', async () => {
    const owner = await signUpUser();
    const again = () =>
      postForm(
        '/auth/sign-up',
        { email: owner.email, password: 'another long passphrase', role: 'business' },
        {
          ip: '198.51.104.9',
        },
      );
    expect((await again()).status).toBe(409);
    expect(await mailTo(owner.email, /Someone tried to sign up with your address/)).toBeTruthy();
    for (let index = 1; index < 10; index++) expect((await again()).status).toBe(409);
    const refused = await again();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0);
  });
});
