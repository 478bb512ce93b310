import { Webhook } from 'standardwebhooks';
import { beforeEach, describe, expect, it } from 'vitest';
import { deliveryEnvironment, endpoint, headersOf, receiver, waitFor } from './webhook-helpers';
import { getPage, postForm } from './console-helpers';
import { ADMIN_TOKEN, call, createTenant, execute, executeBody, expectProblem, json, type Tenant } from './helpers';
import { createActiveExpert, createChannel, sessionCall, visitorSays } from './provider-helpers';
import { clock } from '../../worker/lib/clock';
import { deliverDueToEndpoint } from '../../worker/platform/webhooks';
import { platformDb } from './platform-db';

const eventsOf = async (workspaceId: string) =>
  (
    await platformDb
      .prepare('SELECT type FROM events WHERE workspace_id = ? ORDER BY id')
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
    const executions = await platformDb
      .prepare('SELECT COUNT(*) AS n FROM executions WHERE workspace_id = ?')
      .bind(tenant.workspaceId)
      .first();
    expect(executions).toEqual({ n: 1 });
    const deliveries = await platformDb
      .prepare('SELECT COUNT(*) AS n FROM webhook_deliveries WHERE workspace_id = ?')
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
      await platformDb
        .prepare('SELECT data FROM events WHERE workspace_id = ?')
        .bind(owner.workspaceId)
        .all<{ data: string }>()
    ).results
      .map((row) => row.data)
      .join('\n');
    for (const detail of ['ada@example.com', '7946 0000', '79460000', 'Lovelace'])
      expect(everything).not.toContain(detail);
    // Not in the transcript either, which experts read before anyone claims the lead.
    const transcript = (
      await platformDb
        .prepare('SELECT m.text FROM messages m JOIN leads l ON l.conversation_id = m.conversation_id WHERE l.id = ?')
        .bind(first.lead_id)
        .all<{ text: string }>()
    ).results;
    for (const detail of ['ada@example.com', '7946 0000', '79460000', 'Lovelace'])
      expect(JSON.stringify(transcript)).not.toContain(detail);
    for (const sent of hook.sent())
      for (const detail of ['ada@example.com', '7946 0000', '79460000', 'Lovelace'])
        expect(sent.body).not.toContain(detail);
  });
});

describe('lead events from the workbench', () => {
  it('lead.claimed and lead.status_changed reach the lead’s workspace, without contact details', async () => {
    const owner = await createTenant({ scopes: ['execute', 'leads:write', 'channels:read', 'channels:write'] });
    const hook = receiver();
    const { secret } = await endpoint(owner.workspaceId, hook.url, ['lead.claimed', 'lead.status_changed']);
    const domain = `hooks-${clock.now().toString(36)}`;
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
        JSON.stringify(
          await platformDb.prepare('SELECT * FROM webhook_endpoints WHERE id = ?').bind(webhookId).first(),
        ),
      ).not.toContain(secret.slice(6, 20));

      await execute(tenant.token, executeBody());
      await waitFor(() => hook.sent().length === 1);
      expect(
        (await call(`/api/admin/webhooks/${webhookId}/disable`, { method: 'POST', token: ADMIN_TOKEN })).status,
      ).toBe(200);
      await execute(tenant.token, executeBody({ text: 'While disabled.' }));
      expect(await deliverDueToEndpoint(await deliveryEnvironment(webhookId), webhookId)).toMatchObject({
        attempted: 0,
      });
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
      await platformDb
        .prepare(
          "UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = 'failing', disabled_at = ? WHERE id = ?",
        )
        .bind(clock.now(), gone.webhook_id)
        .run();
      expect(await (await getPage(`/integrations/webhooks?ws=${owner.workspaceId}`, owner.cookie)).text()).toContain(
        'because every delivery to it failed for 3 days',
      );

      // A failing endpoint is a warning, in its pill and its banner, not a piece of information.
      await platformDb
        .prepare('UPDATE webhook_endpoints SET failing_since = ? WHERE id = ?')
        .bind(clock.now(), webhookId)
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
