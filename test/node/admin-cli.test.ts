import { confirmEmailOverHttp } from './account-helpers';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';

const run = promisify(execFile);
const worker = inject('workerUrl');

async function admin(...args: string[]) {
  const { stdout } = await run(process.execPath, ['scripts/admin.mjs', '--url', worker, ...args], {
    env: { ...process.env, EGW_ADMIN_TOKEN: inject('adminToken') },
  });
  return JSON.parse(stdout);
}

describe('npm run admin', () => {
  it('creates an organisation, issues, lists and revokes a key, and reads the audit log', async () => {
    const organization = await admin('orgs', 'create', '--name', 'CLI Org', '--workspace-name', 'Production');
    expect(organization.workspace_id).toMatch(/^ws_/);
    const key = await admin(
      'keys',
      'create',
      '--workspace',
      organization.workspace_id,
      '--scopes',
      'execute,leads:write',
      '--rate-limit',
      '120',
      '--quota',
      '1000',
    );
    expect(key.token).toMatch(/^egk_/);
    expect(key).toMatchObject({ scopes: ['execute', 'leads:write'], rate_limit_per_minute: 120, monthly_quota: 1000 });

    const execute = await fetch(`${worker}/api/execute`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        domain: 'consultation',
        execution_mode: 'sync',
        required_scopes: ['execute'],
        text: 'From the CLI test',
      }),
    });
    expect(execute.status).toBe(200);

    const listed = await admin('keys', 'list', '--workspace', organization.workspace_id);
    expect(listed.data.map((entry: { key_id: string }) => entry.key_id)).toEqual([key.key_id]);
    expect(JSON.stringify(listed)).not.toContain(key.token);
    const revoked = await admin('keys', 'revoke', key.key_id);
    expect(revoked.state).toBe('revoked');
    const audit = await admin('audit', '--workspace', organization.workspace_id);
    expect(audit.data.map((entry: { action: string }) => entry.action)).toEqual([
      'api_key.revoked',
      'execution.completed',
      'api_key.issued',
      'organization.created',
    ]);
  });

  it('keeps the domain catalog, grants platform admin, and reviews providers', async () => {
    const slug = `cli-${Date.now().toString(36)}`;
    expect(await admin('domains', 'create', '--domain', slug, '--name', 'From the CLI')).toMatchObject({
      domain: slug,
      name: 'From the CLI',
    });
    expect((await admin('domains', 'list')).data.map((entry: { domain: string }) => entry.domain)).toEqual(
      expect.arrayContaining(['consultation', 'faq', slug]),
    );

    const found = await admin('users', 'find', '--email', 'owner@demo.test');
    expect(found).toMatchObject({ email: 'owner@demo.test', platform_admin: false });
    expect((await admin('users', 'grant-admin', found.user_id)).platform_admin).toBe(true);
    expect((await admin('users', 'remove-admin', found.user_id)).platform_admin).toBe(false);

    // A provider signs up and submits; the CLI reviews it.
    const email = `cli.provider.${Date.now().toString(36)}@example.com`;
    const signUp = await fetch(`${worker}/auth/sign-up`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: worker },
      body: new URLSearchParams({ email, password: 'a long and unusual passphrase 42', role: 'provider' }).toString(),
    });
    const cookie = signUp.headers.get('Set-Cookie')!.split(';')[0]!;
    await confirmEmailOverHttp(email);
    const submitted = await fetch(`${worker}/api/provider/profile`, {
      method: 'POST',
      headers: { Cookie: cookie, Origin: worker, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        kind: 'expert',
        display_name: 'CLI Expert',
        headline: 'Reviewed from the CLI',
        accepted_scope: { domains: [slug], topics: [] },
        languages: ['en'],
        regions: ['global'],
        submit: true,
      }),
    });
    const { provider_id: providerId } = await submitted.json();
    const queue = await admin('providers', 'list', '--status', 'pending_review');
    expect(queue.data.map((entry: { provider_id: string }) => entry.provider_id)).toContain(providerId);
    expect((await admin('providers', 'reject', providerId, '--note', 'Add a bio.')).status).toBe('profile_incomplete');
    const shown = await admin('providers', 'show', providerId);
    expect(shown.review_note).toBe('Add a bio.');
    // An approval names the version read; this one is no longer under review.
    await expect(admin('providers', 'approve', providerId, '--version', String(shown.version))).rejects.toMatchObject({
      code: 1,
    });
    await fetch(`${worker}/api/provider/profile`, {
      method: 'POST',
      headers: { Cookie: cookie, Origin: worker, 'Content-Type': 'application/json' },
      body: JSON.stringify({ bio: 'Ten years of payroll.', submit: true }),
    });
    const resubmitted = await admin('providers', 'show', providerId);
    await expect(
      admin('providers', 'approve', providerId, '--version', String(resubmitted.version - 1)),
    ).rejects.toMatchObject({ code: 1 });
    expect((await admin('providers', 'approve', providerId, '--version', String(resubmitted.version))).status).toBe(
      'active',
    );
  });

  it('provisions a webhook endpoint: create (secret once), list, rotate, disable, the delivery log', async () => {
    const org = await admin('orgs', 'create', '--name', 'CLI Hooks');
    const created = await admin(
      'webhooks',
      'create',
      '--workspace',
      org.workspace_id,
      '--endpoint',
      'https://hooks.example.com/in',
      '--events',
      'lead.created,lead.claimed',
    );
    expect(created).toMatchObject({
      url: 'https://hooks.example.com/in',
      event_types: ['lead.created', 'lead.claimed'],
      status: 'active',
      secret: expect.stringMatching(/^whsec_/),
    });
    const listed = await admin('webhooks', 'list', '--workspace', org.workspace_id);
    expect(listed.data.map((entry: { webhook_id: string }) => entry.webhook_id)).toEqual([created.webhook_id]);
    expect(JSON.stringify(listed)).not.toContain(created.secret);
    const rotated = await admin('webhooks', 'rotate', created.webhook_id);
    expect(rotated.secret).not.toBe(created.secret);
    expect((await admin('webhooks', 'disable', created.webhook_id)).status).toBe('disabled');
    expect((await admin('webhooks', 'deliveries', created.webhook_id)).data).toEqual([]);
    await expect(
      admin(
        'webhooks',
        'create',
        '--workspace',
        org.workspace_id,
        '--endpoint',
        'https://10.0.0.1/in',
        '--events',
        'lead.created',
      ),
    ).rejects.toMatchObject({ code: 1 });
  });

  it('records a contract, credits its escrow, and prints the charges as meter events (JSON lines)', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const org = await admin('orgs', 'create', '--name', 'CLI Billing Org');
    const contract = await admin(
      'contracts',
      'create',
      '--workspace',
      org.workspace_id,
      '--plan',
      'CLI',
      '--currency',
      'EUR',
      '--starts',
      new Date(Date.now() - 60_000).toISOString(),
      '--allowances',
      'executions=0',
      '--overage',
      'executions=4',
      '--reference',
      'cus_cli',
    );
    expect(contract).toMatchObject({ allowances: { executions: 0 }, overage: { executions: { unit_price_minor: 4 } } });
    expect(
      await admin('escrows', 'credit', contract.escrow_id, '--amount', '40', '--reference', 'INV-CLI'),
    ).toMatchObject({
      balance_minor: 40,
      already_recorded: false,
    });
    // The same payment again adds nothing, and says so.
    expect(
      await admin('escrows', 'credit', contract.escrow_id, '--amount', '40', '--reference', 'INV-CLI'),
    ).toMatchObject({
      balance_minor: 40,
      already_recorded: true,
    });
    const key = await admin('keys', 'create', '--workspace', org.workspace_id, '--scopes', 'execute');
    for (let index = 0; index < 2; index++) {
      const response = await fetch(`${worker}/api/execute`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ domain: 'consultation', execution_mode: 'sync', required_scopes: [], text: 'Metered' }),
      });
      expect(response.status).toBe(200);
    }
    expect((await admin('escrows', 'show', contract.escrow_id)).balance_minor).toBe(32);
    const { stdout } = await run(
      process.execPath,
      ['scripts/admin.mjs', '--url', worker, 'meter-events', '--since', since],
      {
        env: { ...process.env, EGW_ADMIN_TOKEN: inject('adminToken') },
      },
    );
    const events = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((event) => event.payload.customer === 'cus_cli');
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({ event_name: 'executions.overage', payload: { value: '1', amount_minor: '4' } });
    // Nothing since a moment in the future: said on stderr, with the address asked, and no JSON line.
    const none = await run(
      process.execPath,
      ['scripts/admin.mjs', '--url', worker, 'meter-events', '--since', '2099-01-01T00:00:00Z'],
      { env: { ...process.env, EGW_ADMIN_TOKEN: inject('adminToken') } },
    );
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain(`No charges since 2099-01-01T00:00:00Z (${worker})`);
    expect((await admin('contracts', 'end', contract.contract_id)).status).toBe('ended');
  });

  it('explains a failure and exits non-zero', async () => {
    await expect(admin('keys', 'create', '--workspace', 'ws_missing', '--scopes', 'execute')).rejects.toMatchObject({
      code: 1,
    });
  });
});
