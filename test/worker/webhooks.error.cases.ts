/**
 * Webhook delivery when things go wrong (docs/design/webhooks.md): the cron sweep recovers what the
 * queue never got, retries keep their webhook-id and back off, 410 and three days of failures
 * disable, Retry-After is honoured, a slow receiver holds up neither another endpoint nor the
 * change. Time passes on the test clock (worker/lib/clock.ts), never by waiting.
 */
import { createExecutionContext, createMessageBatch, env, getQueueResult } from 'cloudflare:test';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import worker from '../../worker/index';
import { cron, deliveryEnvironment, endpoint, headersOf, receiver, waitFor } from './webhook-helpers';
import { getPage } from './console-helpers';
import { ADMIN_TOKEN, call, createTenant, execute, executeBody, json } from './helpers';
import { clock, moveClockForTests } from '../../worker/lib/clock';
import { deliverDueToEndpoint } from '../../worker/platform/webhooks';
import { RETRY_WINDOW_MS } from '../../worker/platform/webhooks/retry-policy';
import { platformDb } from './platform-db';

const _eventsOf = async (workspaceId: string) =>
  (
    await platformDb
      .prepare('SELECT type FROM events WHERE workspace_id = ? ORDER BY id')
      .bind(workspaceId)
      .all<{ type: string }>()
  ).results.map((row) => row.type);

describe('a lost queue message', () => {
  it('a lost queue message loses nothing: the cron sweep delivers the event', async () => {
    const tenant = await createTenant({ scopes: ['execute'] });
    const hook = receiver();
    await endpoint(tenant.workspaceId, hook.url, ['execution.completed']);
    // An event written in a batch whose queue message never arrived (the send failed).
    const now = clock.now();
    await platformDb
      .prepare(
        "INSERT INTO events (id, workspace_id, type, data, created_at) VALUES (?, ?, 'execution.completed', " +
          '\'{"execution_id":"exe_lost"}\', ?)',
      )
      .bind(`evt_lostmessage${now}`, tenant.workspaceId, now)
      .run();
    expect(
      await platformDb
        .prepare('SELECT status FROM webhook_deliveries WHERE event_id = ?')
        .bind(`evt_lostmessage${now}`)
        .first(),
    ).toEqual({ status: 'pending' });
    // Nothing happens by itself (no queue message names it)…
    expect(hook.sent()).toHaveLength(0);
    // …until the sweep (a minute later) puts it on the queue.
    await cron('* * * * *', 1);
    await waitFor(() => hook.sent().length === 1);
    await waitFor(
      async () =>
        (
          await platformDb
            .prepare('SELECT status FROM webhook_deliveries WHERE event_id = ?')
            .bind(`evt_lostmessage${now}`)
            .first<{ status: string }>()
        )?.status === 'delivered',
    );
  });
});

