/**
 * One provider gate (issue 17, item 8): every state-gated provider API route and its console
 * twin answer alike for each provider state and kind, since both ask the one policy table.
 * A probe found the console's secret rotation open to a provider the API refused.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { getPage, postForm } from './console-helpers';
import { completeProfile, review, sessionCall, signUpProvider, type TestProvider } from './provider-helpers';

type Kind = 'expert' | 'robot';
type State =
  | 'registered'
  | 'profile_incomplete'
  | 'pending_review'
  | 'active'
  | 'suspended'
  | 'rejected_after_approval';

const profileOf = (kind: Kind) =>
  kind === 'robot'
    ? { ...completeProfile({ kind: 'robot' }), endpoint_url: 'https://robot-gate.example.com/run' }
    : completeProfile({ kind: 'expert' });

/** A provider of a kind, brought to a state through the real transitions. */
async function providerIn(kind: Kind, state: State): Promise<TestProvider> {
  const provider = await signUpProvider();
  const save = (body: Record<string, unknown>) => sessionCall(provider.cookie, '/api/provider/profile', { body });
  if (state === 'registered') return provider;
  if (state === 'profile_incomplete') {
    expect((await save({ kind, display_name: 'Half done' })).status).toBe(200);
    return provider;
  }
  expect((await save({ ...profileOf(kind), submit: true })).status).toBe(200);
  if (state === 'pending_review') return provider;
  expect((await review(provider.providerId, 'approve')).status).toBe(200);
  if (state === 'active') return provider;
  expect((await review(provider.providerId, 'suspend', 'Complaints.')).status).toBe(200);
  if (state === 'suspended') return provider;
  // Approved once (so a robot holds a signing secret), then back to profile_incomplete.
  expect((await save({ submit: true })).status).toBe(200);
  expect((await review(provider.providerId, 'reject', 'Fix the endpoint.')).status).toBe(200);
  return provider;
}

const LEAD = '/lead_00000000000000000000000000';
interface Twin {
  api: { method: 'GET' | 'POST'; path: string; body?: Record<string, unknown> };
  page: { method: 'GET' | 'POST'; path: string; form?: Record<string, string> };
}
const TWINS: Twin[] = [
  { api: { method: 'GET', path: '/api/provider/profile' }, page: { method: 'GET', path: '/provider/onboarding' } },
  {
    api: { method: 'GET', path: '/api/provider/workbench/leads' },
    page: { method: 'GET', path: '/provider/workbench' },
  },
  {
    api: { method: 'GET', path: `/api/provider/workbench/leads${LEAD}` },
    page: { method: 'GET', path: `/provider/workbench/leads${LEAD}` },
  },
  {
    api: { method: 'POST', path: `/api/provider/workbench/leads${LEAD}/claim` },
    page: { method: 'POST', path: `/provider/workbench/leads${LEAD}/claim` },
  },
  {
    api: { method: 'POST', path: `/api/provider/workbench/leads${LEAD}/status`, body: { status: 'contacted' } },
    page: { method: 'POST', path: `/provider/workbench/leads${LEAD}/status`, form: { status: 'contacted' } },
  },
  { api: { method: 'GET', path: '/api/provider/health' }, page: { method: 'GET', path: '/provider/operations' } },
  {
    api: { method: 'POST', path: '/api/provider/signing-secret/rotate' },
    page: { method: 'POST', path: '/provider/operations/secret/rotate' },
  },
];

const STATES: State[] = [
  'registered',
  'profile_incomplete',
  'pending_review',
  'active',
  'suspended',
  'rejected_after_approval',
];
const providers = new Map<string, TestProvider>();
beforeAll(async () => {
  for (const kind of ['expert', 'robot'] as const)
    for (const state of STATES) providers.set(`${kind} ${state}`, await providerIn(kind, state));
}, 60_000);

describe('the console twin of every state-gated provider API route', () => {
  for (const twin of TWINS) {
    it(
      `${twin.page.method} ${twin.page.path.replace(LEAD, '/:leadId')} refuses exactly whom ${twin.api.method} ` +
        `${twin.api.path.replace(LEAD, '/:leadId')} refuses`,
      async () => {
        const outcomes: string[] = [];
        for (const [who, provider] of providers) {
          const api = await sessionCall(provider.cookie, twin.api.path, {
            method: twin.api.method,
            ...(twin.api.body ? { body: twin.api.body } : {}),
          });
          const page =
            twin.page.method === 'GET'
              ? await getPage(twin.page.path, provider.cookie)
              : await postForm(twin.page.path, twin.page.form ?? {}, { cookie: provider.cookie });
          const pageText = await page.text();
          outcomes.push(
            `${who}: api ${api.status === 403 ? 'refused' : 'allowed'}, page ` +
              `${page.status === 403 ? 'refused' : 'allowed'}`,
          );
          expect(page.status === 403, `${who}: API ${api.status}, page ${page.status}`).toBe(api.status === 403);
          // A refused page never shows a secret.
          if (page.status === 403) expect(pageText).not.toContain('whsec_');
        }
        // Each route refuses someone and admits someone, or it proves nothing about the gate.
        if (twin.api.path !== '/api/provider/profile') {
          expect(outcomes.some((line) => line.includes('api refused'))).toBe(true);
          expect(outcomes.some((line) => line.includes('api allowed'))).toBe(true);
        }
      },
    );
  }
});

describe('each role’s home', () => {
  it('sign-in and the brand link (/console) lead each provider to their home', async () => {
    const cases: Array<[Kind, State, string]> = [
      ['expert', 'active', '/provider/workbench'],
      ['robot', 'active', '/provider/operations'],
      ['expert', 'pending_review', '/provider/onboarding'],
    ];
    for (const [kind, state, home] of cases) {
      const provider = await providerIn(kind, state);
      const signIn = await postForm('/auth/sign-in', {
        email: provider.email,
        password: 'correct horse battery staple',
      });
      expect(signIn.headers.get('Location'), `${kind} ${state}`).toBe(home);
      const brand = await getPage('/console', provider.cookie);
      expect(brand.status).toBe(303);
      expect(brand.headers.get('Location'), `${kind} ${state}`).toBe(home);
    }
    const anonymous = await getPage('/console');
    expect(anonymous.headers.get('Location')).toBe('/auth/sign-in');
  });
});
