/**
 * Moving an organisation to another shard (docs/design/scale.md#moves): every row copied and the
 * old ones deleted, the escrow's balance carried over once, its writes refused (503, Retry-After)
 * until the switch, and a crash at any step resumed without doing anything twice.
 */
import { env } from 'cloudflare:test';
import { describe, expect, it, vi } from 'vitest';
import { MOVED_TABLES, organizationRows } from '../../worker/platform/moves';
import { credit, expectBalancedBooks, recordContract } from './billing-helpers';
import { clock } from '../../worker/lib/clock';
import { sweepBilling } from '../../worker/platform/billing';
import { rollUp } from '../../worker/platform/rollups';
import { platformDb } from './platform-db';
import { ADMIN_TOKEN, call, createTenant, execute, executeBody, expectProblem, json, workerDb } from './helpers';
import { moveOrganization, moveStep, shardOf } from './move-helpers';
import { createChannel, SITE, visitorSays } from './provider-helpers';

const shardDatabase = (shard: number) => [env.DB_0, env.DB_1][shard]!;

/** The organisation's rows in each moved table of one shard. */
async function rowsOn(shard: number, organizationId: string): Promise<Record<string, number>> {
  const database = shardDatabase(shard);
  const workspaces = await env.DIRECTORY.prepare(
    "SELECT json_group_array(value) AS ids FROM directory_entries WHERE kind = 'workspace' AND organization_id = ?",
  )
    .bind(organizationId)
    .first<string>('ids');
  const counts: Record<string, number> = {};
  for (const spec of MOVED_TABLES)
    counts[spec.table] = (await database
      .prepare(`SELECT count(*) AS n FROM "${spec.table}" WHERE ${organizationRows(spec)}`)
      .bind(organizationId, workspaces)
      .first<number>('n'))!;
  return counts;
}

/** An escrow's balance on one shard's ledger. */
const balanceOn = async (shard: number, escrowId: string) =>
  (await shardDatabase(shard)
    .prepare('SELECT balance_after FROM ledger_entries WHERE account = ? ORDER BY seq DESC LIMIT 1')
    .bind(escrowId)
    .first<number>('balance_after')) ?? 0;

/** A tenant with some of everything: a contract with money, a channel with knowledge, a conversation, webhooks. */
async function busyTenant() {
  const tenant = await createTenant({
    scopes: ['execute', 'leads:write', 'channels:read', 'channels:write', 'knowledge:read', 'knowledge:write'],
  });
  const contract = await recordContract(tenant.workspaceId, {
    allowances: { executions: 2, leads: 10, agent_calls: 10 },
    overage: { executions: { unit_price_minor: 3 } },
    low_balance_minor: 100,
  });
  await credit(contract.escrow_id, 500);
  const channelKey = await createChannel(tenant.token);
  const source = await call('/api/knowledge/sources', {
    token: tenant.token,
    body: {
      kind: 'document',
      title: 'Moving help',
      content_type: 'text/markdown',
      content: '# Moving help\n\n## Parcels\n\nWe carry parcels of up to 30 kilograms between our depots overnight.\n',
    },
  });
  expect(source.status, await source.clone().text()).toBe(201);
  const hook = await call('/api/admin/webhooks', {
    token: ADMIN_TOKEN,
    body: { workspace_id: tenant.workspaceId, url: 'https://hooks.example.com/moves', event_types: ['lead.created'] },
  });
  expect(hook.status).toBe(201);
  const visitor = await visitorSays(channelKey, { message: { text: 'I need an expert for my house move.' } });
  for (let index = 0; index < 3; index++) expect((await execute(tenant.token, executeBody())).status).toBe(200);
  // Swept and counted, as the minute's cron would have: the move's own count (its settle step) adds nothing then.
  await sweepBilling(workerDb(), clock.now());
  for (let tick = 0; tick < 3; tick++) await rollUp(workerDb());
  return { ...tenant, escrowId: contract.escrow_id as string, channelKey, visitorToken: visitor.session_id as string };
}

