import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, call, createTenant, expectProblem, json } from './helpers';
import { signUpUser } from './console-helpers';
import {
  completeProfile,
  createActiveExpert,
  review,
  sessionCall,
  signUpProvider,
  type TestProvider,
} from './provider-helpers';
import { clock } from '../../worker/lib/clock';
import { platformDb } from './platform-db';

type Status = 'registered' | 'profile_incomplete' | 'pending_review' | 'active' | 'suspended';

const saveProfile = (provider: TestProvider, body: Record<string, unknown>) =>
  sessionCall(provider.cookie, '/api/provider/profile', { body });
const statusOf = async (providerId: string) =>
  (await platformDb.prepare('SELECT status FROM providers WHERE id = ?').bind(providerId).first<{ status: Status }>())!
    .status;

/** A provider brought to a state through the real transitions. */
async function providerIn(status: Status): Promise<TestProvider> {
  const provider = await signUpProvider();
  if (status === 'registered') return provider;
  if (status === 'profile_incomplete') {
    expect((await saveProfile(provider, { display_name: 'Half done' })).status).toBe(200);
    return provider;
  }
  expect((await saveProfile(provider, { ...completeProfile(), submit: true })).status).toBe(200);
  if (status === 'pending_review') return provider;
  expect((await review(provider.providerId, 'approve')).status).toBe(200);
  if (status === 'active') return provider;
  expect((await review(provider.providerId, 'suspend', 'Quality complaints.')).status).toBe(200);
  return provider;
}

describe('the provider profile API', () => {
  it('answers the profile with missing_fields, and the history of its states', async () => {
    const provider = await signUpProvider();
    const response = await sessionCall(provider.cookie, '/api/provider/profile');
    expect(response.status).toBe(200);
    const profile = await json(response);
    expect(profile).toMatchObject({
      provider_id: provider.providerId,
      status: 'registered',
      kind: null,
      review_note: null,
      history: [],
    });
    expect(profile.missing_fields).toEqual([
      'kind',
      'display_name',
      'headline',
      'accepted_scope.domains',
      'languages',
      'regions',
    ]);
    const agent = await json(await saveProfile(provider, { kind: 'agent' }));
    expect(agent.missing_fields).toContain('agent_card_url');
    expect(agent.status).toBe('profile_incomplete');
    expect(agent.history).toEqual([
      expect.objectContaining({ from: 'registered', to: 'profile_incomplete', actor: 'provider', note: null }),
    ]);
  });

  it('a business account is refused with 403 provider_required', async () => {
    const owner = await signUpUser('business');
    await expectProblem(await sessionCall(owner.cookie, '/api/provider/profile'), 403, 'provider_required');
  });

  it('submitting an incomplete profile is 422 profile_incomplete, naming each missing field', async () => {
    const provider = await signUpProvider();
    const problem = await expectProblem(
      await saveProfile(provider, { kind: 'robot', display_name: 'Bot', submit: true }),
      422,
      'profile_incomplete',
    );
    expect(problem.errors.map((error: { pointer: string }) => error.pointer)).toEqual([
      '/headline',
      '/accepted_scope/domains',
      '/languages',
      '/regions',
      '/endpoint_url',
    ]);
    expect(await statusOf(provider.providerId)).toBe('registered');
  });

  it('validation gives one clear error per field', async () => {
    const provider = await signUpProvider();
    const problem = await expectProblem(
      await saveProfile(provider, {
        kind: 'wizard',
        display_name: '',
        accepted_scope: { domains: ['Not A Slug'], topics: ['!'] },
        languages: ['english'],
        regions: ['Europe'],
        priority: 101,
        unknown: 1,
      }),
      422,
      'validation_failed',
    );
    const pointers = problem.errors.map((error: { pointer: string }) => error.pointer).sort();
    expect(pointers).toEqual([
      '/accepted_scope/domains/0',
      '/accepted_scope/topics/0',
      '/display_name',
      '/kind',
      '/languages/0',
      '/priority',
      '/regions/0',
      '/unknown',
    ]);
    for (const error of problem.errors) expect(error.detail.length).toBeGreaterThan(5);
  });

  it('a domain outside the catalog is named by its index', async () => {
    const provider = await signUpProvider();
    const problem = await expectProblem(
      await saveProfile(provider, { accepted_scope: { domains: ['consultation', 'astrology'], topics: [] } }),
      422,
      'validation_failed',
    );
    expect(problem.errors).toEqual([
      { pointer: '/accepted_scope/domains/1', detail: '"astrology" is not in the domain catalog.' },
    ]);
  });

  it('normalises topics (lower case, unique) and keeps domains in provider_domains for routing', async () => {
    const provider = await signUpProvider();
    const saved = await json(
      await saveProfile(provider, {
        accepted_scope: { domains: ['consultation'], topics: ['Payroll', 'payroll', 'VAT returns'] },
      }),
    );
    expect(saved.accepted_scope).toEqual({ domains: ['consultation'], topics: ['payroll', 'vat returns'] });
    const rows = await platformDb
      .prepare('SELECT domain FROM provider_domains WHERE provider_id = ?')
      .bind(provider.providerId)
      .all();
    expect(rows.results).toEqual([{ domain: 'consultation' }]);
  });
});

