/**
 * `npm run bench` only: routes of the bench's own entry (bench/entry.ts), never of the deployed
 * Worker, that let the load scripts measure what no public route exposes on its own.
 *
 * - `POST /__bench/d1-batch`: one trivial D1 batch behind the same stack, the floor an
 *   execution's one round trip is measured against;
 * - `POST /__bench/lead-fixture`: open leads and experts written straight into D1 (as many rows
 *   as the API would make, without the API's time), for the sweep to run over;
 * - `POST /__bench/lead-sweep`: the cron sweep's lead timers at a given time, with how many D1
 *   round trips they took;
 * - `POST /__bench/insights-fixture`: a year of a workspace's history (leads, their moves,
 *   conversations, events, agents' attempts) written straight into D1, for insights to read;
 * - `POST /__bench/rollup`: the rollups' sweep, a few ticks, and how many source rows are left.
 */
import { newApp } from '../worker/lib/app';
import type { QueryCounter } from '../worker/lib/db';
import type { Bindings } from '../worker/env';
import { buildServices } from '../worker/lib/services';
import { boundDatabases } from '../worker/lib/shards/databases';
import { sweepLeadTimers } from '../worker/platform/leads';
import { rollUp } from '../worker/platform/rollups';
import { insightsFixture } from './insights-fixture';

/** Rows for one statement each: `n` numbered 1…count by a recursive CTE. */
const numbers = (count: number) => `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})`;

/** The shard of the demo organisation (the seed's), where the fixtures of its workspace go. */
async function demoShard(env: Bindings): Promise<D1Database> {
  const shard = await env.DIRECTORY.prepare(
    "SELECT shard FROM organization_shards WHERE organization_id = 'org_demo'",
  ).first<number>('shard');
  return boundDatabases(env).shards[shard ?? 0]!;
}

/** Statements in one batch of one database. */
const runAll = (database: D1Database, statements: string[]) =>
  database.batch(statements.map((statement) => database.prepare(statement)));