describe('moving an organisation to another shard', () => {
  it('copies every row, carries the balance over once, leaves nothing behind, and works on its new shard', async () => {
    const tenant = await busyTenant();
    const from = await shardOf(tenant.organizationId);
    const before = await rowsOn(from, tenant.organizationId);
    expect(before).toMatchObject({ executions: 4, conversations: 1, knowledge_chunks: 1, webhook_endpoints: 1 });
    const balance = await balanceOn(from, tenant.escrowId);
    const ask = async () =>
      json(
        await call('/api/knowledge/ask', {
          token: tenant.token,
          body: { question: 'Do you carry parcels between your depots overnight?' },
        }),
      );
    const answered = await ask();
    expect(answered.answer).toContain('30 kilograms');
    // The visitor's message and the three executions: two past the allowance, at 3 each.
    expect(balance).toBe(500 - 6);
    let refused = 0;
    await moveOrganization(tenant.organizationId, async (report) => {
      // The billing sweep runs while the old escrow holds nothing: it tells the owner of no low balance.
      if (report.step === 'cleanup' && report.retry_after_ms > 0) {
        await sweepBilling(workerDb(), clock.now());
        const told = await platformDb
          .prepare("SELECT count(*) AS n FROM events WHERE workspace_id = ? AND type = 'escrow.low_balance'")
          .bind(tenant.workspaceId)
          .first<number>('n');
        expect(told).toBe(0);
      }
      if (report.step === 'done' || report.step === 'cleanup') return;
      // Until the switch, a write is refused and says when to come back; a read is still answered.
      const write = await execute(tenant.token, executeBody());
      await expectProblem(write, 503, 'service_unavailable');
      expect(Number(write.headers.get('Retry-After'))).toBeGreaterThan(0);
      expect((await call('/api/integrations/channels', { token: tenant.token })).status).toBe(200);
      refused++;
    });
    expect(refused).toBeGreaterThan(0);
    const to = await shardOf(tenant.organizationId);
    expect(to).toBe(1 - from);
    const after = await rowsOn(to, tenant.organizationId);
    // Every table's rows came along; the outbox's counted events left it on the old shard first
    // (those a delivery names stay, and came along).
    for (const spec of MOVED_TABLES)
      if (spec.swept) expect(after[spec.table], spec.table).toBeLessThanOrEqual(before[spec.table]!);
      else expect(after[spec.table], spec.table).toBe(before[spec.table]);
    const orphans = await shardDatabase(to)
      .prepare(
        `SELECT count(*) AS n FROM webhook_deliveries d WHERE workspace_id = ?
          AND NOT EXISTS (SELECT 1 FROM events e WHERE e.id = d.event_id)`,
      )
      .bind(tenant.workspaceId)
      .first<number>('n');
    expect([after.webhook_deliveries, orphans]).toEqual([before.webhook_deliveries, 0]);
    expect(Object.values(await rowsOn(from, tenant.organizationId)).every((count) => count === 0)).toBe(true);
    // The balance moved once; the old ledger keeps its history and ends at nothing; no charge was made again.
    expect(await balanceOn(to, tenant.escrowId)).toBe(balance);
    expect(await balanceOn(from, tenant.escrowId)).toBe(0);
    const charges = await shardDatabase(to)
      .prepare("SELECT count(*) AS n FROM transfers WHERE kind = 'charge' AND workspace_id = ?")
      .bind(tenant.workspaceId)
      .first<number>('n');
    expect(charges).toBe(0);
    await expectBalancedBooks();
    // The organisation works on its new shard: an execution is charged there, its knowledge answers,
    // and the visitor's token still opens their conversation.
    expect((await execute(tenant.token, executeBody())).status).toBe(200);
    expect(await balanceOn(to, tenant.escrowId)).toBe(balance - 3);
    expect(await ask()).toEqual(answered);
    const thread = await call(`/api/public/widget/${tenant.channelKey}/messages`, {
      headers: { Origin: SITE, Authorization: `Bearer ${tenant.visitorToken}` },
    });
    expect(thread.status).toBe(200);
    expect(JSON.stringify(await json(thread))).toContain('house move');
  });

  it('resumes after a crash at any step, whatever that step had already done', async () => {
    const tenant = await busyTenant();
    const from = await shardOf(tenant.organizationId);
    const to = 1 - from;
    const before = await rowsOn(from, tenant.organizationId);
    const balance = await balanceOn(from, tenant.escrowId);
    const progress = async () =>
      JSON.parse(
        (await env.DIRECTORY.prepare('SELECT move_step FROM organization_shards WHERE organization_id = ?')
          .bind(tenant.organizationId)
          .first<string>('move_step'))!,
      );
    // Another target while it moves, or the shard it is on, is refused.
    expect((await moveStep(tenant.organizationId, to)).step).toBe('frozen');
    const other = await call(`/api/admin/organizations/${tenant.organizationId}/move`, {
      token: ADMIN_TOKEN,
      body: { to_shard: from },
    });
    await expectProblem(other, 409, 'invalid_transition');
    // A crash in the copy, after some rows were written: those are already on the new shard.
    const { startedAt } = await progress();
    const organization = await shardDatabase(from)
      .prepare('SELECT id, name, status, created_at FROM organizations WHERE id = ?')
      .bind(tenant.organizationId)
      .first<Record<string, unknown>>();
    await shardDatabase(to)
      .prepare('INSERT INTO organizations (id, name, status, created_at) VALUES (?, ?, ?, ?)')
      .bind(organization!.id, organization!.name, organization!.status, organization!.created_at)
      .run();
    // A crash in the carry, after the old ledger gave the balance out and before the new one took it in.
    await shardDatabase(from).batch([
      shardDatabase(from).prepare(
        `INSERT OR IGNORE INTO ledger_accounts (id, kind, currency, created_at)
          VALUES ('platform:carried:EUR', 'funding', 'EUR', 0)`,
      ),
      shardDatabase(from)
        .prepare(
          `INSERT INTO transfers (id, kind, currency, from_account, to_account, amount_minor, ref, workspace_id,
            created_at)
            VALUES (?, 'carry', 'EUR', ?, 'platform:carried:EUR', ?, ?, ?, 0)`,
        )
        .bind(
          `trf_moveout_${tenant.escrowId}_${startedAt}`,
          tenant.escrowId,
          balance,
          `move:${to}`,
          tenant.workspaceId,
        ),
    ]);
    const reports = await moveOrganization(tenant.organizationId, async (report) => {
      // A crash after the switch, with some old rows deleted and others not.
      if (report.step === 'cleanup' && report.retry_after_ms > 0)
        await shardDatabase(from)
          .prepare(
            'DELETE FROM messages WHERE conversation_id IN (SELECT id FROM conversations WHERE workspace_id = ?)',
          )
          .bind(tenant.workspaceId)
          .run();
    });
    expect(reports.map((report) => report.step)).toContain('done');
    expect(await shardOf(tenant.organizationId)).toBe(to);
    expect(await rowsOn(to, tenant.organizationId)).toMatchObject({
      executions: before.executions,
      messages: before.messages,
    });
    expect(Object.values(await rowsOn(from, tenant.organizationId)).every((count) => count === 0)).toBe(true);
    expect(await balanceOn(to, tenant.escrowId)).toBe(balance);
    expect(await balanceOn(from, tenant.escrowId)).toBe(0);
    await expectBalancedBooks();
    // And moved back, the balance comes back once too.
    await moveOrganization(tenant.organizationId);
    expect(await shardOf(tenant.organizationId)).toBe(from);
    expect(await balanceOn(from, tenant.escrowId)).toBe(balance);
    expect(await balanceOn(to, tenant.escrowId)).toBe(0);
    await expectBalancedBooks();
  });

  it('a crash at any of its D1 calls, in any step, is resumed by the next call: nothing lost or twice', async () => {
    const crashes = crashAtCall();
    // A clean move first, to count its D1 calls; then a crash at calls spread over all of them.
    const clean = await busyTenant();
    crashes.arm(Number.POSITIVE_INFINITY);
    await moveOrganization(clean.organizationId);
    const total = crashes.seen();
    expect(total).toBeGreaterThan(20);
    for (const at of [1, 2, 3, 5, 8].concat([0.3, 0.5, 0.7, 0.9, 1].map((share) => Math.ceil(total * share)))) {
      const tenant = await busyTenant();
      const from = await shardOf(tenant.organizationId);
      const before = await rowsOn(from, tenant.organizationId);
      const balance = await balanceOn(from, tenant.escrowId);
      crashes.arm(at);
      const reports = await moveOrganization(tenant.organizationId, async () => {}, { crashes: true });
      expect(crashes.crashed(), `a crash at call ${at} of ${total}`).toBe(true);
      expect(reports.at(-1)!.step).toBe('done');
      const after = await rowsOn(1 - from, tenant.organizationId);
      for (const spec of MOVED_TABLES)
        if (!spec.swept) expect(after[spec.table], `${spec.table}, crash at ${at}`).toBe(before[spec.table]);
      expect(Object.values(await rowsOn(from, tenant.organizationId)).every((count) => count === 0)).toBe(true);
      expect(await balanceOn(1 - from, tenant.escrowId)).toBe(balance);
      expect(await balanceOn(from, tenant.escrowId)).toBe(0);
    }
    crashes.restore();
    await expectBalancedBooks();
  });
});