/** URLs a profile must refuse (the egress guard, docs/design/webhooks.md). */
const HOSTILE_ENDPOINTS = [
  'http://robot.example.com/execute',
  'https://127.0.0.1/execute',
  'https://2130706433/execute',
  'https://0x7f000001/execute',
  'https://0177.0.0.1/execute',
  'https://[::1]/execute',
  'https://[::ffff:127.0.0.1]/execute',
  'https://[fd00::1]/execute',
  'https://10.0.0.5/execute',
  'https://169.254.169.254/latest/meta-data',
  'https://localhost/execute',
  'https://LOCALHOST./execute',
  'https://robot.local/execute',
  'https://robot.internal/execute',
  'https://api.localhost/execute',
  'https://metadata/execute',
  'https://robot.example.com:8443/execute',
  'https://user:pass@robot.example.com/execute',
  'ftp://robot.example.com/execute',
  'javascript:alert(1)',
  'file:///etc/passwd',
];

describe('hostile endpoint URLs', () => {
  for (const url of HOSTILE_ENDPOINTS) {
    it(`refuses ${url}`, async () => {
      const provider = await signUpProvider();
      const response = await saveProfile(provider, { kind: 'robot', endpoint_url: url });
      const problem = await expectProblem(response, 422, 'validation_failed');
      expect(problem.errors[0].pointer).toBe('/endpoint_url');
      const stored = await platformDb
        .prepare('SELECT endpoint_url FROM providers WHERE id = ?')
        .bind(provider.providerId)
        .first();
      expect(stored).toEqual({ endpoint_url: null });
    });
  }

  it('accepts a public https URL', async () => {
    const provider = await signUpProvider();
    const saved = await json(
      await saveProfile(provider, { kind: 'robot', endpoint_url: 'https://robot.example.com/execute' }),
    );
    expect(saved.endpoint_url).toBe('https://robot.example.com/execute');
  });
});

