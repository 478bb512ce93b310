/** Helpers of the data lifecycle's tests (lifecycle.test.ts, privacy.cases.ts). */
import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from 'cloudflare:test';
import { vi } from 'vitest';
import worker from '../../worker/index';
import { clock } from '../../worker/lib/clock';
import { gunzipNdjson } from '../../worker/platform/lifecycle';
import { ADMIN_TOKEN, call, json } from './helpers';
import { platformDb } from './platform-db';

/** Runs the housekeeping cron (every 5 minutes) at the test clock's now. */
export async function housekeeping() {
  const context = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: clock.now(), cron: '*/5 * * * *' }), env, context);
  await waitOnExecutionContext(context);
}

/** The rows of every archived object of a workspace and class, read back from R2. */
export async function archived(workspaceId: string, kind: string) {
  const keys = await platformDb
    .prepare('SELECT key FROM archive_objects WHERE workspace_id = ? AND kind = ? ORDER BY key')
    .bind(workspaceId, kind)
    .all<{ key: string }>();
  const rows = [];
  for (const { key } of keys.results)
    rows.push(...(await gunzipNdjson(await (await env.ARCHIVE.get(key))!.arrayBuffer())));
  return rows;
}

/** A privacy request read back until its job is done (the events queue runs it). */
export async function settled(id: string, workspaceId: string) {
  let body: Record<string, any> = {};
  await vi.waitUntil(
    async () => {
      const response = await call(`/api/privacy/requests/${id}?workspace_id=${workspaceId}`, { token: ADMIN_TOKEN });
      body = await json(response);
      return body.status === 'done';
    },
    { timeout: 10_000, interval: 50 },
  );
  return body;
}
