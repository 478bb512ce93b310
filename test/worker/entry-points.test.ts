/**
 * The Worker's entry points beyond HTTP: the events queue (a real send reaches the real
 * consumer), the cron trigger's sweep, and the conversation Durable Object's live fan-out.
 */
import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  env,
  getQueueResult,
  waitOnExecutionContext,
} from 'cloudflare:test';
import { describe, expect, it, vi } from 'vitest';
import worker from '../../worker/index';
import { createTenant, execute, executeBody } from './helpers';

describe('the events queue', () => {
  it('a message sent on EVENTS reaches the consumer, which acknowledges what it cannot handle', async () => {
    const log = vi.spyOn(console, 'log');
    await env.EVENTS.send({ kind: 'no-such-job', marker: 'entry-points-test' });
    const dropped = () =>
      log.mock.calls.map(([line]) => String(line)).filter((line) => line.includes('queue_message_dropped'));
    await vi.waitUntil(() => dropped().length > 0, { timeout: 5000 });
    expect(JSON.parse(dropped()[0]!)).toMatchObject({
      level: 'warn',
      message: 'queue_message_dropped',
      queue: 'events',
      kind: 'no-such-job',
    });
    // Acknowledged, not retried: it arrives once.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(dropped()).toHaveLength(1);
    log.mockRestore();
  });

  it('the consumer acks each message of a batch', async () => {
    const batch = createMessageBatch('events', [
      { id: 'm1', timestamp: new Date(), attempts: 1, body: { kind: 'unknown' } },
    ]);
    const context = createExecutionContext();
    await worker.queue(batch, env, context);
    const result = await getQueueResult(batch, context);
    expect(result.explicitAcks).toEqual(['m1']);
    expect(result.retryMessages).toEqual([]);
  });
});

describe('the cron trigger', () => {
  it('purges expired idempotency records, ended sessions and old windows, and nothing else', async () => {
    const tenant = await createTenant();
    await execute(tenant.token, executeBody({ idempotency_key: 'sweep-old' }));
    await execute(tenant.token, executeBody({ idempotency_key: 'sweep-fresh' }));
    await env.DB.prepare(
      "UPDATE idempotency_records SET expires_at = ? WHERE key_id = ? AND idempotency_key = 'sweep-old'",
    )
      .bind(Date.now() - 1, tenant.keyId)
      .run();
    await env.DB.prepare("INSERT INTO rate_limit_windows (key_id, window_start, count) VALUES ('sweep:stale', ?, 3)")
      .bind(Date.now() - 2 * 86_400_000)
      .run();

    const controller = createScheduledController({ scheduledTime: Date.now(), cron: '*/5 * * * *' });
    const context = createExecutionContext();
    await worker.scheduled(controller, env, context);
    await waitOnExecutionContext(context);

    const keys = await env.DB.prepare('SELECT idempotency_key FROM idempotency_records WHERE key_id = ?')
      .bind(tenant.keyId)
      .all<{ idempotency_key: string }>();
    expect(keys.results.map((row) => row.idempotency_key)).toEqual(['sweep-fresh']);
    expect(
      await env.DB.prepare("SELECT COUNT(*) AS n FROM rate_limit_windows WHERE key_id = 'sweep:stale'").first(),
    ).toEqual({ n: 0 });
    // The key's own live window stays.
    expect(
      await env.DB.prepare('SELECT COUNT(*) AS n FROM rate_limit_windows WHERE key_id = ?').bind(tenant.keyId).first(),
    ).toEqual({ n: 1 });
  });
});

describe('the conversation room (Durable Object)', () => {
  it('accepts WebSockets and fans a message out to every one of them', async () => {
    const room = env.CONVERSATIONS.get(env.CONVERSATIONS.idFromName('cnv_entry_points_test'));
    const connect = async () => {
      const response = await room.fetch('http://room/live', { headers: { Upgrade: 'websocket' } });
      expect(response.status).toBe(101);
      const socket = response.webSocket!;
      socket.accept();
      const received: string[] = [];
      socket.addEventListener('message', (event) => received.push(String(event.data)));
      return { socket, received };
    };
    const [first, second] = [await connect(), await connect()];
    const reached = await (room as unknown as { broadcast(message: string): Promise<number> }).broadcast(
      '{"hello":"world"}',
    );
    expect(reached).toBe(2);
    await vi.waitUntil(() => first.received.length === 1 && second.received.length === 1);
    expect(first.received).toEqual(['{"hello":"world"}']);
    first.socket.close();
    second.socket.close();
  });

  it('refuses a request that is not an upgrade', async () => {
    const room = env.CONVERSATIONS.get(env.CONVERSATIONS.idFromName('cnv_entry_points_plain'));
    expect((await room.fetch('http://room/live')).status).toBe(426);
  });
});