describe('the provider state machine', () => {
  it('registered → profile_incomplete when a profile is saved incomplete', async () => {
    const provider = await providerIn('profile_incomplete');
    expect(await statusOf(provider.providerId)).toBe('profile_incomplete');
  });

  it('registered → pending_review when a complete profile is submitted', async () => {
    const provider = await signUpProvider();
    const saved = await json(await saveProfile(provider, { ...completeProfile(), submit: true }));
    expect(saved.status).toBe('pending_review');
    expect(saved.submitted_at).toBeTypeOf('string');
  });

  it('profile_incomplete → pending_review when completed and submitted', async () => {
    const provider = await providerIn('profile_incomplete');
    expect((await json(await saveProfile(provider, { ...completeProfile(), submit: true }))).status).toBe(
      'pending_review',
    );
  });

  it('pending_review → active when an admin approves; → profile_incomplete with a note when rejected', async () => {
    const approved = await providerIn('pending_review');
    expect(await json(await review(approved.providerId, 'approve'))).toEqual({
      provider_id: approved.providerId,
      status: 'active',
    });
    const rejected = await providerIn('pending_review');
    expect(await json(await review(rejected.providerId, 'reject', 'Add your languages.'))).toMatchObject({
      status: 'profile_incomplete',
      review_note: 'Add your languages.',
    });
    const profile = await json(await sessionCall(rejected.cookie, '/api/provider/profile'));
    expect(profile.review_note).toBe('Add your languages.');
    expect(profile.history.at(-1)).toMatchObject({
      from: 'pending_review',
      to: 'profile_incomplete',
      actor: 'admin',
      note: 'Add your languages.',
    });
  });

  it('active → suspended with a note; suspended → pending_review when resubmitted', async () => {
    const provider = await providerIn('suspended');
    expect(await statusOf(provider.providerId)).toBe('suspended');
    const profile = await json(await sessionCall(provider.cookie, '/api/provider/profile'));
    expect(profile.review_note).toBe('Quality complaints.');
    expect((await json(await saveProfile(provider, { submit: true }))).status).toBe('pending_review');
  });

  it(
    'active → pending_review when the provider changes kind, accepted scope or endpoint; other edits keep it ' +
      'active',
    async () => {
      const provider = await providerIn('active');
      expect(
        (await json(await saveProfile(provider, { headline: 'A better headline', languages: ['en', 'de'] }))).status,
      ).toBe('active');
      expect(
        (
          await json(
            await saveProfile(provider, { accepted_scope: { domains: ['consultation'], topics: ['payroll'] } }),
          )
        ).status,
      ).toBe('pending_review');
      const kind = await providerIn('active');
      expect(
        (await json(await saveProfile(kind, { kind: 'robot', endpoint_url: 'https://robot.example.com/run' }))).status,
      ).toBe('pending_review');
    },
  );

  it('every transition is kept with its actor, time and note', async () => {
    const provider = await providerIn('suspended');
    const history = await platformDb
      .prepare(
        'SELECT from_status, to_status, actor_kind, note, created_at FROM provider_transitions WHERE provider_id = ? ' +
          'ORDER BY id',
      )
      .bind(provider.providerId)
      .all<Record<string, unknown>>();
    expect(history.results.map((row) => [row.from_status, row.to_status, row.actor_kind, row.note])).toEqual([
      ['registered', 'pending_review', 'provider', null],
      ['pending_review', 'active', 'admin', null],
      ['active', 'suspended', 'admin', 'Quality complaints.'],
    ]);
    for (const row of history.results) expect(row.created_at).toBeTypeOf('number');
    const audit = await platformDb
      .prepare('SELECT action FROM audit_log WHERE target_id = ? ORDER BY id')
      .bind(provider.providerId)
      .all<{ action: string }>();
    expect(audit.results.map((row) => row.action)).toEqual([
      'provider.status_changed',
      'provider.approved',
      'provider.suspended',
    ]);
  });

  const forbidden: [Status, 'submit' | 'approve' | 'reject' | 'suspend'][] = [
    ['pending_review', 'submit'],
    ['active', 'submit'],
    ['registered', 'approve'],
    ['profile_incomplete', 'approve'],
    ['active', 'approve'],
    ['suspended', 'approve'],
    ['registered', 'reject'],
    ['profile_incomplete', 'reject'],
    ['active', 'reject'],
    ['suspended', 'reject'],
    ['registered', 'suspend'],
    ['profile_incomplete', 'suspend'],
    ['pending_review', 'suspend'],
    ['suspended', 'suspend'],
  ];
  for (const [status, event] of forbidden) {
    it(
      `${status} cannot be ${event === 'submit' ? 'submitted' : `${event}d`}: 409 invalid_transition, nothing ` +
        `changes`,
      async () => {
        const provider = await providerIn(status);
        const before = await platformDb
          .prepare('SELECT COUNT(*) AS n FROM provider_transitions WHERE provider_id = ?')
          .bind(provider.providerId)
          .first<{ n: number }>();
        const response =
          event === 'submit'
            ? await saveProfile(provider, { submit: true })
            : await review(provider.providerId, event, event === 'approve' ? undefined : 'A note.');
        const problem = await expectProblem(response, 409, 'invalid_transition');
        expect(problem.status).toBe(409);
        expect(await statusOf(provider.providerId)).toBe(status);
        expect(
          await platformDb
            .prepare('SELECT COUNT(*) AS n FROM provider_transitions WHERE provider_id = ?')
            .bind(provider.providerId)
            .first(),
        ).toEqual(before);
      },
    );
  }

  it('reject and suspend need a note', async () => {
    const provider = await providerIn('pending_review');
    await expectProblem(
      await call(`/api/admin/providers/${provider.providerId}/reject`, {
        method: 'POST',
        token: ADMIN_TOKEN,
        body: { note: '' },
      }),
      422,
      'validation_failed',
    );
    expect(await statusOf(provider.providerId)).toBe('pending_review');
  });

  it('two admins deciding at once: one decision wins, the other is 409', async () => {
    const provider = await providerIn('pending_review');
    const [approve, reject] = await Promise.all([
      review(provider.providerId, 'approve'),
      review(provider.providerId, 'reject', 'No.'),
    ]);
    expect([approve.status, reject.status].sort()).toEqual([200, 409]);
    const transitions = await platformDb
      .prepare(
        "SELECT COUNT(*) AS n FROM provider_transitions WHERE provider_id = ? AND from_status = 'pending_review'",
      )
      .bind(provider.providerId)
      .first();
    expect(transitions).toEqual({ n: 1 });
  });
});

