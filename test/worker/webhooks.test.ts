/**
 * Events written back (docs/design/webhooks.md and docs/design/identity-and-access.md): the outbox commits with its
 * change, the
 * events queue delivers, the cron sweep recovers what the queue never got, retries keep their
 * webhook-id and back off, 410 and three days of failures disable, Retry-After is honoured, the
 * egress guard applies at creation and at delivery, and a slow receiver never holds up the
 * change. Receivers are stubbed fetches; D1, the queue and the cron handler are the real ones.
 */
import { createExecutionContext, createMessageBatch, env, getQueueResult } from 'cloudflare:test';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import worker from '../../worker/index';
import { signStandardWebhook } from '../../worker/lib/standard-webhooks';
import { connections, installRemotes } from './agent-helpers';
import { cron, endpoint, headersOf, receiver, waitFor } from './webhook-helpers';
import { getPage, postForm } from './console-helpers';
import { HOSTILE_URLS } from './egress-cases';
import { ADMIN_TOKEN, call, createTenant, execute, executeBody, expectProblem, json, type Tenant } from './helpers';
import { createActiveExpert, createChannel, sessionCall, visitorSays } from './provider-helpers';

beforeEach(() => installRemotes());
afterEach(() => vi.restoreAllMocks());

const eventsOf = async (workspaceId: string) =>
  (
    await env.DB.prepare('SELECT type FROM events WHERE workspace_id = ? ORDER BY id')
      .bind(workspaceId)
      .all<{ type: string }>()
  ).results.map((row) => row.type);

