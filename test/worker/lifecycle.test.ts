/**
 * The data lifecycle (docs/design/data-lifecycle.md): the housekeeping cron archives expired
 * events, audit rows and requests' bodies to R2 (the local bucket of the test pool) before it
 * removes them; an R2 that refuses keeps everything; a second run does nothing more; a tick is
 * bounded. The test clock moves past each retention: no stored timestamp is rewritten.
 */
import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from 'cloudflare:test';
import { afterAll, describe, expect, it } from 'vitest';
import worker from '../../worker/index';
import { clock, moveClockForTests, resetClockForTests } from '../../worker/lib/clock';
import { createDatabase } from '../../worker/lib/db';
import { archiveExpired, gunzipNdjson, retentionFrom } from '../../worker/platform/lifecycle';
import { createTenant, execute, executeBody } from './helpers';

const DAY = 24 * 60 * 60 * 1000;
// The clock only moves forward in this file: ids sort by the time they were minted, and an
// isolate never mints one earlier than its last (so a clock moved back would mint "future" ids).
afterAll(() => resetClockForTests());

const count = async (sql: string, ...bind: unknown[]) =>
  (await env.DB.prepare(sql)
    .bind(...bind)
    .first<{ n: number }>())!.n;

async function housekeeping() {
  const context = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: clock.now(), cron: '*/5 * * * *' }), env, context);
  await waitOnExecutionContext(context);
}

/** The rows of every archived object of a workspace and class, read back from R2. */
async function archived(workspaceId: string, kind: string) {
  const keys = await env.DB.prepare('SELECT key FROM archive_objects WHERE workspace_id = ? AND kind = ? ORDER BY key')
    .bind(workspaceId, kind)
    .all<{ key: string }>();
  const rows = [];
  for (const { key } of keys.results)
    rows.push(...(await gunzipNdjson(await (await env.ARCHIVE.get(key))!.arrayBuffer())));
  return rows;
}

/** A workspace with one execution (its events, audit row and stored request) made now. */
async function workspaceWithHistory(text: string) {
  const tenant = await createTenant();
  const response = await execute(tenant.token, executeBody({ text }));
  expect(response.status).toBe(200);
  return tenant;
}

describe('retention', () => {
  it('archives expired events and requests’ bodies before removing them; a second run does nothing more', async () => {
    const old = await workspaceWithHistory('An old question about invoices.');
    const events = () => count('SELECT COUNT(*) AS n FROM events WHERE workspace_id = ?', old.workspaceId);
    const eventsBefore = await events();
    expect(eventsBefore).toBeGreaterThan(0);
    moveClockForTests(91 * DAY);
    const fresh = await workspaceWithHistory('A fresh question about invoices.');
    await housekeeping();

    expect(await events()).toBe(0);
    const archivedEvents = await archived(old.workspaceId, 'events');
    expect(archivedEvents).toHaveLength(eventsBefore);
    expect(archivedEvents[0]).toMatchObject({ id: expect.stringMatching(/^evt_/), type: expect.any(String) });
    // The request's body went to the archive; the demand and its execution stay (the ledger names them).
    expect(await archived(old.workspaceId, 'executions')).toEqual([
      expect.objectContaining({ text: 'An old question about invoices.' }),
    ]);
    expect(
      await env.DB.prepare('SELECT text FROM demands WHERE workspace_id = ?').bind(old.workspaceId).all(),
    ).toMatchObject({ results: [{ text: null }] });
    expect(await count('SELECT COUNT(*) AS n FROM executions WHERE workspace_id = ?', old.workspaceId)).toBe(1);
    // The fresh workspace keeps everything; audit rows stay 400 days.
    expect(
      await count('SELECT COUNT(*) AS n FROM demands WHERE workspace_id = ? AND text IS NOT NULL', fresh.workspaceId),
    ).toBe(1);
    expect(await count('SELECT COUNT(*) AS n FROM audit_log WHERE workspace_id = ?', old.workspaceId)).toBeGreaterThan(
      0,
    );

    const objects = await count('SELECT COUNT(*) AS n FROM archive_objects');
    const again = await archiveExpired(createDatabase(env.DB), env.ARCHIVE, retentionFrom({}), clock.now());
    expect(again).toEqual({ events: 0, audit: 0, executions: 0, refused: 0 });
    expect(await count('SELECT COUNT(*) AS n FROM archive_objects')).toBe(objects);

    moveClockForTests(310 * DAY);
    await housekeeping();
    expect(await count('SELECT COUNT(*) AS n FROM audit_log WHERE workspace_id = ?', old.workspaceId)).toBe(0);
    expect((await archived(old.workspaceId, 'audit')).length).toBeGreaterThan(0);
  });

  it('an archive that refuses removes nothing; a tick is bounded', async () => {
    const tenant = await workspaceWithHistory('A question kept while R2 is down.');
    for (let index = 0; index < 3; index++)
      expect((await execute(tenant.token, executeBody({ text: `More ${index}` }))).status).toBe(200);
    moveClockForTests(91 * DAY);
    const db = createDatabase(env.DB);
    const events = () => count('SELECT COUNT(*) AS n FROM events WHERE workspace_id = ?', tenant.workspaceId);
    const before = await events();
    const refusing = { put: () => Promise.reject(new Error('R2 is down')), get: async () => null };
    const refused = await archiveExpired(db, refusing, retentionFrom({}), clock.now());
    expect(refused.refused).toBeGreaterThan(0);
    expect([refused.events, refused.executions]).toEqual([0, 0]);
    expect(await events()).toBe(before);
    expect(
      await count('SELECT COUNT(*) AS n FROM demands WHERE workspace_id = ? AND text IS NOT NULL', tenant.workspaceId),
    ).toBe(4);

    const bounded = await archiveExpired(db, env.ARCHIVE, retentionFrom({}), clock.now(), 2);
    expect(bounded.events + bounded.audit + bounded.executions).toBeLessThanOrEqual(2);
    expect(await events()).toBe(before - bounded.events);
  });

  it('takes its periods from the settings, within bounds', () => {
    expect(retentionFrom({ RETENTION_EVENTS_DAYS: 7, RETENTION_AUDIT_DAYS: 0 })).toMatchObject({
      events: 7,
      audit: 400,
    });
  });
});