describe('edits under review (issue 17)', () => {
  it(
    'an edit while pending_review is kept in the history and makes a new version; approving the version read before ' +
      'fails',
    async () => {
      const provider = await providerIn('pending_review');
      const read = (await json(await call(`/api/admin/providers/${provider.providerId}`, { token: ADMIN_TOKEN })))
        .version as number;
      const widened = await json(
        await saveProfile(provider, {
          accepted_scope: { domains: ['consultation'], topics: ['payroll'] },
          kind: 'expert',
        }),
      );
      expect(widened.status).toBe('pending_review');
      expect(widened.version).toBe(read + 1);
      expect(widened.history.at(-1)).toMatchObject({
        from: 'pending_review',
        to: 'pending_review',
        actor: 'provider',
        note: 'Edited during review: accepted scope.',
      });

      const stale = await expectProblem(
        await review(provider.providerId, 'approve', undefined, read),
        409,
        'profile_changed',
      );
      expect(stale.version).toBe(read + 1);
      expect(await statusOf(provider.providerId)).toBe('pending_review');
      await expectProblem(
        await call(`/api/admin/providers/${provider.providerId}/approve`, { token: ADMIN_TOKEN, body: {} }),
        422,
        'validation_failed',
      );

      expect(await json(await review(provider.providerId, 'approve', undefined, read + 1))).toEqual({
        provider_id: provider.providerId,
        status: 'active',
      });
      const audit = await platformDb
        .prepare('SELECT action, metadata FROM audit_log WHERE target_id = ? ORDER BY id')
        .bind(provider.providerId)
        .all<{ action: string; metadata: string }>();
      expect(audit.results.map((row) => row.action)).toEqual([
        'provider.status_changed',
        'provider.edited_under_review',
        'provider.approved',
      ]);
      expect(JSON.parse(audit.results[2]!.metadata)).toMatchObject({ version: read + 1 });
    },
  );

  it('a save that changes nothing makes no version and no history entry', async () => {
    const provider = await providerIn('pending_review');
    const before = await json(await sessionCall(provider.cookie, '/api/provider/profile'));
    const after = await json(await saveProfile(provider, { headline: before.headline }));
    expect(after.version).toBe(before.version);
    expect(after.history).toHaveLength(before.history.length);
  });

  it('the same approval sent ten times at once writes one history row, one audit row and one event', async () => {
    const provider = await providerIn('pending_review');
    const version = (await json(await call(`/api/admin/providers/${provider.providerId}`, { token: ADMIN_TOKEN })))
      .version as number;
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => review(provider.providerId, 'approve', undefined, version)),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    const count = async (sql: string) =>
      (await platformDb.prepare(sql).bind(provider.providerId).first<{ n: number }>())!.n;
    expect(
      await count("SELECT COUNT(*) AS n FROM provider_transitions WHERE provider_id = ? AND to_status = 'active'"),
    ).toBe(1);
    expect(
      await count("SELECT COUNT(*) AS n FROM audit_log WHERE target_id = ? AND action = 'provider.approved'"),
    ).toBe(1);
  });
});