describe('the outbox', () => {
  it('an execution writes its events in its own batch; a subscribed endpoint gets them, signed', async () => {
    const tenant = await createTenant({ scopes: ['execute', 'leads:write'] });
    const hook = receiver();
    const { secret } = await endpoint(tenant.workspaceId, hook.url, ['execution.completed', 'lead.created']);
    const envelope = await json(await execute(tenant.token, executeBody({ text: 'Please call me about payroll.' })));
    expect(await eventsOf(tenant.workspaceId)).toEqual(['execution.completed', 'lead.created']);

    await waitFor(() => hook.sent().length === 2);
    const bodies = hook.sent().map(
      (sent) =>
        new Webhook(secret).verify(sent.body, headersOf(sent)) as {
          type: string;
          data: Record<string, unknown>;
          id: string;
        },
    );
    const byType = Object.fromEntries(bodies.map((body) => [body.type, body]));
    expect(byType['execution.completed']!.data).toMatchObject({
      execution_id: envelope.output.execution_id,
      status: 'completed',
      source_record: envelope.output.result.lead_id,
    });
    expect(byType['lead.created']!.data).toMatchObject({
      lead_id: envelope.output.result.lead_id,
      status: 'open',
      summary: 'Please call me about payroll.',
    });
    for (const sent of hook.sent()) expect(sent.headers.get('webhook-id')).toBe(JSON.parse(sent.body).id);
  });

  it('a failed batch leaves neither the change nor its event', async () => {
    const tenant = await createTenant({ scopes: ['execute'], monthly_quota: 1 });
    await endpoint(tenant.workspaceId, receiver().url, ['execution.completed']);
    expect((await execute(tenant.token, executeBody())).status).toBe(200);
    // The quota's CHECK fails the second batch: no execution, and no event.
    await expectProblem(await execute(tenant.token, executeBody({ text: 'One too many.' })), 429, 'quota_exceeded');
    expect(await eventsOf(tenant.workspaceId)).toEqual(['execution.completed']);
    const executions = await env.DB.prepare('SELECT COUNT(*) AS n FROM executions WHERE workspace_id = ?')
      .bind(tenant.workspaceId)
      .first();
    expect(executions).toEqual({ n: 1 });
    const deliveries = await env.DB.prepare('SELECT COUNT(*) AS n FROM webhook_deliveries WHERE workspace_id = ?')
      .bind(tenant.workspaceId)
      .first();
    expect(deliveries).toEqual({ n: 1 });
  });

  it('only subscribed types are delivered, and contact details never appear in an event', async () => {
    const owner = await createTenant({ scopes: ['execute', 'leads:write', 'channels:read', 'channels:write'] });
    const hook = receiver();
    const { secret } = await endpoint(owner.workspaceId, hook.url, [
      'intake.received',
      'conversation.message_created',
      'lead.created',
    ]);
    const channel = await createChannel(owner.token, { leadCapture: { email: 'optional' } });
    const first = await visitorSays(channel, { message: { text: 'I need an accountant.' } });
    await visitorSays(channel, {
      session_id: first.session_id,
      trigger: 'lead_capture',
      contact: { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0000' },
    });
    await waitFor(() => hook.sent().length >= 6);
    const types = hook
      .sent()
      .map((sent) => (new Webhook(secret).verify(sent.body, headersOf(sent)) as { type: string }).type);
    expect(types.filter((type) => type === 'execution.completed')).toEqual([]);
    expect(new Set(types)).toEqual(new Set(['intake.received', 'conversation.message_created', 'lead.created']));
    const everything = (
      await env.DB.prepare('SELECT data FROM events WHERE workspace_id = ?')
        .bind(owner.workspaceId)
        .all<{ data: string }>()
    ).results
      .map((row) => row.data)
      .join('\n');
    for (const detail of ['ada@example.com', '7946', 'Lovelace']) expect(everything).not.toContain(detail);
    // Not in the transcript either, which experts read before anyone claims the lead.
    const transcript = (
      await env.DB.prepare(
        'SELECT m.text FROM messages m JOIN leads l ON l.conversation_id = m.conversation_id WHERE l.id = ?',
      )
        .bind(first.lead_id)
        .all<{ text: string }>()
    ).results;
    for (const detail of ['ada@example.com', '7946', 'Lovelace'])
      expect(JSON.stringify(transcript)).not.toContain(detail);
    for (const sent of hook.sent())
      for (const detail of ['ada@example.com', '7946', 'Lovelace']) expect(sent.body).not.toContain(detail);
  });

  it('a lost queue message loses nothing: the cron sweep delivers the event', async () => {
    const tenant = await createTenant({ scopes: ['execute'] });
    const hook = receiver();
    await endpoint(tenant.workspaceId, hook.url, ['execution.completed']);
    // An event written in a batch whose queue message never arrived (the send failed).
    const now = Date.now();
    await env.DB.prepare(
      "INSERT INTO events (id, workspace_id, type, data, created_at) VALUES (?, ?, 'execution.completed', " +
        '\'{"execution_id":"exe_lost"}\', ?)',
    )
      .bind(`evt_lostmessage${now}`, tenant.workspaceId, now)
      .run();
    expect(
      await env.DB.prepare('SELECT status FROM webhook_deliveries WHERE event_id = ?')
        .bind(`evt_lostmessage${now}`)
        .first(),
    ).toEqual({ status: 'pending' });
    // Nothing happens by itself…
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(hook.sent()).toHaveLength(0);
    // …until the sweep (a minute later) puts it on the queue.
    await cron('* * * * *', 1);
    await waitFor(() => hook.sent().length === 1);
    await waitFor(
      async () =>
        (
          await env.DB.prepare('SELECT status FROM webhook_deliveries WHERE event_id = ?')
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
            await env.DB.prepare('SELECT status FROM webhook_endpoints WHERE id = ?')
              .bind(webhookId)
              .first<{ status: string }>()
          )?.status === 'disabled',
      );
      expect(
        await env.DB.prepare('SELECT disabled_reason FROM webhook_endpoints WHERE id = ?').bind(webhookId).first(),
      ).toEqual({ disabled_reason: 'gone' });
      // Raised while it is disabled: nothing is sent, nothing is dropped.
      for (let index = 0; index < 5; index++) await execute(token, executeBody({ text: `While it is gone ${index}.` }));
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(hook.sent()).toHaveLength(1);
      const statuses = await env.DB.prepare(
        'SELECT status, COUNT(*) AS n FROM webhook_deliveries WHERE endpoint_id = ? GROUP BY status',
      )
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
          (await env.DB.prepare(
            "SELECT COUNT(*) AS n FROM webhook_deliveries WHERE endpoint_id = ? AND status = 'delivered'",
          )
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
    await env.DB.prepare('UPDATE webhook_deliveries SET created_at = ? WHERE endpoint_id = ?')
      .bind(Date.now() - 3 * 24 * 3600 * 1000 - 1000, webhookId)
      .run();
    expect(
      await json(await call(`/api/admin/webhooks/${webhookId}/enable`, { method: 'POST', token: ADMIN_TOKEN })),
    ).toMatchObject({ replayed: 0, expired: 1 });
    expect(
      await env.DB.prepare('SELECT status, last_error FROM webhook_deliveries WHERE endpoint_id = ?')
        .bind(webhookId)
        .first(),
    ).toEqual({
      status: 'failed',
      last_error: 'Not delivered: its endpoint was disabled for longer than the 3-day retry window.',
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
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
          await env.DB.prepare('SELECT attempts FROM webhook_deliveries WHERE endpoint_id = ?')
            .bind(webhookId)
            .first<{ attempts: number }>()
        )?.attempts === 1,
    );
    const delivery = await env.DB.prepare(
      'SELECT next_attempt_at, updated_at, last_status FROM webhook_deliveries WHERE endpoint_id = ?',
    )
      .bind(webhookId)
      .first<{ next_attempt_at: number; updated_at: number; last_status: number }>();
    expect(delivery!.last_status).toBe(429);
    expect(delivery!.next_attempt_at - delivery!.updated_at).toBeGreaterThanOrEqual(120_000);
    // Not before: a sweep now finds nothing due.
    await cron('* * * * *');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hook.sent()).toHaveLength(1);
  });

  it('three days without a success disable the endpoint, and a delivery stops retrying after three days', async () => {
    const tenant = await createTenant({ scopes: ['execute'] });
    const hook = receiver(() => new Response('down', { status: 503 }));
    const { webhook_id: webhookId } = await endpoint(tenant.workspaceId, hook.url, ['execution.completed']);
    // It has failed since three days ago (moved in the row, rather than waited for).
    await env.DB.prepare('UPDATE webhook_endpoints SET failing_since = ? WHERE id = ?')
      .bind(Date.now() - 3 * 24 * 3600 * 1000 - 1000, webhookId)
      .run();
    await execute(tenant.token, executeBody());
    await waitFor(
      async () =>
        (
          await env.DB.prepare('SELECT status FROM webhook_endpoints WHERE id = ?')
            .bind(webhookId)
            .first<{ status: string }>()
        )?.status === 'disabled',
    );
    expect(
      await env.DB.prepare('SELECT disabled_reason FROM webhook_endpoints WHERE id = ?').bind(webhookId).first(),
    ).toEqual({ disabled_reason: 'failing' });
    expect(
      await env.DB.prepare('SELECT status FROM webhook_deliveries WHERE endpoint_id = ?').bind(webhookId).first(),
    ).toEqual({ status: 'paused' });

    const other = await endpoint(tenant.workspaceId, receiver(() => new Response('down', { status: 503 })).url, [
      'execution.completed',
    ]);
    const old = Date.now() - 3 * 24 * 3600 * 1000 + 500;
    await env.DB.prepare(
      "INSERT INTO events (id, workspace_id, type, data, created_at) VALUES (?, ?, 'execution.completed', '{}', ?)",
    )
      .bind(`evt_threedaysold${old}`, tenant.workspaceId, old)
      .run();
    await env.DB.prepare('UPDATE webhook_deliveries SET next_attempt_at = ? WHERE event_id = ?')
      .bind(Date.now() - 60_000, `evt_threedaysold${old}`)
      .run();
    await cron('* * * * *');
    await waitFor(
      async () =>
        (
          await env.DB.prepare('SELECT status FROM webhook_deliveries WHERE endpoint_id = ? AND event_id = ?')
            .bind(other.webhook_id, `evt_threedaysold${old}`)
            .first<{ status: string }>()
        )?.status === 'failed',
    );
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
        const id = `evt_hang${index}${Date.now().toString(36)}`;
        await env.DB.prepare(
          "INSERT INTO events (id, workspace_id, type, data, created_at) VALUES (?, ?, 'execution.completed', '{}', ?)",
        )
          .bind(id, workspaceId, Date.now() - 1000)
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
      const started = Date.now();
      await worker.queue!(batch, env, context);
      // The consumer only handed over: it returned long before the slow receiver could answer.
      expect(Date.now() - started).toBeLessThan(2_000);
      expect((await getQueueResult(batch, context)).explicitAcks.sort()).toEqual(['m0', 'm1', 'm2', 'm3']);
      await waitFor(
        async () =>
          (
            await env.DB.prepare('SELECT status FROM webhook_deliveries WHERE endpoint_id = ?')
              .bind(healthyId)
              .first<{ status: string }>()
          )?.status === 'delivered',
        10_000,
      );
      // Delivered and recorded while every slow request is still waiting for its answer.
      expect(
        await env.DB.prepare('SELECT COUNT(*) AS n FROM webhook_attempts WHERE endpoint_id = ?').bind(slowId).first(),
      ).toEqual({ n: 0 });
      await waitFor(
        async () =>
          (
            await env.DB.prepare(
              "SELECT COUNT(*) AS n FROM webhook_deliveries WHERE endpoint_id = ? AND status = 'delivered'",
            )
              .bind(slowId)
              .first<{ n: number }>()
          )?.n === 3,
        15_000,
      );
      expect(slowCalls).toBe(3);
    },
  );
});

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
      await env.DB.prepare('SELECT COUNT(*) AS n FROM webhook_endpoints WHERE workspace_id = ?')
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
      await env.DB.prepare('UPDATE webhook_endpoints SET url = ? WHERE id = ?')
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
            (await env.DB.prepare('SELECT COUNT(*) AS n FROM webhook_attempts WHERE endpoint_id = ?')
              .bind(id)
              .first<{ n: number }>())!.n >= 1,
        );
      }
      const attempts = await env.DB.prepare(
        'SELECT endpoint_id, status_code, error FROM webhook_attempts WHERE endpoint_id IN (?, ?)',
      )
        .bind(moved.webhook_id, redirecting.webhook_id)
        .all<{ endpoint_id: string; error: string }>();
      for (const attempt of attempts.results) expect(attempt.error).toMatch(/egress guard/);
      expect(connections.filter((connection) => connection.url.includes('169.254'))).toEqual([]);
      expect(redirects.sent()).toHaveLength(1);
      expect(connections.filter((connection) => connection.url.startsWith('https://127.0.0.1'))).toEqual([]);
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
        await env.DB.prepare('SELECT status FROM leads WHERE id = ?').bind(envelope.output.result.lead_id).first(),
      ).toEqual({ status: 'open' });
      expect((await execute(tenant.token, executeBody({ text: 'And the next request too.' }))).status).toBe(200);
      release();
    },
  );
});

