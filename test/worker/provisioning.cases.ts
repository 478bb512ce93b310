import { describe, expect, it } from 'vitest';
import { getPage, postForm, signUpOwner, signUpPlatformAdmin } from './console-helpers';
import { call } from './helpers';
import { mailTo } from './mail-helpers';
import { platformDb } from './platform-db';

const platformAdmin = () => signUpPlatformAdmin();

const requestsOf = (workspaceId: string) =>
  platformDb
    .prepare('SELECT id, status, result_id, sealed_secret FROM provisioning_requests WHERE workspace_id = ?')
    .bind(workspaceId)
    .all<{ id: string; status: string; result_id: string | null; sealed_secret: string | null }>()
    .then((result) => result.results);

describe('provisioning requests', () => {
  it('from request to approved key: emailed both ways, the key shown once, and it works', async () => {
    const admin = await platformAdmin();
    const owner = await signUpOwner();
    const page = `/integrations/requests?ws=${owner.workspaceId}`;
    // A bad request shows the form again, with reasons.
    const bad = await postForm(page, { kind: 'api_key', name: '', purpose: '' }, { cookie: owner.cookie });
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain('Say what it is for.');

    const asked = await postForm(
      page,
      { kind: 'api_key', name: 'CRM sync', scopes: 'execute\nleads:write', purpose: 'Our CRM sends demands.' },
      { cookie: owner.cookie },
    );
    expect(asked.status).toBe(303);
    expect(asked.headers.get('Location')).toContain('notice=requested');
    await mailTo(admin.email, /^A workspace asks for an API key$/);
    const [request] = await requestsOf(owner.workspaceId);
    expect(request).toMatchObject({ status: 'pending', result_id: null });
    const integrations = await (await getPage(`/integrations?ws=${owner.workspaceId}`, owner.cookie)).text();
    expect(integrations).toContain('CRM sync · execute, leads:write');

    // The admin's queue shows it; the owner cannot reach it.
    expect((await getPage('/admin/requests', owner.cookie)).status).toBe(403);
    const queue = await (await getPage('/admin/requests', admin.cookie)).text();
    expect(queue).toContain('Our CRM sends demands.');
    const approved = await postForm(
      `/admin/requests/${request!.id}`,
      { decision: 'approve', note: 'Welcome aboard.' },
      { cookie: admin.cookie },
    );
    expect(approved.status).toBe(303);
    // Twice is refused: decided once.
    const again = await postForm(`/admin/requests/${request!.id}`, { decision: 'decline' }, { cookie: admin.cookie });
    expect(again.status).toBe(409);
    await mailTo(owner.email, /^Your request for an API key was approved$/);
    const [decided] = await requestsOf(owner.workspaceId);
    expect(decided).toMatchObject({ status: 'approved', result_id: expect.stringMatching(/^key_/) });
    expect(decided!.sealed_secret).toMatch(/^v1:/);

    // Shown once: the page carries the token, which works; a second showing is refused.
    const shown = await postForm(
      `/integrations/requests/${request!.id}/secret?ws=${owner.workspaceId}`,
      {},
      {
        cookie: owner.cookie,
      },
    );
    expect(shown.status).toBe(200);
    expect(shown.headers.get('Cache-Control')).toBe('no-store');
    const token = (await shown.text()).match(/egk_[1-9A-HJ-NP-Za-km-z]+/)?.[0];
    expect(token).toBeTruthy();
    const executed = await call('/api/execute', {
      token: token!,
      body: { domain: 'consultation', execution_mode: 'sync', required_scopes: [], text: 'From the new key.' },
    });
    expect(executed.status).toBe(200);
    const twice = await postForm(
      `/integrations/requests/${request!.id}/secret?ws=${owner.workspaceId}`,
      {},
      {
        cookie: owner.cookie,
      },
    );
    expect(twice.status).toBe(409);
    expect((await requestsOf(owner.workspaceId))[0]!.sealed_secret).toBeNull();
    // Audited at each step.
    const actions = await platformDb
      .prepare("SELECT action FROM audit_log WHERE target_id = ? AND action LIKE 'provisioning.%' ORDER BY id")
      .bind(request!.id)
      .all<{ action: string }>();
    expect(actions.results.map((row) => row.action)).toEqual([
      'provisioning.requested',
      'provisioning.approved',
      'provisioning.secret_shown',
    ]);
  });

  it('an endpoint request: declined with a note; an approval the egress guard refuses waits again', async () => {
    const admin = await platformAdmin();
    const owner = await signUpOwner();
    const page = `/integrations/requests?ws=${owner.workspaceId}`;
    const ask = (url: string) =>
      postForm(
        page,
        { kind: 'webhook_endpoint', url, event_types: 'lead.created', purpose: 'Our ticketing.' },
        { cookie: owner.cookie },
      );
    expect((await ask('https://hooks.example.com/in')).status).toBe(303);
    expect((await ask('http://127.0.0.1:9/in')).status).toBe(303);
    const [first, second] = (await requestsOf(owner.workspaceId)).sort((a, b) => a.id.localeCompare(b.id));
    const declined = await postForm(
      `/admin/requests/${first!.id}`,
      { decision: 'decline', note: 'Use HTTPS on your own domain.' },
      { cookie: admin.cookie },
    );
    expect(declined.status).toBe(303);
    await mailTo(owner.email, /^Your request for a webhook endpoint was declined$/);
    const refused = await postForm(`/admin/requests/${second!.id}`, { decision: 'approve' }, { cookie: admin.cookie });
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain('The URL cannot be used.');
    const after = (await requestsOf(owner.workspaceId)).sort((a, b) => a.id.localeCompare(b.id));
    expect(after.map((row) => row.status)).toEqual(['declined', 'pending']);
  });

  it('another workspace’s request is not found; waiting requests are bounded (members: access.cases.ts)', async () => {
    const owner = await signUpOwner();
    const other = await signUpOwner();
    const form = { kind: 'api_key', name: 'K', scopes: 'execute', purpose: 'Testing.' };
    for (let index = 0; index < 10; index++)
      expect(
        (await postForm(`/integrations/requests?ws=${owner.workspaceId}`, form, { cookie: owner.cookie })).status,
      ).toBe(303);
    const eleventh = await postForm(`/integrations/requests?ws=${owner.workspaceId}`, form, { cookie: owner.cookie });
    expect(eleventh.status).toBe(429);
    const [mine] = await requestsOf(owner.workspaceId);
    const theirs = await postForm(
      `/integrations/requests/${mine!.id}/secret?ws=${other.workspaceId}`,
      {},
      {
        cookie: other.cookie,
      },
    );
    expect(theirs.status).toBe(404);
  });
});
