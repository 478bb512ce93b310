import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { safeReturnTo } from '../../worker/console/shared/session';
import { ACCOUNT_FAILURE_LIMIT, CLIENT_FAILURE_LIMIT } from '../../worker/platform/identity/accounts';
import { PBKDF2_ITERATIONS, WORKERS_PBKDF2_MAX_ITERATIONS, parsePasswordHash } from '../../worker/lib/passwords';
import { expectStrictPageHeaders } from './helpers';
import {
  getPage,
  postForm,
  sessionCookieFrom,
  setCookies,
  signUpOwner,
  signUpUser,
  uniqueEmail,
} from './console-helpers';
import { workerFetch } from './self';
import { clock, moveClockForTests } from '../../worker/lib/clock';
import { SESSION_TTL_MS } from '../../worker/platform/identity/sessions';
import { platformDb } from './platform-db';

async function sha256Hex(text: string) {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The same scheme as worker/lib/passwords.ts, written out independently. */
async function pbkdf2(password: string, salt: Uint8Array, iterations: number) {
  const hmacKey = await crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(env.PASSWORD_PEPPER!),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const peppered = await crypto.subtle.sign('HMAC', hmacKey, new TextEncoder().encode(password));
  const key = await crypto.subtle.importKey('raw', peppered, 'PBKDF2', false, ['deriveBits']);
  return new Uint8Array(
    await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations }, key, 256),
  );
}

const storedHash = async (email: string) =>
  (await platformDb
    .prepare('SELECT password_hash FROM users WHERE email = ?')
    .bind(email)
    .first<{ password_hash: string }>())!.password_hash;

const errorText = async (response: Response) =>
  /<div class="alert error" role="alert">([^<]*)<\/div>/.exec(await response.text())?.[1];

