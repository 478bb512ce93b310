import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  eventInserts,
  eventInsertWhere,
  eventSchema,
  newEvent,
  takeCommittedEvents,
} from '../../worker/platform/events';
import { createTenant, execute, executeBody, json, shardDb, workerDb } from './helpers';
import { endpoint, receiver } from './webhook-helpers';
import { rollUp } from '../../worker/platform/rollups';
import { createActiveExpert, createChannel, review, sessionCall, visitorSays } from './provider-helpers';
import { clock } from '../../worker/lib/clock';
import { platformDb } from './platform-db';

describe('every event matches its schema', () => {
  it('the events of an execution, an intake, a claim, a status change and a review all parse', async () => {
    const tenant = await createTenant({ scopes: ['execute', 'leads:write', 'channels:write'] });
    const expert = await createActiveExpert();
    await execute(
      tenant.token,
      executeBody({
        session_id: 'typed-events',
        required_scopes: ['execute', 'leads:write'],
      }),
    );
    const channelKey = await createChannel(tenant.token);
    const intake = await visitorSays(channelKey, {
      message: { text: 'Typed events, please.' },
      attribution: { source_site: 'https://shop.example.com' },
    });
    expect(
      (await sessionCall(expert.cookie, `/api/provider/workbench/leads/${intake.lead_id}/claim`, { method: 'POST' }))
        .status,
    ).toBe(200);
    expect(
      (
        await sessionCall(expert.cookie, `/api/provider/workbench/leads/${intake.lead_id}/status`, {
          body: { status: 'contacted' },
        })
      ).status,
    ).toBe(200);
    expect((await review(expert.providerId, 'suspend', 'Typed events test.')).status).toBe(200);

    const rows = await platformDb
      .prepare('SELECT id, type, created_at, workspace_id, data FROM events WHERE workspace_id = ? ORDER BY id')
      .bind(tenant.workspaceId)
      .all<{ id: string; type: string; created_at: number; workspace_id: string; data: string }>();
    const types = new Set(rows.results.map((row) => row.type));
    for (const type of [
      'execution.completed',
      'intake.received',
      'lead.created',
      'lead.claimed',
      'lead.status_changed',
    ])
      expect(types).toContain(type);
    for (const row of rows.results) {
      const envelope = {
        id: row.id,
        type: row.type,
        created_at: new Date(row.created_at).toISOString(),
        workspace_id: row.workspace_id,
        data: JSON.parse(row.data),
      };
      const parsed = eventSchema.safeParse(envelope);
      expect(parsed.success, `${row.type}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
    }
  });
});

describe('committed ids come back from the batch', () => {
  const data = {
    provider_id: 'prv_x',
    kind: null,
    display_name: null,
    from: 'registered' as const,
    to: 'profile_incomplete' as const,
    changed_at: new Date().toISOString(),
  };

  it('a committed batch reports its events, each once', async () => {
    const db = shardDb();
    const now = clock.now();
    await db.batch([...eventInserts(db, [newEvent('provider.status_changed', 'ws_events_1', data)], now)] as [never]);
    await db.batch([eventInsertWhere(db, newEvent('provider.status_changed', 'ws_events_1', data), sql`1 = 1`, now)]);
    const committed = takeCommittedEvents(db);
    expect(committed.map((event) => [event.workspaceId, event.type])).toEqual([
      ['ws_events_1', 'provider.status_changed'],
      ['ws_events_1', 'provider.status_changed'],
    ]);
    expect(committed[0]!.id).toMatch(/^evt_/);
    expect(takeCommittedEvents(db)).toEqual([]);
  });

  it('a conditional event whose condition fails, and any event of a failed batch, report nothing', async () => {
    const db = shardDb();
    const now = clock.now();
    await db.batch([eventInsertWhere(db, newEvent('provider.status_changed', 'ws_events_2', data), sql`1 = 0`, now)]);
    await expect(
      db.batch([
        ...eventInserts(db, [newEvent('provider.status_changed', 'ws_events_2', data)], now),
        db.run(sql`INSERT INTO no_such_table VALUES (1)`),
      ] as [never]),
    ).rejects.toThrow();
    expect(takeCommittedEvents(db)).toEqual([]);
    expect(
      await platformDb.prepare("SELECT COUNT(*) AS n FROM events WHERE workspace_id = 'ws_events_2'").first(),
    ).toEqual({ n: 0 });
  });
});

describe('the outbox keeps an event while it has a reader', () => {
  it('counted by the rollups, an event no endpoint receives leaves; one with a delivery stays', async () => {
    const quiet = await createTenant();
    const heard = await createTenant();
    await endpoint(heard.workspaceId, receiver().url, ['execution.completed']);
    const quietRun = await json(await execute(quiet.token, executeBody()));
    const heardRun = await json(await execute(heard.token, executeBody()));
    const eventOf = (executionId: string) =>
      platformDb
        .prepare("SELECT id FROM events WHERE json_extract(data, '$.execution_id') = ?")
        .bind(executionId)
        .first();
    // Written in the execution's batch, whoever listens (the live rooms and the rollups read them).
    expect(await eventOf(quietRun.output.execution_id)).not.toBeNull();
    for (let tick = 0; tick < 4; tick++) await rollUp(workerDb());
    expect(await eventOf(quietRun.output.execution_id)).toBeNull();
    expect(await eventOf(heardRun.output.execution_id)).not.toBeNull();
    // Counted before it left: the workspace's insights hold the execution.
    const counted = await platformDb
      .prepare(
        'SELECT sum(value) AS n FROM daily_rollups WHERE workspace_id = ? AND ' +
          "metric = 'executions' AND length(day) = 10",
      )
      .bind(quiet.workspaceId)
      .first<{ n: number }>();
    expect(counted?.n).toBe(1);
  });
});