describe('review is for administrators only', () => {
  it('an API key, a business session and a provider session are each refused', async () => {
    const provider = await providerIn('pending_review');
    const tenant = await createTenant({
      scopes: [
        'execute',
        'leads:write',
        'channels:write',
        'channels:read',
        'agents:invoke',
        'memory:read',
        'memory:write',
      ],
    });
    const owner = await signUpUser('business');
    const expert = await createActiveExpert();
    const path = `/api/admin/providers/${provider.providerId}/approve`;
    await expectProblem(await call(path, { token: tenant.token, body: { version: 1 } }), 403, 'admin_required');
    await expectProblem(await sessionCall(owner.cookie, path, { body: { version: 1 } }), 401, 'missing_credentials');
    await expectProblem(await sessionCall(expert.cookie, path, { body: { version: 1 } }), 401, 'missing_credentials');
    expect(await statusOf(provider.providerId)).toBe('pending_review');
  });

  it('admins list providers by state, with the agreed fields', async () => {
    const provider = await providerIn('pending_review');
    const listed = await json(await call('/api/admin/providers?status=pending_review', { token: ADMIN_TOKEN }));
    const entry = listed.data.find((row: { provider_id: string }) => row.provider_id === provider.providerId);
    expect(Object.keys(entry).sort()).toEqual([
      'accepted_scope',
      'display_name',
      'email',
      'kind',
      'provider_id',
      'status',
      'submitted_at',
      'user_id',
    ]);
    expect(entry).toMatchObject({
      email: provider.email,
      status: 'pending_review',
      kind: 'expert',
      accepted_scope: { domains: ['consultation'], topics: [] },
    });
    expect(listed.data.every((row: { status: string }) => row.status === 'pending_review')).toBe(true);
  });
});

describe('the domain catalog', () => {
  it('admins add domains (lower-case slugs); channels, executions and profiles must name one', async () => {
    const slug = `tax-${clock.now().toString(36)}`;
    const created = await call('/api/admin/domains', {
      token: ADMIN_TOKEN,
      body: { domain: slug, name: 'Tax advice' },
    });
    expect(created.status).toBe(201);
    expect(await json(created)).toMatchObject({ domain: slug, name: 'Tax advice' });
    await expectProblem(
      await call('/api/admin/domains', { token: ADMIN_TOKEN, body: { domain: slug, name: 'Again' } }),
      409,
      'conflict',
    );
    await expectProblem(
      await call('/api/admin/domains', { token: ADMIN_TOKEN, body: { domain: 'Not A Slug', name: 'x' } }),
      422,
      'validation_failed',
    );
    const listed = await json(await call('/api/admin/domains', { token: ADMIN_TOKEN }));
    expect(listed.data.map((entry: { domain: string }) => entry.domain)).toEqual(
      expect.arrayContaining(['consultation', slug]),
    );

    const tenant = await createTenant({ scopes: ['execute', 'channels:write'] });
    expect(
      (
        await call('/api/execute', {
          token: tenant.token,
          body: { domain: slug, execution_mode: 'sync', required_scopes: [], text: 'Help with taxes.' },
        })
      ).status,
    ).toBe(200);
    await expectProblem(
      await call('/api/execute', {
        token: tenant.token,
        body: { domain: 'astrology', execution_mode: 'sync', required_scopes: [], text: 'x' },
      }),
      422,
      'unknown_domain',
    );
    expect(
      (await call('/api/integrations/channels', { token: tenant.token, body: { name: 'Tax site', domain: slug } }))
        .status,
    ).toBe(201);
    await expectProblem(
      await call('/api/integrations/channels', { token: tenant.token, body: { name: 'Stars', domain: 'astrology' } }),
      422,
      'unknown_domain',
    );
  });
});

describe('platform admins', () => {
  it('are granted and removed through the admin API, found by email', async () => {
    const user = await signUpUser('business');
    const found = await json(
      await call(`/api/admin/users?email=${encodeURIComponent(user.email.toUpperCase())}`, { token: ADMIN_TOKEN }),
    );
    expect(found).toMatchObject({ email: user.email, role: 'business', platform_admin: false });
    const granted = await json(
      await call(`/api/admin/users/${found.user_id}`, {
        method: 'PATCH',
        token: ADMIN_TOKEN,
        body: { platform_admin: true },
      }),
    );
    expect(granted.platform_admin).toBe(true);
    await expectProblem(
      await call('/api/admin/users?email=nobody%40example.com', { token: ADMIN_TOKEN }),
      404,
      'not_found',
    );
    await expectProblem(
      await call('/api/admin/users/usr_doesnotexist000000000000', {
        method: 'PATCH',
        token: ADMIN_TOKEN,
        body: { platform_admin: true },
      }),
      404,
      'not_found',
    );
  });
});
