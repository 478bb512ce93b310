/**
 * Webhook delivery under faults (docs/design/webhooks.md): the sweep nudges each endpoint once
 * however long its backlog; a receiver that keeps failing does not starve its own newer
 * deliveries; a send whose outcome was lost to a crash is logged when it goes again; a refused
 * redirect lets go of its connection. The runs are called directly, on the real D1.
 */
import { env } from 'cloudflare:test';
import { describe, expect, it, vi } from 'vitest';
import { buildServices } from '../../worker/lib/services';
import { newId } from '../../worker/lib/ids';
import { deliverDueToEndpoint, sweepDueDeliveries } from '../../worker/platform/webhooks';
import { createTenant, type Tenant } from './helpers';
import { deliveryEnvironment, endpoint, receiver, untilNextDue } from './webhook-helpers';
import { clock } from '../../worker/lib/clock';
import { platformDb } from './platform-db';

/** Writes `count` events and their pending deliveries to one endpoint (the events' trigger makes them; here shaped). */
async function backlog(
  tenant: Tenant,
  endpointId: string,
  count: number,
  shape: { createdAt: number; nextAttemptAt: number; attempts?: number; unrecordedLeases?: number },
): Promise<string[]> {
  const ids = Array.from({ length: count }, () => newId('evt', shape.createdAt));
  const statements = ids.flatMap((id) => [
    platformDb
      .prepare(
        "INSERT INTO events (id, workspace_id, type, data, created_at) VALUES (?, ?, 'execution.completed', '{}', ?)",
      )
      .bind(id, tenant.workspaceId, shape.createdAt),
    platformDb
      .prepare(
        `INSERT INTO webhook_deliveries (event_id, endpoint_id, workspace_id, status, attempts, next_attempt_at,
        unrecorded_leases, created_at, updated_at) VALUES (?, ?, ?, 'pending', ?, ?, ?, ?, ?)
        ON CONFLICT (event_id, endpoint_id) DO UPDATE SET attempts = excluded.attempts,
          next_attempt_at = excluded.next_attempt_at, unrecorded_leases = excluded.unrecorded_leases,
          created_at = excluded.created_at`,
      )
      .bind(
        id,
        endpointId,
        tenant.workspaceId,
        shape.attempts ?? 0,
        shape.nextAttemptAt,
        shape.unrecordedLeases ?? 0,
        shape.createdAt,
        shape.createdAt,
      ),
  ]);
  await platformDb.batch(statements);
  return ids;
}

