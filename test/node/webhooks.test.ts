/**
 * Webhooks against the real `wrangler dev` (its queue, its D1): a local receiver, reached on
 * loopback only because the test worker sets ALLOW_LOOPBACK_EGRESS, verifies every delivery
 * with the npm `standardwebhooks` library. It gets lead.created, lead.claimed and
 * lead.status_changed after a widget message, a claim and a status change; a receiver that fails
 * three times gets the event on the fourth attempt. The load run (1,000 events, half of whose
 * first attempts fail) is `npm run bench -- webhooks`.
 */
import { confirmEmailOverHttp } from './account-helpers';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, inject, it, vi } from 'vitest';

const worker = inject('workerUrl');
const adminToken = inject('adminToken');
const SITE = 'https://shop.example.com';

async function api(
  path: string,
  init: { method?: string; token?: string; cookie?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { Origin: worker, ...init.headers };
  if (init.token) headers.Authorization = `Bearer ${init.token}`;
  if (init.cookie) headers.Cookie = `egw_session=${init.cookie}`;
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${worker}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  if (response.status >= 400) throw new Error(`${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

interface Delivery {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, any>;
  attempt: number;
}

/** A receiver on loopback: verifies each request, then answers as `decide` says (perhaps after a while). */
async function startReceiver(decide: (webhookId: string, attempt: number) => number | Promise<number>) {
  let secret = '';
  const attempts = new Map<string, number>();
  const delivered: Array<Delivery & { receivedAt: number }> = [];
  const rejected: string[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', async () => {
      const receivedAt = Date.now();
      let event: Omit<Delivery, 'attempt'>;
      try {
        event = new Webhook(secret).verify(
          body,
          request.headers as IncomingHttpHeaders & Record<string, string>,
        ) as Omit<Delivery, 'attempt'>;
      } catch (error) {
        rejected.push(String(error));
        response.writeHead(401).end();
        return;
      }
      const webhookId = String(request.headers['webhook-id']);
      const attempt = (attempts.get(webhookId) ?? 0) + 1;
      attempts.set(webhookId, attempt);
      const status = await decide(webhookId, attempt);
      if (status < 300) delivered.push({ ...event, attempt, receivedAt });
      if (!response.destroyed) response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    useSecret: (value: string) => (secret = value),
    attempts,
    delivered,
    rejected,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function newWorkspace(scopes: string[]) {
  const org = await api('/api/admin/organizations', {
    token: adminToken,
    body: { name: `Hooks ${Date.now().toString(36)}` },
  });
  const key = await api('/api/admin/api-keys', {
    token: adminToken,
    body: { workspace_id: org.workspace_id, name: 'hooks', scopes, rate_limit_per_minute: 100_000 },
  });
  return { workspaceId: org.workspace_id as string, token: key.token as string };
}

describe('webhooks through the real wrangler dev', () => {
  const receivers: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    for (const receiver of receivers) await receiver.close();
  });

  it('a widget message, a claim and a status change reach a local receiver as signed lead events', async () => {
    const receiver = await startReceiver(() => 204);
    receivers.push(receiver);
    const tenant = await newWorkspace(['execute', 'leads:write', 'channels:read', 'channels:write']);
    const hook = await api('/api/admin/webhooks', {
      token: adminToken,
      body: {
        workspace_id: tenant.workspaceId,
        url: receiver.url,
        event_types: ['lead.created', 'lead.claimed', 'lead.status_changed'],
      },
    });
    receiver.useSecret(hook.secret);

    const domain = `hooks-${Date.now().toString(36)}`;
    await api('/api/admin/domains', { token: adminToken, body: { domain, name: 'Hooks' } });
    const channel = await api('/api/integrations/channels', {
      token: tenant.token,
      body: { name: 'Hooks site', domain, allowed_origins: [SITE] },
    });
    // An expert for that domain: signs up, submits, is approved.
    const email = `hooks.${Date.now().toString(36)}@example.com`;
    const signUp = await fetch(`${worker}/auth/sign-up`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: worker },
      body: new URLSearchParams({ email, password: 'a long and unusual passphrase 42', role: 'provider' }).toString(),
    });
    const cookie = /egw_session=([^;]+)/.exec(signUp.headers.getSetCookie().join('\n'))![1]!;
    await confirmEmailOverHttp(email);
    const profile = await api('/api/provider/profile', {
      cookie,
      body: {
        kind: 'expert',
        display_name: 'Hook Expert',
        headline: 'Claims leads',
        accepted_scope: { domains: [domain], topics: [] },
        languages: ['en'],
        regions: ['global'],
        submit: true,
      },
    });
    await api(`/api/admin/providers/${profile.provider_id}/approve`, {
      token: adminToken,
      body: { version: profile.version },
    });

    const intake = await api(`/api/public/widget/${channel.channel_key}/intake`, {
      body: { message: { text: 'Can someone help with my VAT return?' } },
      headers: { Origin: SITE },
    });
    await api(`/api/provider/workbench/leads/${intake.lead_id}/claim`, { method: 'POST', cookie });
    await api(`/api/provider/workbench/leads/${intake.lead_id}/status`, { cookie, body: { status: 'contacted' } });

    await vi.waitUntil(() => receiver.delivered.length >= 3, { timeout: 30_000, interval: 100 });
    expect(receiver.rejected).toEqual([]);
    const byType = Object.fromEntries(receiver.delivered.map((event) => [event.type, event]));
    expect(Object.keys(byType).sort()).toEqual(['lead.claimed', 'lead.created', 'lead.status_changed']);
    expect(byType['lead.created']!.data).toMatchObject({
      lead_id: intake.lead_id,
      status: 'open',
      channel_key: channel.channel_key,
    });
    expect(byType['lead.claimed']!.data).toMatchObject({
      lead_id: intake.lead_id,
      status: 'claimed',
      claimed_by: { provider_id: profile.provider_id },
    });
    expect(byType['lead.status_changed']!.data).toMatchObject({
      lead_id: intake.lead_id,
      from: 'claimed',
      to: 'contacted',
    });
  });

  it('a receiver that hangs holds up no other tenant: the healthy one gets each event within 5 s', async () => {
    // Workspace A's receiver holds each request 15 s, then answers 500 (and is retried meanwhile).
    const hanging = await startReceiver(() => new Promise((resolve) => setTimeout(() => resolve(500), 15_000)));
    const healthy = await startReceiver(() => 204);
    receivers.push(hanging, healthy);
    const [slowTenant, healthyTenant] = [await newWorkspace(['execute']), await newWorkspace(['execute'])];
    for (const [tenant, receiver] of [
      [slowTenant, hanging],
      [healthyTenant, healthy],
    ] as const) {
      const hook = await api('/api/admin/webhooks', {
        token: adminToken,
        body: { workspace_id: tenant.workspaceId, url: receiver.url, event_types: ['execution.completed'] },
      });
      receiver.useSecret(hook.secret);
    }
    const execute = (token: string, text: string) =>
      api('/api/execute', {
        token,
        body: { domain: 'consultation', execution_mode: 'sync', required_scopes: ['execute'], text },
      });
    // A's events first, so its receiver is already hanging when B's are made.
    for (let index = 0; index < 5; index++) await execute(slowTenant.token, `Slow ${index}`);
    await vi.waitUntil(() => hanging.attempts.size > 0, { timeout: 10_000, interval: 50 });
    for (let index = 0; index < 10; index++) await execute(healthyTenant.token, `Healthy ${index}`);
    await vi.waitUntil(() => healthy.delivered.length === 10, { timeout: 20_000, interval: 50 });
    const lateness = healthy.delivered.map((event) => event.receivedAt - Date.parse(event.created_at));
    expect(Math.max(...lateness), `lateness: ${lateness.join(', ')} ms`).toBeLessThan(5_000);
    expect(hanging.delivered).toEqual([]); // Still hanging, or failed: never answered in time.
  });

  it('a receiver that fails three times gets the event on the fourth attempt, with the same webhook-id', async () => {
    const receiver = await startReceiver((_id, attempt) => (attempt <= 3 ? 500 : 200));
    receivers.push(receiver);
    const tenant = await newWorkspace(['execute']);
    const hook = await api('/api/admin/webhooks', {
      token: adminToken,
      body: { workspace_id: tenant.workspaceId, url: receiver.url, event_types: ['execution.completed'] },
    });
    receiver.useSecret(hook.secret);
    const envelope = await api('/api/execute', {
      token: tenant.token,
      body: { domain: 'consultation', execution_mode: 'sync', required_scopes: [], text: 'Retry me.' },
    });
    await vi.waitUntil(() => receiver.delivered.length === 1, { timeout: 60_000, interval: 100 });
    expect(receiver.delivered[0]).toMatchObject({
      type: 'execution.completed',
      attempt: 4,
      data: { execution_id: envelope.output.execution_id },
    });
    expect([...receiver.attempts.values()]).toEqual([4]);
    const log = await api(`/api/admin/webhooks/${hook.webhook_id}/deliveries`, { token: adminToken });
    expect(log.data.map((entry: { status_code: number }) => entry.status_code)).toEqual([200, 500, 500, 500]);
  });
});