/** The bench routes. */
export function benchRoutes() {
  const app = newApp('problem');
  app.use('/__bench/*', async (c, next) => {
    c.header('Cache-Control', 'no-store');
    await next();
  });

  app.post('/__bench/d1-batch', async (c) => {
    const shard = await demoShard(c.env);
    await shard.batch([shard.prepare('SELECT 1 AS one')]);
    return c.json({ status: 'ok' as const }, 200);
  });

  // `domains` domains with `experts` experts each, and `leads` open leads spread over them, created
  // `age_minutes` ago, each offered (first wave) to 3 experts of its domain.
  app.post('/__bench/lead-fixture', async (c) => {
    const body = (await c.req.json()) as { tag: string; domains: number; experts: number; leads: number };
    const tag =
      String(body.tag)
        .replace(/[^a-z0-9]/g, '')
        .slice(0, 12) || 'bench';
    const [domains, experts, leads] = [body.domains, body.experts, body.leads].map((value) =>
      Math.min(Math.max(Math.trunc(Number(value)) || 1, 1), 100_000),
    ) as [number, number, number];
    const now = Date.now();
    const providers = domains * experts;
    // The experts are the directory's (their accounts) and, as the copier would make them, the shard's
    // too (the catalog); the demands, leads and offers are the demo organisation's, on its shard.
    const catalog = [
      `${numbers(providers)} INSERT INTO providers (id, user_id, status, kind, display_name, accepted_domains,
          created_at, updated_at)
        SELECT 'prv_${tag}_' || i, 'usr_${tag}_' || i, 'active', 'expert', 'Bench ' || i,
          json_array('bench-${tag}-' || (i % ${domains})), ${now}, ${now} FROM n`,
      `${numbers(providers)} INSERT INTO provider_domains (provider_id, domain)
        SELECT 'prv_${tag}_' || i, 'bench-${tag}-' || (i % ${domains}) FROM n`,
    ];
    const accounts = [
      `${numbers(providers)} INSERT INTO users (id, email, password_hash, role, created_at, updated_at)
        SELECT 'usr_${tag}_' || i, 'bench.${tag}.' || i || '@example.com', 'x', 'provider', ${now}, ${now} FROM n`,
    ];
    const demand = [
      `${numbers(leads)} INSERT INTO demands (id, workspace_id, domain, status, created_at)
        SELECT 'dem_${tag}_' || i, 'ws_demo', 'bench-${tag}-' || (i % ${domains}), 'open', ${now} FROM n`,
      `${numbers(leads)} INSERT INTO leads (id, workspace_id, demand_id, status, trigger, domain, routing_pool, wave,
          widen_at, escalate_at, claim_sla_ms, updated_at, created_at)
        SELECT 'lead_${tag}_' || i, 'ws_demo', 'dem_${tag}_' || i, 'open', 'handoff',
          'bench-${tag}-' || (i % ${domains}), 'platform', 1, ${now} + 600000, ${now} + 3600000, 3600000,
          ${now}, ${now} FROM n`,
      `INSERT INTO lead_offers (lead_id, provider_id, wave, offered_at)
        SELECT l.id, d.provider_id, 1, ${now} FROM leads l JOIN provider_domains d ON d.domain = l.domain
        WHERE l.id LIKE 'lead_${tag}_%' AND (SELECT COUNT(*) FROM provider_domains e WHERE e.domain = d.domain
          AND e.provider_id < d.provider_id) < 3`,
    ];
    await runAll(c.env.DIRECTORY, [...accounts, ...catalog]);
    await runAll(await demoShard(c.env), [...catalog, ...demand]);
    return c.json({ providers, leads, created_at: now }, 200);
  });

  // The sweep's own round trips, on a database of its own (what the request does after it is not counted).
  app.post('/__bench/lead-sweep', async (c) => {
    const { now } = (await c.req.json()) as { now: number };
    const counter: QueryCounter = { roundTrips: 0, statements: 0 };
    const services = buildServices(c.env, { kind: 'request', counter });
    const swept = await sweepLeadTimers(services.db, now, services.limits.leadMinuteMs);
    return c.json({ ...swept, round_trips: counter.roundTrips, shards: services.shardCount }, 200);
  });
  app.post('/__bench/insights-fixture', async (c) => {
    const body = (await c.req.json()) as { tag: string; leads: number };
    const tag =
      String(body.tag)
        .replace(/[^a-z0-9]/g, '')
        .slice(0, 12) || 'bench';
    const leads = Math.min(Math.max(Math.trunc(Number(body.leads)) || 1, 1), 200_000);
    const statements = insightsFixture({ tag, leads, workspaceId: 'ws_demo', channelKey: 'ch_demo', now: Date.now() });
    await runAll(await demoShard(c.env), statements);
    return c.json({ leads }, 200);
  });

  // A few ticks of the rollups' sweep, and the source rows it has yet to count.
  app.post('/__bench/rollup', async (c) => {
    const { ticks } = (await c.req.json()) as { ticks: number };
    const services = buildServices(c.env, { kind: 'request' });
    for (let tick = 0; tick < Math.min(Math.max(ticks, 1), 50); tick++) await rollUp(services.db);
    const left = await (await demoShard(c.env))
      .prepare(
        `SELECT coalesce(sum(newest - coalesce(last_seq, 0)), 0) AS remaining FROM (
        SELECT 'events' AS source, (SELECT max(rowid) FROM events) AS newest UNION ALL
        SELECT 'lead_events', (SELECT max(rowid) FROM lead_events) UNION ALL
        SELECT 'conversations', (SELECT max(rowid) FROM conversations) UNION ALL
        SELECT 'agent_attempts', (SELECT max(rowid) FROM agent_attempts)) AS s
      LEFT JOIN rollup_cursors c ON c.source = s.source`,
      )
      .first<{ remaining: number }>();
    return c.json({ remaining: left?.remaining ?? 0 }, 200);
  });
  return app;
}