describe('webhook delivery under faults', () => {
  it('the sweep nudges each endpoint once, however many of its deliveries are overdue', async () => {
    const tenant = await createTenant();
    const now = clock.now();
    const sent: unknown[] = [];
    const queue = { sendBatch: async (batch: Array<{ body: unknown }>) => void sent.push(...batch.map((m) => m.body)) };
    const endpoints: string[] = [];
    for (let index = 0; index < 2; index++) {
      const hook = receiver();
      const { webhook_id: id } = await endpoint(tenant.workspaceId, hook.url, ['execution.completed']);
      await backlog(tenant, id, 120, { createdAt: now - 600_000, nextAttemptAt: now - 120_000 });
      endpoints.push(id);
    }
    await sweepDueDeliveries(buildServices(env, { kind: 'object' }).db, queue as never, now);
    const mine = sent.filter((body) => endpoints.includes((body as { endpoint_id: string }).endpoint_id));
    expect(mine).toHaveLength(2);
    expect(new Set(mine.map((body) => (body as { endpoint_id: string }).endpoint_id))).toEqual(new Set(endpoints));
  });

  it('a run takes deliveries in the order they fall due: retried old ones wait behind newer ones', async () => {
    const tenant = await createTenant();
    const hook = receiver();
    const { webhook_id: id } = await endpoint(tenant.workspaceId, hook.url, ['execution.completed']);
    const now = clock.now();
    // 25 old deliveries that failed 10 times and are due again just now; 30 newer ones due for 5 minutes.
    const old = await backlog(tenant, id, 25, { createdAt: now - 3_600_000, nextAttemptAt: now - 1000, attempts: 10 });
    const newer = await backlog(tenant, id, 30, { createdAt: now - 300_000, nextAttemptAt: now - 300_000 });
    const run = await deliverDueToEndpoint(await deliveryEnvironment(id), id);
    expect(run.attempted).toBe(20);
    const delivered = (
      await platformDb
        .prepare("SELECT event_id FROM webhook_deliveries WHERE endpoint_id = ? AND status = 'delivered'")
        .bind(id)
        .all<{ event_id: string }>()
    ).results.map((row) => row.event_id);
    expect(delivered.every((eventId) => newer.includes(eventId))).toBe(true);
    expect(delivered.some((eventId) => old.includes(eventId))).toBe(false);
  });

  it('a send whose outcome a crash lost is logged as such when it goes again', async () => {
    const tenant = await createTenant();
    const hook = receiver();
    const { webhook_id: id } = await endpoint(tenant.workspaceId, hook.url, ['execution.completed']);
    const now = clock.now();
    // Leased a minute ago by a runner that stopped before it wrote anything: the lease has run out.
    const [eventId] = await backlog(tenant, id, 1, {
      createdAt: now - 120_000,
      nextAttemptAt: now - 1,
      unrecordedLeases: 1,
    });
    await deliverDueToEndpoint(await deliveryEnvironment(id), id);
    const log = (
      await platformDb
        .prepare('SELECT attempt, status_code, error FROM webhook_attempts WHERE event_id = ? ORDER BY id')
        .bind(eventId)
        .all<{ attempt: number; status_code: number | null; error: string | null }>()
    ).results;
    expect(log).toEqual([
      { attempt: 1, status_code: null, error: expect.stringContaining('ended without a recorded outcome') },
      { attempt: 2, status_code: 204, error: null },
    ]);
    const row = await platformDb
      .prepare('SELECT status, attempts, unrecorded_leases FROM webhook_deliveries WHERE event_id = ?')
      .bind(eventId)
      .first();
    expect(row).toEqual({ status: 'delivered', attempts: 2, unrecorded_leases: 0 });
    // A normal delivery logs one attempt.
    const [plain] = await backlog(tenant, id, 1, { createdAt: now - 1000, nextAttemptAt: now - 1 });
    await deliverDueToEndpoint(await deliveryEnvironment(id), id);
    const plainLog = await platformDb
      .prepare('SELECT COUNT(*) AS n FROM webhook_attempts WHERE event_id = ?')
      .bind(plain)
      .first<{ n: number }>();
    expect(plainLog?.n).toBe(1);
  });

  it('every failing answer lets go of its connection: its body is cancelled, unread', async () => {
    const tenant = await createTenant();
    let cancelled = 0;
    const endless = () =>
      new ReadableStream({
        pull: () => new Promise(() => undefined),
        cancel: () => void cancelled++,
      });
    const hook = receiver((attempt) =>
      attempt === 1
        ? new Response(endless(), { status: 503 })
        : new Response(endless(), { status: 302, headers: { Location: 'https://elsewhere.example.com/' } }),
    );
    const { webhook_id: id } = await endpoint(tenant.workspaceId, hook.url, ['execution.completed']);
    const now = clock.now();
    await backlog(tenant, id, 1, { createdAt: now - 1000, nextAttemptAt: now - 1 });
    await deliverDueToEndpoint(await deliveryEnvironment(id), id);
    await untilNextDue(id);
    await deliverDueToEndpoint(await deliveryEnvironment(id), id);
    await vi.waitUntil(() => cancelled === 2, { timeout: 2000, interval: 20 });
    expect(hook.sent()).toHaveLength(2);
  });
});