describe('lead events from the workbench', () => {
  it('lead.claimed and lead.status_changed reach the lead’s workspace, without contact details', async () => {
    const owner = await createTenant({ scopes: ['execute', 'leads:write', 'channels:read', 'channels:write'] });
    const hook = receiver();
    const { secret } = await endpoint(owner.workspaceId, hook.url, ['lead.claimed', 'lead.status_changed']);
    const domain = `hooks-${Date.now().toString(36)}`;
    expect((await call('/api/admin/domains', { token: ADMIN_TOKEN, body: { domain, name: domain } })).status).toBe(201);
    const expert = await createActiveExpert({ domains: [domain] });
    const channel = await createChannel(owner.token, { domain });
    const lead = await visitorSays(channel, {
      message: { text: 'Lead for the workbench events.' },
      contact: { email: 'visitor@example.com' },
      trigger: 'lead_capture',
    });
    expect(
      (await sessionCall(expert.cookie, `/api/provider/workbench/leads/${lead.lead_id}/claim`, { method: 'POST' }))
        .status,
    ).toBe(200);
    expect(
      (
        await sessionCall(expert.cookie, `/api/provider/workbench/leads/${lead.lead_id}/status`, {
          body: { status: 'contacted', note: 'Called visitor@example.com' },
        })
      ).status,
    ).toBe(200);
    await waitFor(() => hook.sent().length === 2);
    const received = hook
      .sent()
      .map(
        (sent) =>
          new Webhook(secret).verify(sent.body, headersOf(sent)) as { type: string; data: Record<string, unknown> },
      );
    expect(received.map((event) => event.type).sort()).toEqual(['lead.claimed', 'lead.status_changed']);
    expect(received.find((event) => event.type === 'lead.status_changed')!.data).toMatchObject({
      lead_id: lead.lead_id,
      from: 'claimed',
      to: 'contacted',
    });
    for (const sent of hook.sent()) expect(sent.body).not.toContain('visitor@example.com');
  });
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
        Math.floor(Date.now() / 1000) - 10 * 60,
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

describe('endpoints: admin API and the owners’ console', () => {
  let tenant: Tenant;
  beforeEach(async () => {
    tenant = await createTenant({ scopes: ['execute'] });
  });

  it(
    'create shows the secret once; list never does; disable pauses deliveries; enable sends what waited; redeliver ' +
      'sends the same event again',
    async () => {
      const hook = receiver();
      const created = await call('/api/admin/webhooks', {
        token: ADMIN_TOKEN,
        body: { workspace_id: tenant.workspaceId, url: hook.url, event_types: ['execution.completed'] },
      });
      expect(created.headers.get('Cache-Control')).toBe('no-store');
      const { webhook_id: webhookId, secret } = await json(created);
      const listed = await (
        await call(`/api/admin/webhooks?workspace_id=${tenant.workspaceId}`, { token: ADMIN_TOKEN })
      ).text();
      expect(listed).not.toContain(secret);
      expect(
        JSON.stringify(await env.DB.prepare('SELECT * FROM webhook_endpoints WHERE id = ?').bind(webhookId).first()),
      ).not.toContain(secret.slice(6, 20));

      await execute(tenant.token, executeBody());
      await waitFor(() => hook.sent().length === 1);
      expect(
        (await call(`/api/admin/webhooks/${webhookId}/disable`, { method: 'POST', token: ADMIN_TOKEN })).status,
      ).toBe(200);
      await execute(tenant.token, executeBody({ text: 'While disabled.' }));
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(hook.sent()).toHaveLength(1);
      expect(
        (await call(`/api/admin/webhooks/${webhookId}/enable`, { method: 'POST', token: ADMIN_TOKEN })).status,
      ).toBe(200);
      await waitFor(() => hook.sent().length === 2);

      const eventId = hook.sent()[0]!.headers.get('webhook-id')!;
      const again = await call(`/api/admin/webhooks/${webhookId}/deliveries/${eventId}/redeliver`, {
        method: 'POST',
        token: ADMIN_TOKEN,
      });
      expect(await json(again)).toEqual({ webhook_id: webhookId, event_id: eventId, status: 'pending' });
      await waitFor(() => hook.sent().length === 3);
      expect(hook.sent()[2]!.headers.get('webhook-id')).toBe(eventId);
      await expectProblem(
        await call(`/api/admin/webhooks/${webhookId}/deliveries/evt_neverhere/redeliver`, {
          method: 'POST',
          token: ADMIN_TOKEN,
        }),
        404,
        'not_found',
      );
      await expectProblem(
        await call(`/api/admin/webhooks`, {
          token: ADMIN_TOKEN,
          body: { workspace_id: tenant.workspaceId, url: hook.url, event_types: ['lead.teleported'] },
        }),
        422,
        'validation_failed',
      );
      await expectProblem(
        await call(`/api/admin/webhooks`, {
          token: ADMIN_TOKEN,
          body: { workspace_id: 'ws_doesnotexist', url: hook.url, event_types: ['lead.created'] },
        }),
        404,
        'not_found',
      );
    },
  );

  it(
    'owners read their endpoints and delivery log in the console; members cannot; another workspace’s ' + 'is 404',
    async () => {
      const { signUpOwner } = await import('./console-helpers');
      const owner = await signUpOwner();
      const hook = receiver((attempt) => new Response(null, { status: attempt === 1 ? 500 : 204 }));
      const { webhook_id: webhookId } = await endpoint(owner.workspaceId, hook.url, [
        'provider.status_changed',
        'lead.created',
      ]);
      const page = await (await getPage(`/integrations/webhooks?ws=${owner.workspaceId}`, owner.cookie)).text();
      expect(page).toContain(hook.url);
      expect(page).toContain('provider.status_changed, lead.created');
      expect(page).not.toMatch(/whsec_[A-Za-z0-9+/]{16,}/);
      const gone = await endpoint(owner.workspaceId, receiver(() => new Response(null, { status: 410 })).url, [
        'lead.created',
      ]);
      await env.DB.prepare(
        "UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = 'failing', disabled_at = ? WHERE id = ?",
      )
        .bind(Date.now(), gone.webhook_id)
        .run();
      expect(await (await getPage(`/integrations/webhooks?ws=${owner.workspaceId}`, owner.cookie)).text()).toContain(
        'because every delivery to it failed for 3 days',
      );

      // A failing endpoint is a warning, in its pill and its banner, not a piece of information.
      await env.DB.prepare('UPDATE webhook_endpoints SET failing_since = ? WHERE id = ?')
        .bind(Date.now() - 3_600_000, webhookId)
        .run();
      const log = await getPage(`/integrations/webhooks/${webhookId}?ws=${owner.workspaceId}`, owner.cookie);
      expect(log.status).toBe(200);
      const logPage = await log.text();
      expect(logPage).toMatch(/<div class="alert warning" role="alert">Failing since /);
      expect(logPage).toContain('<span class="pill status-failing">failing</span>');
      const other = await signUpOwner();
      expect((await getPage(`/integrations/webhooks/${webhookId}?ws=${other.workspaceId}`, other.cookie)).status).toBe(
        404,
      );
      // There is nothing to change here: changes go through provisioning.
      expect(
        (await postForm(`/integrations/webhooks/${webhookId}?ws=${owner.workspaceId}`, {}, { cookie: owner.cookie }))
          .status,
      ).toBe(404);
    },
  );
});