/**
 * Crashes the Worker at its n-th D1 call (a statement run or a batch, on any database) from when it
 * is armed: the call throws, as a lost connection or an evicted isolate would end the request there.
 */
function crashAtCall() {
  let calls = 0;
  let at = Number.POSITIVE_INFINITY;
  let crashed = false;
  const tick = () => {
    calls += 1;
    if (calls === at) {
      crashed = true;
      throw new Error(`a crash injected at D1 call ${calls}`);
    }
  };
  const statement = (inner: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(inner, {
      get(target, property) {
        if (property === 'bind') return (...values: unknown[]) => statement(target.bind(...values));
        const value = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        if (['run', 'all', 'first', 'raw'].includes(String(property)))
          return (...args: unknown[]) => {
            tick();
            return value.apply(target, args);
          };
        return value.bind(target);
      },
    });
  const spies = [env.DIRECTORY, env.DB_0, env.DB_1].map((database) => {
    const original = database.withSession.bind(database);
    return vi.spyOn(database, 'withSession').mockImplementation((constraint?: string) => {
      const session = original(constraint);
      return new Proxy(session, {
        get(target, property) {
          const value = Reflect.get(target, property, target);
          if (property === 'prepare') return (query: string) => statement(target.prepare(query));
          if (property === 'batch')
            return (statements: D1PreparedStatement[]) => {
              tick();
              return target.batch(statements);
            };
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    });
  });
  return {
    arm(n: number) {
      [calls, at, crashed] = [0, n, false];
    },
    seen: () => calls,
    crashed: () => crashed,
    restore: () => {
      for (const spy of spies) spy.mockRestore();
    },
  };
}
