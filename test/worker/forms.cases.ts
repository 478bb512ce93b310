/**
 * Every form route of the console and the auth entry, found from the app's own route table so
 * that a new form route is covered the day it is added: malformed input gets a 4xx, never a 500.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { app } from '../../worker/index';
import { ORIGIN } from './helpers';
import { postForm, SESSION_COOKIE, signUpOwner } from './console-helpers';
import { workerFetch } from './self';

const PAGE_PREFIXES = ['/auth', '/integrations', '/onboarding', '/provider', '/invitations', '/admin'];

const formRoutes = [
  ...new Set(
    app.routes
      .filter(
        (route) =>
          route.method === 'POST' &&
          PAGE_PREFIXES.some((prefix) => route.path === prefix || route.path.startsWith(`${prefix}/`)),
      )
      .map((route) => route.path),
  ),
];

/** Every field name the forms use, each with a value no form accepts. */
const GARBAGE: Record<string, string> = {
  email: 'not an email',
  password: '',
  role: 'superuser',
  status: 'bogus',
  name: '',
  domain: 'no-such-domain',
  organization_name: '',
  workspace_name: '',
  allowed_origins: 'not-an-origin javascript:alert(1)',
  first_party_origins: 'ftp://x',
  'brand.name': '',
  'brand.logo_url': 'javascript:alert(1)',
  'colors.primary': 'red',
  'position.side': 'middle',
  'position.offset_x': 'NaN',
  'lead_capture.email': 'sometimes',
  'provider_entry.mode': 'maybe',
  'copy.title': '',
  'unknown.section': 'x',
  return_to: '//evil.com',
  kind: 'wizard',
  note: 'x'.repeat(5000),
  submit: 'perhaps',
};

describe('malformed input to every form route', () => {
  let cookie: string;
  let channelKey: string;
  let workspaceId: string;

  beforeAll(async () => {
    const owner = await signUpOwner();
    cookie = owner.cookie;
    workspaceId = owner.workspaceId;
    const created = await postForm(
      `/integrations/channels?ws=${workspaceId}`,
      { name: 'Site', domain: 'consultation' },
      { cookie },
    );
    channelKey = new URL(created.headers.get('Location')!, ORIGIN).pathname.split('/').pop()!;
  });

  const pathFor = (route: string) =>
    route
      .replace(':channelKey', channelKey)
      .replace(/:[A-Za-z]+/g, (param) => `${param.slice(1, 4)}_doesnotexist0000000000`)
      .concat(`?ws=${workspaceId}`);

  const post = (path: string, body: BodyInit, contentType: string) =>
    workerFetch(`${ORIGIN}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': contentType, Origin: ORIGIN, Cookie: `${SESSION_COOKIE}=${cookie}` },
      body,
      redirect: 'manual',
    });

  it('finds the form routes', () => {
    expect(formRoutes).toEqual(
      expect.arrayContaining([
        '/auth/sign-in',
        '/auth/sign-up',
        '/integrations/channels/:channelKey/status',
        '/integrations/team/invite',
      ]),
    );
  });

  for (const route of formRoutes) {
    it(`${route}: a JSON body is 415, garbage fields and a broken multipart body are 4xx, never 500`, async () => {
      const json = await post(
        pathFor(route),
        JSON.stringify({ status: 'disabled', role: 'owner' }),
        'application/json',
      );
      expect(json.status, await json.clone().text()).toBe(415);
      expect(json.headers.get('Content-Type')).toContain('text/html');

      const garbage = await post(
        pathFor(route),
        new URLSearchParams(GARBAGE).toString(),
        'application/x-www-form-urlencoded',
      );
      expect(garbage.status, `${route}: ${(await garbage.clone().text()).slice(0, 300)}`).toBeLessThan(500);

      const broken = await post(
        pathFor(route),
        '--nope\r\nContent-Disposition: form-data; name="x"\r\n\r\n',
        'multipart/form-data; boundary=something-else',
      );
      expect(broken.status, route).toBeLessThan(500);
    });
  }
});