describe('retries', () => {
  it('a failing receiver gets the same webhook-id on every retry, with growing waits, until it answers', async () => {
    const tenant = await createTenant({ scopes: ['execute'] });
    const hook = receiver((attempt) => new Response('busy', { status: attempt < 4 ? 500 : 200 }));
    const { webhook_id: webhookId, secret } = await endpoint(tenant.workspaceId, hook.url, ['execution.completed']);
    await execute(tenant.token, executeBody());
    await waitFor(() => hook.sent().length === 4, 30_000);
    const ids = new Set(hook.sent().map((sent) => sent.headers.get('webhook-id')));
    expect(ids.size).toBe(1);
    for (const sent of hook.sent()) expect(() => new Webhook(secret).verify(sent.body, headersOf(sent))).not.toThrow();

    const log = await json(await call(`/api/admin/webhooks/${webhookId}/deliveries`, { token: ADMIN_TOKEN }));
    await waitFor(
      async () =>
        (await json(await call(`/api/admin/webhooks/${webhookId}/deliveries`, { token: ADMIN_TOKEN }))).data[0]
          .delivery_status === 'delivered',
    );
    const attempts = (
      await json(await call(`/api/admin/webhooks/${webhookId}/deliveries`, { token: ADMIN_TOKEN }))
    ).data.reverse();
    expect(
      attempts.map((entry: { attempt: number; status_code: number }) => [entry.attempt, entry.status_code]),
    ).toEqual([
      [1, 500],
      [2, 500],
      [3, 500],
      [4, 200],
    ]);
    expect(log.data.length).toBeGreaterThan(0);
    // Backoff: base 1 s doubled each time, with jitter (half fixed): at least 0.5, 1 and 2 s apart.
    const times = attempts.map((entry: { at: string }) => Date.parse(entry.at));
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(450);
    expect(times[2] - times[1]).toBeGreaterThanOrEqual(950);
    expect(times[3] - times[2]).toBeGreaterThanOrEqual(1950);
  });

  it(
    '410 Gone disables the endpoint, keeps its backlog paused (events raised meanwhile too), tells the owners, and ' +
      'replays it all on re-enable',
    async () => {
      const { signUpOwner } = await import('./console-helpers');
      const owner = await signUpOwner();
      const { token } = await import('./helpers').then(({ issueKey }) =>
        issueKey(owner.workspaceId, { scopes: ['execute'] }),
      );
      let gone = true;
      const hook = receiver(() => new Response(null, { status: gone ? 410 : 204 }));
      const { webhook_id: webhookId } = await endpoint(owner.workspaceId, hook.url, ['execution.completed']);
      await execute(token, executeBody({ text: 'The first.' }));
      await waitFor(
        async () =>
          (
            await platformDb
              .prepare('SELECT status FROM webhook_endpoints WHERE id = ?')
              .bind(webhookId)
              .first<{ status: string }>()
          )?.status === 'disabled',
      );
      expect(
        await platformDb.prepare('SELECT disabled_reason FROM webhook_endpoints WHERE id = ?').bind(webhookId).first(),
      ).toEqual({ disabled_reason: 'gone' });
      // Raised while it is disabled: nothing is sent, nothing is dropped.
      for (let index = 0; index < 5; index++) await execute(token, executeBody({ text: `While it is gone ${index}.` }));
      // Its outbox, run now, finds nothing it may send.
      expect(await deliverDueToEndpoint(await deliveryEnvironment(webhookId), webhookId)).toMatchObject({
        attempted: 0,
      });
      expect(hook.sent()).toHaveLength(1);
      const statuses = await platformDb
        .prepare('SELECT status, COUNT(*) AS n FROM webhook_deliveries WHERE endpoint_id = ? GROUP BY status')
        .bind(webhookId)
        .all();
      expect(statuses.results).toEqual([{ status: 'paused', n: 6 }]);

      // The disable is audited, and the owners see it on their console's first page.
      const audit = await json(
        await call(`/api/admin/audit-log?workspace_id=${owner.workspaceId}&action=webhook.disabled`, {
          token: ADMIN_TOKEN,
        }),
      );
      expect(audit.data).toMatchObject([
        { action: 'webhook.disabled', target_id: webhookId, actor_kind: 'system', metadata: { reason: 'gone' } },
      ]);
      const console = await (await getPage(`/integrations?ws=${owner.workspaceId}`, owner.cookie)).text();
      expect(console).toContain('A webhook endpoint was disabled:');
      expect(console).toContain('answered 410 Gone');

      // Enabled again: the whole backlog goes out, each event once, with its own webhook-id.
      gone = false;
      const enabled = await json(
        await call(`/api/admin/webhooks/${webhookId}/enable`, { method: 'POST', token: ADMIN_TOKEN }),
      );
      expect(enabled).toMatchObject({ status: 'active', replayed: 6, expired: 0 });
      await waitFor(() => hook.sent().length === 7);
      const ids = hook
        .sent()
        .slice(1)
        .map((sent) => sent.headers.get('webhook-id'));
      expect(new Set(ids).size).toBe(6);
      await waitFor(
        async () =>
          (await platformDb
            .prepare("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE endpoint_id = ? AND status = 'delivered'")
            .bind(webhookId)
            .first<{ n: number }>())!.n === 6,
      );
      expect(await (await getPage(`/integrations?ws=${owner.workspaceId}`, owner.cookie)).text()).not.toContain(
        'A webhook endpoint was disabled:',
      );
    },
  );

  it('a backlog older than the 3-day window is not replayed: it is given up, with the reason', async () => {
    const tenant = await createTenant({ scopes: ['execute'] });
    const hook = receiver();
    const { webhook_id: webhookId } = await endpoint(tenant.workspaceId, hook.url, ['execution.completed']);
    expect(
      (await call(`/api/admin/webhooks/${webhookId}/disable`, { method: 'POST', token: ADMIN_TOKEN })).status,
    ).toBe(200);
    await execute(tenant.token, executeBody());
    moveClockForTests(RETRY_WINDOW_MS + 1000);
    expect(
      await json(await call(`/api/admin/webhooks/${webhookId}/enable`, { method: 'POST', token: ADMIN_TOKEN })),
    ).toMatchObject({ replayed: 0, expired: 1 });
    expect(
      await platformDb
        .prepare('SELECT status, last_error FROM webhook_deliveries WHERE endpoint_id = ?')
        .bind(webhookId)
        .first(),
    ).toEqual({
      status: 'failed',
      last_error: 'Not delivered: its endpoint was disabled for longer than the 3-day retry window.',
    });
    expect(await deliverDueToEndpoint(await deliveryEnvironment(webhookId), webhookId)).toMatchObject({ attempted: 0 });
    expect(hook.sent()).toHaveLength(0);
  });

  it('Retry-After is honoured: the next attempt waits at least that long', async () => {
    const tenant = await createTenant({ scopes: ['execute'] });
    const hook = receiver(() => new Response('slow down', { status: 429, headers: { 'Retry-After': '120' } }));
    const { webhook_id: webhookId } = await endpoint(tenant.workspaceId, hook.url, ['execution.completed']);
    await execute(tenant.token, executeBody());
    await waitFor(() => hook.sent().length === 1);
    await waitFor(
      async () =>
        (
          await platformDb
            .prepare('SELECT attempts FROM webhook_deliveries WHERE endpoint_id = ?')
            .bind(webhookId)
            .first<{ attempts: number }>()
        )?.attempts === 1,
    );
    const delivery = await platformDb
      .prepare('SELECT next_attempt_at, updated_at, last_status FROM webhook_deliveries WHERE endpoint_id = ?')
      .bind(webhookId)
      .first<{ next_attempt_at: number; updated_at: number; last_status: number }>();
    expect(delivery!.last_status).toBe(429);
    expect(delivery!.next_attempt_at - delivery!.updated_at).toBeGreaterThanOrEqual(120_000);
    // Not before: its outbox finds nothing due a second short of it, and sends it then.
    moveClockForTests(delivery!.next_attempt_at - clock.now() - 1000);
    expect(await deliverDueToEndpoint(await deliveryEnvironment(webhookId), webhookId)).toMatchObject({ attempted: 0 });
    moveClockForTests(1000);
    expect(await deliverDueToEndpoint(await deliveryEnvironment(webhookId), webhookId)).toMatchObject({ attempted: 1 });
    expect(hook.sent()).toHaveLength(2);
  });

  it('three days without a success disable the endpoint, and a delivery stops retrying after three days', async () => {
    const tenant = await createTenant({ scopes: ['execute'] });
    const hook = receiver(() => new Response('down', { status: 503 }));
    const { webhook_id: webhookId } = await endpoint(tenant.workspaceId, hook.url, ['execution.completed']);
    const deliveries = () =>
      platformDb
        .prepare('SELECT status, last_error FROM webhook_deliveries WHERE endpoint_id = ? ORDER BY created_at')
        .bind(webhookId)
        .all<{ status: string; last_error: string | null }>()
        .then((result) => result.results);
    await execute(tenant.token, executeBody({ text: 'The first.' }));
    await waitFor(async () => (await deliveries())[0]?.last_error?.includes('503') === true);
    // Three days of failures later, a second event: the first delivery gives up, the endpoint is
    // disabled, and the second waits for it (paused).
    moveClockForTests(RETRY_WINDOW_MS + 1000);
    await execute(tenant.token, executeBody({ text: 'Three days later.' }));
    await waitFor(async () => (await deliveries()).every((row) => row.status !== 'pending'));
    const [first, second] = await deliveries();
    expect(first).toMatchObject({ status: 'failed' });
    expect(first!.last_error).toMatch(/No more retries after 3 days\.$/);
    expect(second).toMatchObject({ status: 'paused' });
    expect(
      await platformDb
        .prepare('SELECT status, disabled_reason FROM webhook_endpoints WHERE id = ?')
        .bind(webhookId)
        .first(),
    ).toEqual({ status: 'disabled', disabled_reason: 'failing' });
  });
});

