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
import { clock, moveClockForTests } from '../../worker/lib/clock';
import { IDEMPOTENCY_TTL_MS } from '../../worker/platform/core/idempotency';
import { platformDb } from './platform-db';

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
    // Acknowledged, not retried: once a message sent after it is handled, the first was seen once
    // (the queue delivers in order; the explicit ack itself is the next test's).
    await env.EVENTS.send({ kind: 'no-such-job', marker: 'entry-points-test-2' });
    await vi.waitUntil(() => dropped().length > 1, { timeout: 5000 });
    expect(dropped()).toHaveLength(2);
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
    moveClockForTests(IDEMPOTENCY_TTL_MS);
    await execute(tenant.token, executeBody({ idempotency_key: 'sweep-fresh' }));
    await platformDb
      .prepare("INSERT INTO rate_limit_windows (key_id, window_start, count) VALUES ('sweep:stale', ?, 3)")
      .bind(clock.now() - 2 * 86_400_000)
      .run();

    const controller = createScheduledController({ scheduledTime: clock.now(), cron: '*/5 * * * *' });
    const context = createExecutionContext();
    await worker.scheduled(controller, env, context);
    await waitOnExecutionContext(context);

    const keys = await platformDb
      .prepare('SELECT idempotency_key FROM idempotency_records WHERE key_id = ?')
      .bind(tenant.keyId)
      .all<{ idempotency_key: string }>();
    expect(keys.results.map((row) => row.idempotency_key)).toEqual(['sweep-fresh']);
    expect(
      await platformDb.prepare("SELECT COUNT(*) AS n FROM rate_limit_windows WHERE key_id = 'sweep:stale'").first(),
    ).toEqual({ n: 0 });
    // The key's own live window stays.
    expect(
      await platformDb
        .prepare('SELECT COUNT(*) AS n FROM rate_limit_windows WHERE key_id = ?')
        .bind(tenant.keyId)
        .first(),
    ).toEqual({ n: 1 });
  });
});
