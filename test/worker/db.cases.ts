import { env } from 'cloudflare:test';
import { eq, inArray, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createDatabase, insertRows, isConstraintViolation, schema } from '../../worker/lib/db';
import { windowIncrement } from '../../worker/lib/rate-limit';

const { demands, messages, auditLog } = schema;

// The execution's statements are SQL text made once per column set (insertRowsSql); they must
// write exactly what drizzle's own insert writes, and run in a batch beside drizzle's queries.
describe('insertRows, the cached INSERT of the hot path', () => {
  it('writes what drizzle writes: JSON encoded by its column, omitted columns take their defaults', async () => {
    const db = createDatabase(env.DIRECTORY);
    const base = { workspaceId: 'ws_db_test', domain: 'consultation', text: 'A demand', createdAt: 1 };
    await db.batch([
      insertRows(db, demands, [{ id: 'dmd_cached', ...base, structuredInput: { seats: 20 }, attachments: [] }]),
      db.insert(demands).values({ id: 'dmd_drizzle', ...base, structuredInput: { seats: 20 }, attachments: [] }),
    ]);
    const rows = await db
      .select()
      .from(demands)
      .where(inArray(demands.id, ['dmd_cached', 'dmd_drizzle']))
      .orderBy(demands.id);
    expect(rows).toHaveLength(2);
    const [cached, drizzled] = rows;
    expect({ ...cached, id: 'x' }).toEqual({ ...drizzled, id: 'x' });
    expect(cached).toMatchObject({
      structuredInput: { seats: 20 },
      reasons: [],
      status: 'open',
      disposition: 'routed',
      topic: 'general',
      urgency: 'normal',
    });
  });

  it('inserts several rows whose keys differ: a column one row leaves out is NULL there', async () => {
    const db = createDatabase(env.DIRECTORY);
    await insertRows(db, messages, [
      { id: 'msg_db_1', conversationId: 'cnv_db', role: 'visitor', text: 'Hello', createdAt: 1 },
      { id: 'msg_db_2', conversationId: 'cnv_db', role: 'agent', text: 'Hi', authorId: 'prv_db', createdAt: 2 },
    ]);
    const rows = await db
      .select({ id: messages.id, authorId: messages.authorId })
      .from(messages)
      .where(eq(messages.conversationId, 'cnv_db'))
      .orderBy(messages.id);
    expect(rows).toEqual([
      { id: 'msg_db_1', authorId: null },
      { id: 'msg_db_2', authorId: 'prv_db' },
    ]);
  });

  it('binds values as parameters, never as SQL text', async () => {
    const db = createDatabase(env.DIRECTORY);
    const hostile = "x'); DROP TABLE audit_log; --";
    await insertRows(db, auditLog, [
      {
        id: 'aud_db_hostile',
        actorKind: 'system',
        actorId: hostile,
        action: 'test',
        requestId: 'req_db',
        metadata: { note: hostile },
        createdAt: 1,
      },
    ]);
    const row = await db.select().from(auditLog).where(eq(auditLog.id, 'aud_db_hostile')).get();
    expect(row).toMatchObject({ actorId: hostile, metadata: { note: hostile } });
  });

  it('refuses a key that is not a column of the table', () => {
    expect(() => insertRows(createDatabase(env.DIRECTORY), auditLog, [{ id: 'aud_db_bad', nope: 1 } as never])).toThrow(
      /no column nope/,
    );
  });

  it('answers a RETURNING clause in a batch beside drizzle queries (a raw statement with parameters)', async () => {
    const db = createDatabase(env.DIRECTORY);
    const [first, second, read] = await db.batch([
      windowIncrement(db, 'db-test-subject', 1_000, 60_000, 5),
      windowIncrement(db, 'db-test-subject', 2_000, 60_000, 5),
      db.select().from(schema.rateLimitWindows).where(eq(schema.rateLimitWindows.keyId, 'db-test-subject')),
    ]);
    expect(first).toEqual([{ windowStart: 1_000, count: 1 }]);
    expect(second).toEqual([{ windowStart: 1_000, count: 2 }]);
    expect(read).toEqual([
      {
        keyId: 'db-test-subject',
        windowStart: 1_000,
        count: 2,
        maxCount: 5,
        keyUsable: null,
        tenantActive: null,
        channelActive: null,
        quotaLeft: null,
        contractCurrent: null,
        allowanceLeft: null,
      },
    ]);
  });
});

/**
 * The fences: lib/db.ts reaches into two things no library promises to keep, and these tests fail
 * loudly on an upgrade that changes them (drizzle's batch items; D1's constraint error text).
 */
describe('what lib/db.ts relies on, and an upgrade could break', () => {
  it('drizzle batch items still prepare into a query, a statement and a result mapper', () => {
    const db = createDatabase(env.DIRECTORY);
    const item = db.select().from(schema.domains).limit(1) as unknown as { _prepare(): Record<string, unknown> };
    expect(typeof item._prepare).toBe('function');
    const prepared = item._prepare();
    expect(typeof prepared.getQuery).toBe('function');
    expect(typeof prepared.mapResult).toBe('function');
    const raw = db.all(sql`SELECT ${1} AS one`) as unknown as { _prepare(): { getQuery(): { sql: string } } };
    expect(raw._prepare().getQuery().sql).toContain('SELECT ? AS one');
  });

  it('D1 names the constraint that refused a write, as isConstraintViolation reads it', async () => {
    const db = createDatabase(env.DIRECTORY);
    const window = (count: number) =>
      db.run(sql`INSERT INTO rate_limit_windows (key_id, window_start, count, max_count)
        VALUES ('fence', 0, ${count}, 1) ON CONFLICT (key_id) DO UPDATE SET count = excluded.count`);
    await db.batch([window(1)]);
    const refusal = await db.batch([window(2)]).catch((error: unknown) => error);
    expect(isConstraintViolation(refusal, 'within_window_limit')).toBe(true);
    expect(isConstraintViolation(refusal, 'another_check')).toBe(false);
    const duplicate = await env.DIRECTORY.prepare(
      "INSERT INTO domains (slug, name, created_at) VALUES ('consultation', 'x', 0)",
    )
      .run()
      .catch((error: unknown) => error);
    expect(isConstraintViolation(duplicate, 'domains.slug')).toBe(true);
  });
});