describe('one slow endpoint never delays another', () => {
  it(
    'a hanging endpoint beside a healthy one in one queue batch: the batch is handed over at once, the healthy ' +
      'delivery is sent and recorded while the other still hangs, and the slow one goes out when it answers',
    async () => {
      const slowTenant = await createTenant({ scopes: ['execute'] });
      const healthyTenant = await createTenant({ scopes: ['execute'] });
      // The slow receiver answers after 3 s (its endpoint's outbox waits; nobody else does).
      let slowCalls = 0;
      const slow = receiver(() => {
        slowCalls++;
        return new Promise<Response>((resolve) =>
          setTimeout(() => resolve(new Response(null, { status: 204 })), 3_000),
        );
      });
      const healthy = receiver();
      const { webhook_id: slowId } = await endpoint(slowTenant.workspaceId, slow.url, ['execution.completed']);
      const { webhook_id: healthyId } = await endpoint(healthyTenant.workspaceId, healthy.url, ['execution.completed']);
      // Three events for the slow endpoint and one for the healthy one (the outbox's trigger makes
      // their deliveries), handed to the consumer as one batch, the slow ones first.
      const eventIds: string[] = [];
      for (const [index, workspaceId] of [slowTenant, slowTenant, slowTenant, healthyTenant].map(
        (tenant, i) => [i, tenant.workspaceId] as const,
      )) {
        const id = `evt_hang${index}${clock.now().toString(36)}`;
        await platformDb
          .prepare(
            'INSERT INTO events (id, workspace_id, type, data, created_at) VALUES ' +
              "(?, ?, 'execution.completed', '{}', ?)",
          )
          .bind(id, workspaceId, clock.now() - 1000)
          .run();
        eventIds.push(id);
      }
      const batch = createMessageBatch(
        'events',
        eventIds.map((id, index) => ({
          id: `m${index}`,
          timestamp: new Date(),
          attempts: 1,
          body: { kind: 'webhook.deliver', event_ids: [id] },
        })),
      );
      const context = createExecutionContext();
      const started = clock.now();
      await worker.queue!(batch, env, context);
      // The consumer only handed over: it returned long before the slow receiver could answer.
      expect(clock.now() - started).toBeLessThan(2_000);
      expect((await getQueueResult(batch, context)).explicitAcks.sort()).toEqual(['m0', 'm1', 'm2', 'm3']);
      await waitFor(
        async () =>
          (
            await platformDb
              .prepare('SELECT status FROM webhook_deliveries WHERE endpoint_id = ?')
              .bind(healthyId)
              .first<{ status: string }>()
          )?.status === 'delivered',
        10_000,
      );
      // Delivered and recorded while every slow request is still waiting for its answer.
      expect(
        await platformDb
          .prepare('SELECT COUNT(*) AS n FROM webhook_attempts WHERE endpoint_id = ?')
          .bind(slowId)
          .first(),
      ).toEqual({ n: 0 });
      await waitFor(
        async () =>
          (
            await platformDb
              .prepare("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE endpoint_id = ? AND status = 'delivered'")
              .bind(slowId)
              .first<{ n: number }>()
          )?.n === 3,
        15_000,
      );
      expect(slowCalls).toBe(3);
    },
  );
});

describe('a slow or failing receiver never holds up the change', () => {
  it(
    'the request that made the change answers while the receiver is still busy, and the change is ' + 'committed',
    async () => {
      const tenant = await createTenant({ scopes: ['execute', 'leads:write'] });
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const hook = receiver(async () => {
        await held;
        return new Response('finally', { status: 500 });
      });
      await endpoint(tenant.workspaceId, hook.url, ['execution.completed', 'lead.created']);
      const response = await execute(tenant.token, executeBody({ text: 'Slow receivers do not matter.' }));
      expect(response.status).toBe(200);
      const envelope = await json(response);
      // The receiver has the request but has not answered; the lead is already there.
      await waitFor(() => hook.sent().length >= 1);
      expect(
        await platformDb.prepare('SELECT status FROM leads WHERE id = ?').bind(envelope.output.result.lead_id).first(),
      ).toEqual({ status: 'open' });
      expect((await execute(tenant.token, executeBody({ text: 'And the next request too.' }))).status).toBe(200);
      release();
    },
  );
});
