/**
 * The Worker's entry points beyond HTTP: the events queue (a real send reaches the real
 * consumer) and the cron trigger's sweep. The conversation room has its own file (live.test.ts).
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