describe('sign-up', () => {
  it(
    'creates the account, a session cookie with the right attributes, and lands a business on ' + 'onboarding',
    async () => {
      const email = uniqueEmail();
      const response = await postForm('/auth/sign-up', {
        email: email.toUpperCase(),
        password: 'correct horse battery staple',
        role: 'business',
      });
      expect(response.status).toBe(303);
      expect(response.headers.get('Location')).toBe('/onboarding/workspace');
      const setCookie = setCookies(response).find((cookie) => cookie.startsWith('egw_session='))!;
      expect(setCookie).toMatch(/HttpOnly/);
      expect(setCookie).toMatch(/SameSite=Lax/);
      expect(setCookie).toMatch(/Path=\//);
      const token = sessionCookieFrom(response)!;
      expect(token.length).toBeGreaterThanOrEqual(40);
      const user = await platformDb
        .prepare('SELECT id, role FROM users WHERE email = ?')
        .bind(email)
        .first<{ id: string; role: string }>();
      expect(user?.role).toBe('business');
      const session = await platformDb
        .prepare('SELECT token_hash, user_id FROM user_sessions WHERE token_hash = ?')
        .bind(await sha256Hex(token))
        .first();
      expect(session).toEqual({ token_hash: await sha256Hex(token), user_id: user!.id });
      const leaked = await platformDb
        .prepare('SELECT COUNT(*) AS n FROM user_sessions WHERE token_hash = ?')
        .bind(token)
        .first<{ n: number }>();
      expect(leaked?.n).toBe(0);
    },
  );

  it('refuses a duplicate email', async () => {
    const { email } = await signUpUser();
    const response = await postForm('/auth/sign-up', { email, password: 'another fine passphrase', role: 'business' });
    expect(response.status).toBe(409);
    // Said once, next to the email field.
    const page = await response.text();
    expect(/<p class="field-error" id="email-error">([^<]*)</.exec(page)?.[1]).toContain('cannot be used');
    expect(page.split('cannot be used')).toHaveLength(2);
    expect(sessionCookieFrom(response)).toBeUndefined();
  });

  const weak: [string, string][] = [
    ['too short', 'abc123'],
    ['common', 'password123'],
    ['common in another case', 'Password1'],
    ['one repeated character', 'aaaaaaaaaa'],
  ];
  for (const [name, password] of weak) {
    it(`refuses a ${name} password`, async () => {
      const email = uniqueEmail();
      const response = await postForm('/auth/sign-up', { email, password, role: 'business' });
      expect(response.status).toBe(422);
      // The reason shows once, next to the password field, not again in the summary.
      const page = await response.text();
      const reason = /<p class="field-error"[^>]*>([^<]+)</.exec(page)?.[1];
      expect(reason).toBeTruthy();
      expect(page.split(reason as string)).toHaveLength(2);
      expect(
        await platformDb.prepare('SELECT COUNT(*) AS n FROM users WHERE email = ?').bind(email).first<{ n: number }>(),
      ).toEqual({ n: 0 });
    });
  }

  it('refuses the email address as password, and allows 64 characters', async () => {
    const email = uniqueEmail();
    expect((await postForm('/auth/sign-up', { email, password: email, role: 'business' })).status).toBe(422);
    expect((await postForm('/auth/sign-up', { email, password: 'x1'.repeat(32), role: 'business' })).status).toBe(303);
  });

  it(
    'a provider sign-up keeps the referring channel, creates the provider as registered, and lands on ' + 'onboarding',
    async () => {
      const page = await (await getPage('/auth/sign-up?role=provider&ref=ch_demo')).text();
      expect(page).toMatch(/value="provider" checked=""/);
      expect(page).toContain('name="ref" value="ch_demo"');
      const user = await signUpUser('provider', { ref: 'ch_demo' });
      expect(user.location).toBe('/provider/onboarding');
      const provider = await platformDb
        .prepare(
          'SELECT p.status, p.referred_by_channel_key FROM providers p JOIN users u ON u.id = p.user_id WHERE ' +
            'u.email = ?',
        )
        .bind(user.email)
        .first();
      expect(provider).toEqual({ status: 'registered', referred_by_channel_key: 'ch_demo' });
      const landing = await getPage('/provider/onboarding', user.cookie);
      expect(landing.status).toBe(200);
      expect(await landing.text()).toContain('registered');
    },
  );
});

describe('secrets', () => {
  // crypto.subtle.timingSafeEqual exists in workerd only, so this runs here rather than in a unit test.
  it('compares secrets by value, in constant time', async () => {
    const { secretsEqual } = await import('../../worker/lib/crypto');
    expect(await secretsEqual('abc', 'abc')).toBe(true);
    expect(await secretsEqual('abc', 'abd')).toBe(false);
    expect(await secretsEqual('abc', 'abcd')).toBe(false);
  });
});

describe('passwords', () => {
  it('PBKDF2 runs at exactly 100,000 iterations, the Workers production cap', async () => {
    expect(PBKDF2_ITERATIONS).toBe(100_000);
    expect(PBKDF2_ITERATIONS).toBeLessThanOrEqual(WORKERS_PBKDF2_MAX_ITERATIONS);
    const { email, password } = await signUpUser();
    const stored = await storedHash(email);
    expect(stored.startsWith('pbkdf2-sha256$100000$')).toBe(true);
    const parameters = parsePasswordHash(stored)!;
    expect(parameters.iterations).toBe(100_000);
    // Recomputed independently with 100,000 iterations, the stored hash matches; with 99,999 it does not.
    expect(await pbkdf2(password, parameters.salt, 100_000)).toEqual(parameters.hash);
    expect(await pbkdf2(password, parameters.salt, 99_999)).not.toEqual(parameters.hash);
  });

  it('rehashes a hash with old parameters at the next sign-in', async () => {
    const { email, password } = await signUpUser();
    const salt = crypto.getRandomValues(new Uint8Array(16));
    const old = await pbkdf2(password, salt, 1000);
    const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
    await platformDb
      .prepare('UPDATE users SET password_hash = ? WHERE email = ?')
      .bind(`pbkdf2-sha256$1000$${b64(salt)}$${b64(old)}`, email)
      .run();
    expect((await postForm('/auth/sign-in', { email, password })).status).toBe(303);
    expect((await storedHash(email)).startsWith('pbkdf2-sha256$100000$')).toBe(true);
  });
});

describe('sign-in', () => {
  it('a wrong password and an unknown email get the same answer', async () => {
    const { email } = await signUpUser();
    const wrong = await postForm('/auth/sign-in', { email, password: 'not the password' }, { ip: '192.0.2.10' });
    const unknown = await postForm(
      '/auth/sign-in',
      { email: uniqueEmail('nobody'), password: 'not the password' },
      { ip: '192.0.2.10' },
    );
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const [wrongText, unknownText] = [await errorText(wrong), await errorText(unknown)];
    expect(wrongText).toBe('Email or password is incorrect.');
    expect(unknownText).toBe(wrongText);
  });

  it(`throttles an account after ${ACCOUNT_FAILURE_LIMIT} failures, even with the right password`, async () => {
    const { email, password } = await signUpUser();
    for (let i = 0; i < ACCOUNT_FAILURE_LIMIT; i++) {
      expect((await postForm('/auth/sign-in', { email, password: `wrong ${i}` }, { ip: `198.18.0.${i}` })).status).toBe(
        401,
      );
    }
    const blocked = await postForm('/auth/sign-in', { email, password }, { ip: '198.18.1.1' });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('Retry-After'))).toBeGreaterThan(0);
    expect(sessionCookieFrom(blocked)).toBeUndefined();
    // The window passes: the right password works again.
    await platformDb
      .prepare("UPDATE rate_limit_windows SET window_start = window_start - 900000 WHERE key_id LIKE 'signin:%'")
      .run();
    expect((await postForm('/auth/sign-in', { email, password }, { ip: '198.18.1.1' })).status).toBe(303);
  });

  it(`throttles a client after ${CLIENT_FAILURE_LIMIT} failures across accounts`, async () => {
    const ip = '198.19.7.7';
    for (let i = 0; i < CLIENT_FAILURE_LIMIT; i++) {
      expect(
        (await postForm('/auth/sign-in', { email: uniqueEmail('spray'), password: 'guess guess' }, { ip })).status,
      ).toBe(401);
    }
    const { email, password } = await signUpUser();
    expect((await postForm('/auth/sign-in', { email, password }, { ip })).status).toBe(429);
    expect((await postForm('/auth/sign-in', { email, password }, { ip: '198.19.7.8' })).status).toBe(303);
  });

  it('rotates the token at sign-in and ends the session the browser held before', async () => {
    const { email, password, cookie: first } = await signUpUser();
    const response = await postForm('/auth/sign-in', { email, password }, { cookie: first });
    const second = sessionCookieFrom(response)!;
    expect(second).toBeTruthy();
    expect(second).not.toBe(first);
    expect((await getPage('/onboarding/workspace', first)).status).toBe(303);
    expect((await getPage('/onboarding/workspace', second)).status).toBe(200);
  });
});

