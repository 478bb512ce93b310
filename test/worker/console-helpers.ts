/** Helpers for console and auth tests: form posts from our own origin, and session cookies. */
import { expect } from 'vitest';
import { decodeBase32IgnorePadding } from '@oslojs/encoding';
import { generateHOTP } from '@oslojs/otp';
import { ADMIN_TOKEN, call, ORIGIN } from './helpers';
import { workerFetch } from './self';
import { env } from 'cloudflare:test';
import { clock } from '../../worker/lib/clock';
import { accountLinkPath } from '../../worker/lib/account-links';
import { platformDb } from './platform-db';

export const SESSION_COOKIE = 'egw_session';
let counter = 0;

/** A unique address per test run, so tests never collide on the shared database. */
export function uniqueEmail(prefix = 'user'): string {
  counter += 1;
  return `${prefix}.${clock.now().toString(36)}.${counter}@example.com`;
}

export interface FormOptions {
  cookie?: string;
  origin?: string | null;
  secFetchSite?: string;
  ip?: string;
}

export function postForm(path: string, fields: Record<string, string>, options: FormOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded' };
  if (options.origin !== null) headers.Origin = options.origin ?? ORIGIN;
  if (options.secFetchSite) headers['Sec-Fetch-Site'] = options.secFetchSite;
  if (options.cookie) headers.Cookie = `${SESSION_COOKIE}=${options.cookie}`;
  if (options.ip) headers['CF-Connecting-IP'] = options.ip;
  return workerFetch(`${ORIGIN}${path}`, {
    method: 'POST',
    headers,
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
}

export function getPage(path: string, cookie?: string): Promise<Response> {
  return workerFetch(`${ORIGIN}${path}`, {
    headers: cookie ? { Cookie: `${SESSION_COOKIE}=${cookie}` } : {},
    redirect: 'manual',
  });
}

/** Every Set-Cookie header (workerd has getSetCookie; these workers-types do not declare it). */
export function setCookies(response: Response): string[] {
  return (response.headers as Headers & { getSetCookie(): string[] }).getSetCookie();
}

/** The session token a response sets, or undefined; "" when it clears the cookie. */
export function sessionCookieFrom(response: Response): string | undefined {
  for (const cookie of setCookies(response)) {
    const match = new RegExp(`^${SESSION_COOKIE}=([^;]*)`).exec(cookie);
    if (match) return match[1];
  }
  return undefined;
}

/**
 * Signs a new account up, and confirms its address (unless `verified: false`) by following its
 * link as the email carries it: the path made from the stored token, as the email composer makes it.
 */
export async function signUpUser(
  role: 'business' | 'provider' = 'business',
  extra: Record<string, string> = {},
  options: { verified?: boolean } = {},
) {
  const email = uniqueEmail(role);
  const password = 'correct horse battery staple';
  const response = await postForm('/auth/sign-up', { email, password, role, ...extra });
  expect(response.status, await response.clone().text()).toBe(303);
  const cookie = sessionCookieFrom(response);
  expect(cookie).toBeTruthy();
  if (options.verified !== false) expect((await postForm(await verificationPathFor(email), {})).status).toBe(303);
  return { email, password, cookie: cookie!, location: response.headers.get('Location') };
}

/** The path of the newest verification link sent to an address (what its email links to). */
export async function verificationPathFor(email: string): Promise<string> {
  const token = await platformDb
    .prepare(
      `SELECT id FROM account_tokens WHERE email = ? AND purpose = 'email_verification'
     ORDER BY created_at DESC, id DESC`,
    )
    .bind(email)
    .first<{ id: string }>();
  expect(token).toBeTruthy();
  return accountLinkPath(env.SECRETS_KEY, 'email_verification', token!.id);
}

/** A signed-in business user who owns a fresh organisation and workspace. */
export async function signUpOwner() {
  const user = await signUpUser('business');
  const response = await postForm(
    '/onboarding/workspace',
    { organization_name: 'Owner Org', workspace_name: 'Production' },
    { cookie: user.cookie },
  );
  expect(response.status).toBe(303);
  const workspaceId = new URL(response.headers.get('Location')!, ORIGIN).searchParams.get('ws')!;
  expect(workspaceId).toMatch(/^ws_/);
  return { ...user, workspaceId };
}

/** The code an authenticator app shows for `key` at a time step (now, by the test clock, by default). */
export const totpCodeAt = (key: string, step = Math.floor(clock.now() / 30_000)) =>
  generateHOTP(decodeBase32IgnorePadding(key), BigInt(step), 6);

/**
 * Sets up an authenticator app for a signed-in account through its security page, as a browser
 * does (each post ends on the page by a redirect): the key and the recovery codes shown once. A
 * session signed in more than 5 minutes ago (by the test clock) gives its `password` again.
 */
export async function enrolAuthenticator(cookie: string, password?: string): Promise<{ key: string; codes: string[] }> {
  const started = await postForm('/account/security/totp', password ? { password } : {}, { cookie });
  expect(started.status, await started.clone().text()).toBe(303);
  const key = /<code id="totp-key">([A-Z2-7]+)<\/code>/.exec(
    await (await getPage('/account/security', cookie)).text(),
  )![1]!;
  const confirmed = await postForm('/account/security/totp/confirm', { code: totpCodeAt(key) }, { cookie });
  expect(confirmed.status, await confirmed.clone().text()).toBe(303);
  const shown = await workerFetch(`${ORIGIN}/account/security`, {
    headers: { Cookie: `${SESSION_COOKIE}=${cookie}; egw_codes=${cookieValue(confirmed, 'egw_codes')}` },
    redirect: 'manual',
  });
  const codes = [...(await shown.text()).matchAll(/<code>([0-9a-z]{5}-[0-9a-z]{5})<\/code>/g)].map((m) => m[1]!);
  return { key, codes };
}

/** The value a response sets for a cookie, or undefined. */
export function cookieValue(response: Response, name: string): string | undefined {
  for (const cookie of setCookies(response)) {
    const match = new RegExp(`^${name}=([^;]*)`).exec(cookie);
    if (match) return match[1];
  }
  return undefined;
}

/**
 * A platform administrator, made through the admin API, with the second factor that the admin
 * pages ask of every administrator (`enrolled: false` leaves it out).
 */
export async function signUpPlatformAdmin(options: { enrolled?: boolean } = {}) {
  const user = await signUpUser('business');
  const row = await platformDb.prepare('SELECT id FROM users WHERE email = ?').bind(user.email).first<{ id: string }>();
  const granted = await call(`/api/admin/users/${row!.id}`, {
    method: 'PATCH',
    token: ADMIN_TOKEN,
    body: { platform_admin: true },
  });
  expect(granted.status).toBe(200);
  if (options.enrolled !== false) await enrolAuthenticator(user.cookie);
  return { ...user, userId: row!.id };
}
