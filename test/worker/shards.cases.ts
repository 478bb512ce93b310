/**
 * Organisations over several databases (docs/design/scale.md#the-layout): the directory and the
 * two test shards share one schema, a new organisation is placed on a shard in the directory, and
 * the reference tables written in the directory are copied to every shard.
 */
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { clock } from '../../worker/lib/clock';
import { ADMIN_TOKEN, call, createTenant, json, workerDb } from './helpers';
import { createActiveExpert } from './provider-helpers';
import { getPage, signUpOwner, signUpPlatformAdmin } from './console-helpers';
import { cron } from './webhook-helpers';
import { PROTECTED_ROUTES } from './access-routes';
import { shardOf } from './move-helpers';

const schemaOf = async (database: D1Database) =>
  (
    await database
      .prepare(`SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'
        AND name NOT LIKE '_cf_%' AND name NOT LIKE 'd1_%' ORDER BY type, name`)
      .all()
  ).results;

describe('organisations over several databases', () => {
  it('gives the directory and every shard the same schema', async () => {
    const directory = await schemaOf(env.DIRECTORY);
    expect(directory.length).toBeGreaterThan(100);
    expect(await schemaOf(env.DB_0)).toEqual(directory);
    expect(await schemaOf(env.DB_1)).toEqual(directory);
  });

  it('places each new organisation on a shard, spreading them while the shards are alike', async () => {
    const placed = await env.DIRECTORY.prepare('SELECT shard, count(*) AS n FROM organization_shards GROUP BY shard')
      .all<{ shard: number; n: number }>()
      .then((answer) => answer.results);
    const first = await createTenant();
    const second = await createTenant();
    const shardOf = (organizationId: string) =>
      env.DIRECTORY.prepare('SELECT shard FROM organization_shards WHERE organization_id = ?')
        .bind(organizationId)
        .first<number>('shard');
    const shards = [await shardOf(first.organizationId), await shardOf(second.organizationId)];
    for (const shard of shards) expect([0, 1]).toContain(shard);
    // With the shards' sizes equal, the one with fewer organisations gets the next.
    const placedBefore = (shard: number) => placed.find((row) => row.shard === shard)?.n ?? 0;
    if (placedBefore(0) === placedBefore(1)) expect(new Set(shards).size).toBe(2);
    // The admin's list reads every shard, and says where each organisation is.
    const listed = await json(await call('/api/admin/organizations', { token: ADMIN_TOKEN }));
    for (const [index, tenant] of [first, second].entries())
      expect(listed.data).toContainEqual(
        expect.objectContaining({ organization_id: tenant.organizationId, shard: shards[index] }),
      );
  });
});

describe('the admin’s reads that name no tenant', () => {
  it('read every shard, never one database by mistake: none fails', async () => {
    const tenant = await createTenant();
    await createTenant();
    // An organisation's email is on its shard: the admin finds it by its id all the same.
    const shard = await shardOf(tenant.organizationId);
    const emailId = `eml_shardread${clock.now()}`;
    await [env.DB_0, env.DB_1]
      [
        shard
      ]!.prepare(`INSERT INTO emails (id, workspace_id, kind, status, subject, link_origin, next_attempt_at, created_at,
          updated_at) VALUES (?, ?, 'notice', 'sent', 'A notice', 'http://gateway.test', 0, 0, 0)`)
      .bind(emailId, tenant.workspaceId)
      .run();
    const email = await call(`/api/admin/emails/${emailId}`, { token: ADMIN_TOKEN });
    expect(email.status, await email.clone().text()).toBe(200);
    const spanning = PROTECTED_ROUTES.filter(
      (route) => route.auth === 'admin' && route.method === 'GET' && !route.path.includes(':'),
    );
    expect(spanning.length).toBeGreaterThan(10);
    for (const route of spanning) {
      const response = await call(`${route.path}?since=2026-01-01T00:00:00Z`, { token: ADMIN_TOKEN });
      expect(response.status, `${route.path}: ${await response.clone().text()}`).toBeLessThan(500);
    }
    // And the operator's pages.
    const admin = await signUpPlatformAdmin();
    const pages = PROTECTED_ROUTES.filter(
      (route) => route.method === 'GET' && route.path.startsWith('/admin') && !route.path.includes(':'),
    );
    expect(pages.length).toBeGreaterThan(3);
    for (const route of pages) expect((await getPage(route.path, admin.cookie)).status, route.path).toBeLessThan(400);
  });
});