describe('sessions', () => {
  it('an expired session is refused and deleted', async () => {
    const { cookie } = await signUpUser();
    const hash = await sha256Hex(cookie);
    moveClockForTests(SESSION_TTL_MS + 1);
    const response = await getPage('/onboarding/workspace', cookie);
    expect(response.status).toBe(303);
    expect(response.headers.get('Location')).toBe('/auth/sign-in?return_to=%2Fonboarding%2Fworkspace');
    expect(
      await platformDb
        .prepare('SELECT COUNT(*) AS n FROM user_sessions WHERE token_hash = ?')
        .bind(hash)
        .first<{ n: number }>(),
    ).toEqual({ n: 0 });
  });

  it('slides: a session in its second half is extended and its cookie renewed', async () => {
    const { cookie } = await signUpUser();
    const hash = await sha256Hex(cookie);
    moveClockForTests(SESSION_TTL_MS - 86_400_000);
    const response = await getPage('/onboarding/workspace', cookie);
    expect(response.status).toBe(200);
    expect(sessionCookieFrom(response)).toBe(cookie);
    const row = await platformDb
      .prepare('SELECT expires_at FROM user_sessions WHERE token_hash = ?')
      .bind(hash)
      .first<{ expires_at: number }>();
    expect(row!.expires_at).toBeGreaterThan(clock.now() + 29 * 86_400_000);
  });

  it('sign-out revokes the session server-side: the old cookie no longer works', async () => {
    const { cookie } = await signUpUser();
    const response = await postForm('/auth/sign-out', {}, { cookie });
    expect(response.status).toBe(303);
    expect(sessionCookieFrom(response)).toBe('');
    expect(
      await platformDb
        .prepare('SELECT COUNT(*) AS n FROM user_sessions WHERE token_hash = ?')
        .bind(await sha256Hex(cookie))
        .first<{ n: number }>(),
    ).toEqual({ n: 0 });
    const reuse = await getPage('/onboarding/workspace', cookie);
    expect(reuse.status).toBe(303);
    expect(reuse.headers.get('Location')).toContain('/auth/sign-in');
  });
});

