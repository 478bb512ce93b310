/** Helpers for console and auth tests: form posts from our own origin, and session cookies. */
import { expect } from 'vitest';
import { ORIGIN } from './helpers';
import { workerFetch } from './self';
import { clock } from '../../worker/lib/clock';

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

export async function signUpUser(role: 'business' | 'provider' = 'business', extra: Record<string, string> = {}) {
  const email = uniqueEmail(role);
  const password = 'correct horse battery staple';
  const response = await postForm('/auth/sign-up', { email, password, role, ...extra });
  expect(response.status, await response.clone().text()).toBe(303);
  const cookie = sessionCookieFrom(response);
  expect(cookie).toBeTruthy();
  return { email, password, cookie: cookie!, location: response.headers.get('Location') };
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
