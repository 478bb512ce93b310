import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signStandardWebhook } from '../../worker/lib/standard-webhooks';
import { connections } from './agent-helpers';
import { endpoint, headersOf, receiver, waitFor } from './webhook-helpers';
import { HOSTILE_URLS } from './egress-cases';
import { ADMIN_TOKEN, call, createTenant, execute, executeBody, expectProblem, json } from './helpers';
import { clock } from '../../worker/lib/clock';
import { platformDb } from './platform-db';

const _eventsOf = async (workspaceId: string) =>
  (
    await platformDb
      .prepare('SELECT type FROM events WHERE workspace_id = ? ORDER BY id')
      .bind(workspaceId)
      .all<{ type: string }>()
  ).results.map((row) => row.type);

describe('the egress guard', () => {
  it(`refuses each of the ${HOSTILE_URLS.length} hostile URLs at creation, without connecting`, async () => {
    const tenant = await createTenant();
    for (const url of HOSTILE_URLS) {
      const problem = await expectProblem(
        await call('/api/admin/webhooks', {
          token: ADMIN_TOKEN,
          body: { workspace_id: tenant.workspaceId, url, event_types: ['lead.created'] },
        }),
        422,
        'validation_failed',
      );
      expect(problem.errors[0].pointer, url).toBe('/url');
    }
    // Nothing connected to any of them (a late retry of an earlier test may reach its own receiver meanwhile).
    const hostile = new Set(HOSTILE_URLS.map((url) => url.replace(/^[a-z]+:\/\/([^/]*).*$/i, '$1').toLowerCase()));
    expect(connections.filter((connection) => hostile.has(new URL(connection.url).host.toLowerCase()))).toEqual([]);
    expect(
      await platformDb
        .prepare('SELECT COUNT(*) AS n FROM webhook_endpoints WHERE workspace_id = ?')
        .bind(tenant.workspaceId)
        .first(),
    ).toEqual({ n: 0 });
  });

  it(
    'refuses again at delivery: a stored URL that no longer passes is never connected to, and a redirect is a ' +
      'failure',
    async () => {
      const tenant = await createTenant({ scopes: ['execute'] });
      const moved = await endpoint(tenant.workspaceId, receiver().url, ['execution.completed']);
      await platformDb
        .prepare('UPDATE webhook_endpoints SET url = ? WHERE id = ?')
        .bind('https://169.254.169.254/latest/meta-data/', moved.webhook_id)
        .run();
      const redirects = receiver(
        () => new Response(null, { status: 302, headers: { Location: 'https://127.0.0.1/' } }),
      );
      const redirecting = await endpoint(tenant.workspaceId, redirects.url, ['execution.completed']);
      await execute(tenant.token, executeBody());
      for (const id of [moved.webhook_id, redirecting.webhook_id]) {
        await waitFor(
          async () =>
            (await platformDb
              .prepare('SELECT COUNT(*) AS n FROM webhook_attempts WHERE endpoint_id = ?')
              .bind(id)
              .first<{ n: number }>())!.n >= 1,
        );
      }
      const attempts = await platformDb
        .prepare('SELECT endpoint_id, status_code, error FROM webhook_attempts WHERE endpoint_id IN (?, ?)')
        .bind(moved.webhook_id, redirecting.webhook_id)
        .all<{ endpoint_id: string; error: string }>();
      for (const attempt of attempts.results) expect(attempt.error).toMatch(/egress guard/);
      expect(connections.filter((connection) => connection.url.includes('169.254'))).toEqual([]);
      expect(redirects.sent()).toHaveLength(1);
      expect(connections.filter((connection) => connection.url.startsWith('https://127.0.0.1'))).toEqual([]);
    },
  );
});

describe('signatures, checked by the npm standardwebhooks library', () => {
  it(
    'what we send verifies; a tampered body, a wrong secret and an old timestamp fail; both secrets verify during a ' +
      'rotation',
    async () => {
      const tenant = await createTenant({ scopes: ['execute'] });
      const hook = receiver();
      const { webhook_id: webhookId, secret } = await endpoint(tenant.workspaceId, hook.url, ['execution.completed']);
      await execute(tenant.token, executeBody());
      await waitFor(() => hook.sent().length === 1);
      const [sent] = hook.sent();
      const headers = headersOf(sent!);
      expect(() => new Webhook(secret).verify(sent!.body, headers)).not.toThrow();
      expect(() => new Webhook(secret).verify(sent!.body.replace('completed', 'c0mpleted'), headers)).toThrow();
      expect(() => new Webhook(`whsec_${btoa('a different secret, 24 b')}`).verify(sent!.body, headers)).toThrow();
      const stale = await signStandardWebhook(
        [secret],
        headers['webhook-id']!,
        Math.floor(clock.now() / 1000) - 10 * 60,
        sent!.body,
      );
      expect(() => new Webhook(secret).verify(sent!.body, stale)).toThrow(/too old/i);

      const rotated = await json(
        await call(`/api/admin/webhooks/${webhookId}/rotate-secret`, { method: 'POST', token: ADMIN_TOKEN }),
      );
      expect(rotated.secret).toMatch(/^whsec_/);
      await execute(tenant.token, executeBody({ text: 'After the rotation.' }));
      await waitFor(() => hook.sent().length === 2);
      const after = hook.sent()[1]!;
      expect(after.headers.get('webhook-signature')!.split(' ')).toHaveLength(2);
      expect(() => new Webhook(secret).verify(after.body, headersOf(after))).not.toThrow();
      expect(() => new Webhook(rotated.secret).verify(after.body, headersOf(after))).not.toThrow();
    },
  );
});