describe('sign-in throttling under concurrency', () => {
  const burst = (attempts: { email: string; password: string; ip: string }[]) =>
    Promise.all(
      attempts.map((attempt) =>
        postForm('/auth/sign-in', { email: attempt.email, password: attempt.password }, { ip: attempt.ip }),
      ),
    );

  it(
    `40 parallel wrong guesses at one account: exactly ${ACCOUNT_FAILURE_LIMIT} are checked, the rest get 429, and ` +
      `then even the right password waits`,
    async () => {
      const { email, password } = await signUpUser();
      // Every attempt from its own address, so only the account's limit is in play. Each takes its
      // slot before its password is checked, and a failure keeps it: the count is exact.
      const attempts = Array.from({ length: 40 }, (_, i) => ({
        email,
        password: `wrong guess ${i}`,
        ip: `198.51.100.${i + 1}`,
      }));
      const statuses = (await burst(attempts)).map((response) => response.status);
      expect(statuses.filter((status) => status === 401)).toHaveLength(ACCOUNT_FAILURE_LIMIT);
      expect(statuses.filter((status) => status === 429)).toHaveLength(40 - ACCOUNT_FAILURE_LIMIT);
      expect((await postForm('/auth/sign-in', { email, password }, { ip: '203.0.113.200' })).status).toBe(429);
    },
  );

  it(
    `40 parallel wrong guesses from one client across many accounts: exactly ${CLIENT_FAILURE_LIMIT} are checked; ` +
      `the client is then refused even a right password, and the account is not locked`,
    async () => {
      const victim = await signUpUser();
      const ip = '203.0.114.9';
      const attempts = Array.from({ length: 40 }, () => ({ email: uniqueEmail('spray'), password: 'guess guess', ip }));
      const statuses = (await burst(attempts)).map((response) => response.status);
      expect(statuses.filter((status) => status === 401)).toHaveLength(CLIENT_FAILURE_LIMIT);
      expect(statuses.filter((status) => status === 429)).toHaveLength(40 - CLIENT_FAILURE_LIMIT);
      expect((await postForm('/auth/sign-in', { email: victim.email, password: victim.password }, { ip })).status).toBe(
        429,
      );
      // The victim, from elsewhere, is not locked out.
      expect(
        (await postForm('/auth/sign-in', { email: victim.email, password: victim.password }, { ip: '203.0.114.10' }))
          .status,
      ).toBe(303);
    },
  );

  it('a successful sign-in gives its slot back: a client that signs in often is never throttled', async () => {
    const { email, password } = await signUpUser();
    for (let i = 0; i < CLIENT_FAILURE_LIMIT + 2; i++) {
      expect((await postForm('/auth/sign-in', { email, password }, { ip: '203.0.115.1' })).status).toBe(303);
    }
  });
});

/** Values that could send a browser to another site; each must land on the safe default. */
const HOSTILE_RETURN_TO = [
  '//evil.com',
  '///evil.com',
  '/\\evil.com',
  '\\/evil.com',
  '/\\/evil.com',
  '\\\\evil.com',
  'https://evil.com',
  'http:/evil.com',
  'https:evil.com',
  'javascript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  ' //evil.com',
  '/\t/evil.com',
  '/\n/evil.com',
  '/\r\n//evil.com',
  '/.//evil.com',
  '/..//evil.com',
  '/a/..//evil.com',
  '/integrations/../..//evil.com',
  '/%2e//evil.com',
  '/%2E%2E//evil.com',
  '/.%2e//evil.com',
  '/%2fevil.com',
  '/%5cevil.com',
  '/%5C%5Cevil.com',
  '/%252e%252e//evil.com',
  '/%09/evil.com',
  '/.\\evil.com',
  '/auth/sign-out',
  '/auth/../\\evil.com',
];

