import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import {
  agentCard,
  attemptsOf,
  connections,
  connectionsTo,
  createActiveAgent,
  createActiveRobot,
  jsonResponse,
  messageResult,
  newDomain,
  remotes,
  rpcAgent,
} from './agent-helpers';
import { HOSTILE_URLS } from './egress-cases';
import { ADMIN_TOKEN, call, createTenant, execute, executeBody, expectProblem, json, type Tenant } from './helpers';
import { createActiveExpert, sessionCall, signUpProvider } from './provider-helpers';
import { clock, moveClockForTests } from '../../worker/lib/clock';
import { platformDb } from './platform-db';

const ALL = ['execute', 'leads:write', 'agents:invoke', 'memory:read', 'memory:write'];

let tenant: Tenant;
beforeAll(async () => {
  tenant = await createTenant({ scopes: ALL });
});

/** Verifies a call's Standard Webhooks headers with the npm library, as a provider would. */
/** Whether the npm standardwebhooks library accepts what was sent, at the test clock's now. */
function verifies(secret: string, connection: { headers: Headers; body: string }): boolean {
  const at = clock.now();
  const now = vi.spyOn(Date, 'now').mockReturnValue(at);
  try {
    new Webhook(secret).verify(connection.body, Object.fromEntries(connection.headers));
    return true;
  } catch {
    return false;
  } finally {
    now.mockRestore();
  }
}

const run = async (domain: string, overrides: Record<string, unknown> = {}, token = tenant.token) =>
  execute(token, executeBody({ domain, text: 'How do I reset my password?', ...overrides }));

describe('the egress table', () => {
  it(`has ${HOSTILE_URLS.length} hostile URLs, each refused by the guard itself`, async () => {
    const { checkEgressUrl, guardedFetch, EgressRefused } = await import('../../worker/lib/egress');
    expect(HOSTILE_URLS.length).toBeGreaterThanOrEqual(25);
    for (const url of HOSTILE_URLS) {
      expect(checkEgressUrl(url, { allowLoopback: false }).ok, url).toBe(false);
      await expect(guardedFetch(url, { timeoutMs: 1000 }, { allowLoopback: false }), url).rejects.toBeInstanceOf(
        EgressRefused,
      );
    }
    expect(connections).toEqual([]);
  });

  for (const url of HOSTILE_URLS) {
    it(`refuses ${url} as an agent card and as a robot endpoint, without connecting`, async () => {
      const provider = await signUpProvider();
      const asCard = await sessionCall(provider.cookie, '/api/provider/profile', {
        body: { kind: 'agent', agent_card_url: url },
      });
      expect((await expectProblem(asCard, 422, 'validation_failed')).errors[0].pointer).toBe('/agent_card_url');
      const asRobot = await sessionCall(provider.cookie, '/api/provider/profile', {
        body: { kind: 'robot', endpoint_url: url },
      });
      expect((await expectProblem(asRobot, 422, 'validation_failed')).errors[0].pointer).toBe('/endpoint_url');
      expect(connections).toEqual([]);
    });
  }

  it('refuses at call time too: a stored endpoint that no longer passes is never connected to', async () => {
    const domain = await newDomain();
    const robot = await createActiveRobot('https://robot-moved.example.com/run', { domain });
    await platformDb
      .prepare('UPDATE providers SET endpoint_url = ? WHERE id = ?')
      .bind('https://169.254.169.254/latest/meta-data/', robot.providerId)
      .run();
    const envelope = await json(await run(domain));
    expect(await attemptsOf(envelope.output.execution_id)).toMatchObject([
      { provider_id: robot.providerId, outcome: 'refused' },
    ]);
    expect(connections).toEqual([]);
  });

  it('refuses an agent card whose endpoint is internal, and a card that redirects', async () => {
    const provider = await signUpProvider();
    remotes.set('https://agent-sneaky.example.com/card.json', () => jsonResponse(agentCard('https://10.1.2.3')));
    const internal = await expectProblem(
      await sessionCall(provider.cookie, '/api/provider/profile', {
        body: { kind: 'agent', agent_card_url: 'https://agent-sneaky.example.com/card.json' },
      }),
      422,
      'validation_failed',
    );
    expect(internal.errors[0].detail).toContain('https://10.1.2.3/a2a');
    remotes.set(
      'https://agent-moves.example.com/card.json',
      () => new Response(null, { status: 301, headers: { Location: 'https://127.0.0.1/card.json' } }),
    );
    const redirected = await expectProblem(
      await sessionCall(provider.cookie, '/api/provider/profile', {
        body: { kind: 'agent', agent_card_url: 'https://agent-moves.example.com/card.json' },
      }),
      422,
      'validation_failed',
    );
    expect(redirected.errors[0].detail).toMatch(/redirect/);
    expect(connections.map((connection) => new URL(connection.url).hostname)).toEqual([
      'agent-sneaky.example.com',
      'agent-moves.example.com',
    ]);
  });
});