describe('the shards’ copies of the reference tables', () => {
  const databases = () => [env.DIRECTORY, env.DB_0, env.DB_1];
  const rowIn = (database: D1Database, table: string, key: string, value: string) =>
    database.prepare(`SELECT * FROM ${table} WHERE ${key} = ?`).bind(value).all();
  /** The row in the directory and in each shard: the same everywhere. */
  const expectCopied = async (table: string, key: string, value: string) => {
    const [directory, ...shards] = await Promise.all(databases().map((database) => rowIn(database, table, key, value)));
    expect(directory!.results.length, `${table} ${value} in the directory`).toBeGreaterThan(0);
    for (const shard of shards) expect(shard.results).toEqual(directory!.results);
  };
  const wholeTable = (database: D1Database, table: string, order: string) =>
    database
      .prepare(`SELECT * FROM ${table} ORDER BY ${order}`)
      .all()
      .then((answer) => answer.results);

  it('a provider, their domains and their membership are on every shard as soon as they are written', async () => {
    const domain = `copy-${Math.random().toString(36).slice(2, 8)}`;
    expect((await call('/api/admin/domains', { token: ADMIN_TOKEN, body: { domain, name: domain } })).status).toBe(201);
    await expectCopied('domains', 'slug', domain);
    const expert = await createActiveExpert({ domains: [domain] });
    await expectCopied('providers', 'id', expert.providerId);
    await expectCopied('provider_domains', 'provider_id', expert.providerId);
    const owner = await signUpOwner();
    await expectCopied('memberships', 'workspace_id', owner.workspaceId);
  });

  it('a trigger’s change is copied too: an enrolled factor marks the second factor everywhere', async () => {
    const expert = await createActiveExpert();
    const db = workerDb();
    await db.run(sql`INSERT INTO user_factors (id, user_id, kind, secret, confirmed_at, created_at)
      VALUES (${`fac_${crypto.randomUUID()}`}, ${expert.userId}, 'totp', 'sealed', ${clock.now()}, ${clock.now()})`);
    for (const database of databases())
      expect(
        await database.prepare('SELECT second_factor FROM providers WHERE id = ?').bind(expert.providerId).first(),
      ).toEqual({ second_factor: 1 });
  });

  it('a change the copier missed is copied by the minute’s run; a deleted row leaves every copy', async () => {
    const expert = await createActiveExpert();
    // Written straight into the directory, as if the request died before its copy.
    await env.DIRECTORY.prepare("UPDATE providers SET display_name = 'Renamed in the directory' WHERE id = ?")
      .bind(expert.providerId)
      .run();
    expect(
      await env.DB_0.prepare('SELECT display_name FROM providers WHERE id = ?').bind(expert.providerId).first(),
    ).not.toEqual({ display_name: 'Renamed in the directory' });
    await env.DIRECTORY.prepare('DELETE FROM provider_domains WHERE provider_id = ?').bind(expert.providerId).run();
    await cron('* * * * *');
    await expectCopied('providers', 'id', expert.providerId);
    for (const database of databases())
      expect(
        await database
          .prepare('SELECT count(*) AS n FROM provider_domains WHERE provider_id = ?')
          .bind(expert.providerId)
          .first('n'),
      ).toBe(0);
    // After the run, every copy is the directory's table, row for row.
    for (const [table, order] of [
      ['domains', 'slug'],
      ['providers', 'id'],
      ['provider_domains', 'provider_id, domain'],
      ['memberships', 'user_id, workspace_id'],
    ] as const) {
      const directory = await wholeTable(env.DIRECTORY, table, order);
      expect(await wholeTable(env.DB_0, table, order), table).toEqual(directory);
      expect(await wholeTable(env.DB_1, table, order), table).toEqual(directory);
    }
  });
});