describe('return_to: hostile values land on the safe default', () => {
  it(`the table has at least 20 values`, () => {
    expect(HOSTILE_RETURN_TO.length).toBeGreaterThanOrEqual(20);
  });

  for (const value of HOSTILE_RETURN_TO) {
    it(`${JSON.stringify(value)}: sign-in and sign-up, GET and POST`, async () => {
      expect(safeReturnTo(value, '/safe')).toBe('/safe');
      // POST /auth/sign-in
      const user = await signUpUser();
      const signIn = await postForm('/auth/sign-in', { email: user.email, password: user.password, return_to: value });
      expect(signIn.status).toBe(303);
      expect(signIn.headers.get('Location')).toBe('/onboarding/workspace');
      // POST /auth/sign-up
      const signUp = await postForm('/auth/sign-up', {
        email: uniqueEmail(),
        password: 'correct horse battery staple',
        role: 'business',
        return_to: value,
      });
      expect(signUp.status).toBe(303);
      expect(signUp.headers.get('Location')).toBe('/onboarding/workspace');
      // GET, signed in: both pages send the user on, to the safe default.
      for (const page of ['/auth/sign-in', '/auth/sign-up']) {
        const response = await getPage(`${page}?return_to=${encodeURIComponent(value)}`, user.cookie);
        expect(response.status).toBe(303);
        expect(response.headers.get('Location')).toBe('/onboarding/workspace');
      }
      // GET, signed out: the form carries no return_to at all.
      for (const page of ['/auth/sign-in', '/auth/sign-up']) {
        const html = await (await getPage(`${page}?return_to=${encodeURIComponent(value)}`)).text();
        expect(html).not.toContain('name="return_to"');
      }
    });
  }

  it('a same-origin path is honoured, normalised', async () => {
    const { email, password } = await signUpUser();
    const response = await postForm('/auth/sign-in', { email, password, return_to: '/integrations/team?ws=ws_x#top' });
    expect(response.headers.get('Location')).toBe('/integrations/team?ws=ws_x#top');
    expect(safeReturnTo('/integrations/./team/../team', '/safe')).toBe('/integrations/team');
  });
});

describe('cross-site request forgery', () => {
  it('a cross-origin form POST is refused, on auth and console routes', async () => {
    const { email, password } = await signUpUser();
    const signIn = await postForm(
      '/auth/sign-in',
      { email, password },
      { origin: 'https://evil.example', secFetchSite: 'cross-site' },
    );
    expect(signIn.status).toBe(403);
    expect(sessionCookieFrom(signIn)).toBeUndefined();

    const owner = await signUpOwner();
    const forged = await postForm(
      `/integrations/channels?ws=${owner.workspaceId}`,
      { name: 'Forged', domain: 'consultation' },
      { cookie: owner.cookie, origin: 'https://evil.example', secFetchSite: 'cross-site' },
    );
    expect(forged.status).toBe(403);
    const count = await platformDb
      .prepare('SELECT COUNT(*) AS n FROM channels WHERE workspace_id = ?')
      .bind(owner.workspaceId)
      .first<{ n: number }>();
    expect(count?.n).toBe(0);
    // The same form from our own origin works.
    expect(
      (
        await postForm(
          `/integrations/channels?ws=${owner.workspaceId}`,
          { name: 'Real', domain: 'consultation' },
          { cookie: owner.cookie },
        )
      ).status,
    ).toBe(303);
  });

  it('a cookie-authenticated API change from another origin is refused', async () => {
    const owner = await signUpOwner();
    const response = await workerFetch('http://gateway.test/api/integrations/channels', {
      method: 'POST',
      headers: {
        Cookie: `egw_session=${owner.cookie}`,
        'X-Workspace-Id': owner.workspaceId,
        'Content-Type': 'application/json',
        Origin: 'https://evil.example',
      },
      body: JSON.stringify({ name: 'Forged', domain: 'consultation' }),
    });
    expect(response.status).toBe(403);
    expect((await response.json<{ code: string }>()).code).toBe('csrf_rejected');
  });
});

describe('page security', () => {
  it('console and auth pages have a strict CSP, refuse framing, and are not cached', async () => {
    const owner = await signUpOwner();
    for (const [path, cookie] of [
      ['/auth/sign-in', undefined],
      [`/integrations?ws=${owner.workspaceId}`, owner.cookie],
    ] as const) {
      const response = await getPage(path, cookie);
      expect(response.status).toBe(200);
      expectStrictPageHeaders(response);
      expect(response.headers.get('Cache-Control')).toBe('no-store');
      expect(await response.text()).not.toMatch(/<script>|style="/);
    }
  });

  it('a console page without a session redirects to sign-in with a way back', async () => {
    const response = await getPage('/integrations?ws=ws_123');
    expect(response.status).toBe(303);
    expect(response.headers.get('Location')).toBe('/auth/sign-in?return_to=%2Fintegrations%3Fws%3Dws_123');
  });
});

describe('a refused cross-site form', () => {
  it('gets the error page with the code, not a bare "Forbidden"', async () => {
    const response = await postForm(
      '/auth/sign-in',
      { email: 'a@example.com', password: 'x' },
      { origin: 'https://evil.example', secFetchSite: 'cross-site' },
    );
    expect(response.status).toBe(403);
    expect(response.headers.get('Content-Type')).toContain('text/html');
    expect(await response.text()).toContain('Cross-site request refused');
  });
});