describe('the reviewed endpoint is the called endpoint (issue 17)', () => {
  const origin = 'https://agent-two.example.com';
  const twoInterfaces = (first: string, second: string) =>
    agentCard(origin, {
      supportedInterfaces: [
        { url: `${origin}${first}`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: `${origin}${second}`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      ],
    });

  it('a card with two interfaces: the one shown to the reviewer is the only one ever called', async () => {
    const domain = await newDomain();
    const agent = await createActiveAgent(origin, { domain, card: twoInterfaces('/reviewed', '/other') });
    const profile = await json(await sessionCall(agent.cookie, '/api/provider/profile'));
    expect(profile.agent_card.endpoint).toBe(`${origin}/reviewed`);
    remotes.set(
      `${origin}/reviewed`,
      rpcAgent(() => messageResult('From the reviewed endpoint.')),
    );
    remotes.set(
      `${origin}/other`,
      rpcAgent(() => messageResult('From an endpoint nobody reviewed.')),
    );
    const envelope = await json(await run(domain));
    expect(envelope.output.result.reply).toBe('From the reviewed endpoint.');
    expect(connectionsTo(`${origin}/other`)).toEqual([]);
  });

  it(
    'an interface added to the card later is never called; a card that changes what is called goes back to ' + 'review',
    async () => {
      const domain = await newDomain();
      const cardUrl = `${origin}/.well-known/agent-card.json`;
      const agent = await createActiveAgent(origin, { domain, card: twoInterfaces('/reviewed', '/other') });
      remotes.set(
        `${origin}/reviewed`,
        rpcAgent(() => messageResult('Reviewed.')),
      );
      remotes.set(
        `${origin}/added`,
        rpcAgent(() => messageResult('Unseen.')),
      );

      // A new interface at the end: what is called is unchanged, so the agent stays active and nothing else is called.
      remotes.set(cardUrl, () =>
        jsonResponse(
          agentCard(origin, {
            supportedInterfaces: [
              ...twoInterfaces('/reviewed', '/other').supportedInterfaces,
              { url: `${origin}/added`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
            ],
          }),
        ),
      );
      expect(
        (await json(await sessionCall(agent.cookie, '/api/provider/profile', { body: { agent_card_url: cardUrl } })))
          .status,
      ).toBe('active');
      expect((await json(await run(domain))).output.result.reply).toBe('Reviewed.');
      expect(connectionsTo(`${origin}/added`)).toEqual([]);

      // A new first interface changes what would be called: material, back to review, and no longer called.
      remotes.set(cardUrl, () => jsonResponse(twoInterfaces('/added', '/reviewed')));
      const saved = await json(
        await sessionCall(agent.cookie, '/api/provider/profile', { body: { agent_card_url: cardUrl } }),
      );
      expect(saved.status).toBe('pending_review');
      expect(saved.agent_card.endpoint).toBe(`${origin}/added`);
      const envelope = await json(await run(domain));
      expect(envelope.output.result.handled_by).toBeUndefined();
      expect(connectionsTo(`${origin}/added`)).toEqual([]);
    },
  );
});

describe('secrets', () => {
  it('approval issues the signing secret and shows it once; a rotation signs with both for 24 h', async () => {
    const domain = await newDomain();
    const origin = 'https://agent-rotate.example.com';
    const agent = await createActiveAgent(origin, { domain });
    expect(agent.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    // Shown once: nothing else ever answers it, not the admin's provider view, not the profile.
    const adminView = await (await call(`/api/admin/providers/${agent.providerId}`, { token: ADMIN_TOKEN })).text();
    const profileView = await (await sessionCall(agent.cookie, '/api/provider/profile')).text();
    for (const view of [adminView, profileView]) expect(view).not.toContain(agent.secret);
    expect(JSON.parse(profileView).signing_secret).toMatchObject({ issued: true, shown: true });
    // Stored encrypted: the database holds no trace of it.
    const stored = await platformDb
      .prepare('SELECT signing_secret FROM providers WHERE id = ?')
      .bind(agent.providerId)
      .first<{ signing_secret: string }>();
    expect(stored!.signing_secret.startsWith('v1:')).toBe(true);
    expect(stored!.signing_secret).not.toContain(agent.secret.slice(6, 20));

    const rotation = await json(
      await sessionCall(agent.cookie, '/api/provider/signing-secret/rotate', { method: 'POST' }),
    );
    expect(rotation.signing_secret).toMatch(/^whsec_/);
    expect(rotation.signing_secret).not.toBe(agent.secret);
    expect(Date.parse(rotation.previous_secret_valid_until) - clock.now()).toBeGreaterThan(23.9 * 3600 * 1000);
    remotes.set(
      `${origin}/a2a`,
      rpcAgent(() => messageResult('Signed twice.')),
    );
    await run(domain);
    const [sent] = connectionsTo(`${origin}/a2a`);
    expect(sent!.headers.get('webhook-signature')!.split(' ')).toHaveLength(2);
    expect(verifies(agent.secret, sent!)).toBe(true);
    expect(verifies(rotation.signing_secret, sent!)).toBe(true);

    // After the overlap (a day), only the new secret signs.
    moveClockForTests(24 * 3_600_000 + 1);
    await run(domain);
    const [, later] = connectionsTo(`${origin}/a2a`);
    expect(verifies(agent.secret, later!)).toBe(false);
    expect(verifies(rotation.signing_secret, later!)).toBe(true);
    const audit = await platformDb
      .prepare("SELECT COUNT(*) AS n FROM audit_log WHERE action = 'provider.signing_secret_rotated' AND target_id = ?")
      .bind(agent.providerId)
      .first();
    expect(audit).toEqual({ n: 1 });
  });

  it('an agent’s bearer token is stored encrypted and sent on every call', async () => {
    const domain = await newDomain();
    const origin = 'https://agent-bearer.example.com';
    const token = 'agent-token-7Gq2LmX9pZ';
    const agent = await createActiveAgent(origin, { domain, bearerToken: token });
    const row = await platformDb
      .prepare('SELECT bearer_token FROM providers WHERE id = ?')
      .bind(agent.providerId)
      .first<{ bearer_token: string }>();
    expect(row!.bearer_token).not.toContain(token);
    const profile = await json(await sessionCall(agent.cookie, '/api/provider/profile'));
    expect(profile.agent_bearer_token_set).toBe(true);
    expect(JSON.stringify(profile)).not.toContain(token);
    remotes.set(
      `${origin}/a2a`,
      rpcAgent(() => messageResult('Authorised.')),
    );
    await run(domain);
    expect(connectionsTo(`${origin}/a2a`)[0]!.headers.get('Authorization')).toBe(`Bearer ${token}`);
  });

  it('experts have no signing secret, and the agent routes refuse them', async () => {
    const expert = await createActiveExpert();
    await expectProblem(
      await sessionCall(expert.cookie, '/api/provider/signing-secret/rotate', { method: 'POST' }),
      403,
      'forbidden',
    );
    await expectProblem(await sessionCall(expert.cookie, '/api/provider/health'), 403, 'forbidden');
  });
});
