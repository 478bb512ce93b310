/** A throwaway D1 database in this process (Miniflare), for tests of migrations and the seed. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';

export const MIGRATIONS = join(process.cwd(), 'migrations');
export const migrationFiles = readdirSync(MIGRATIONS)
  .filter((name) => name.endsWith('.sql'))
  .sort();

/**
 * A throwaway D1 database, reached through a small Worker by `dispatchFetch` (as
 * scripts/migrate-local.mjs applies migrations): Miniflare's D1 proxy prepares each statement over a
 * synchronous channel that can lose a reply when the machine is busy (a CI run failed on it).
 * Statements are plain values here; each `all`, `first`, `run` or `batch` is one request.
 */
export interface LocalD1 {
  prepare(sql: string): LocalStatement;
  batch(statements: LocalStatement[]): Promise<D1Answer[]>;
}

/** What D1 answers for one statement (the parts these tests read). */
export interface D1Answer {
  results: Record<string, unknown>[];
  meta: { changes?: number };
}

/** A statement and its values, run on the database when asked. */
export interface LocalStatement {
  readonly sql: string;
  readonly params: unknown[];
  bind(...params: unknown[]): LocalStatement;
  all<T = Record<string, unknown>>(): Promise<{ results: T[]; meta: { changes?: number } }>;
  first<T = Record<string, unknown>>(column?: string): Promise<T | null>;
  run(): Promise<D1Answer>;
}

const RUNNER = `export default {
  async fetch(request, env) {
    const { statements, batch } = await request.json();
    const prepared = statements.map((s) => env.DB.prepare(s.sql).bind(...s.params));
    try {
      const results = batch ? await env.DB.batch(prepared) : [await prepared[0].all()];
      const answers = results.map((r) => ({ results: r.results ?? [], meta: { changes: r.meta?.changes } }));
      return Response.json({ results: answers });
    } catch (error) {
      return Response.json({ error: String(error?.message ?? error) });
    }
  },
};`;

/** A fresh database, and a way to close it. */
export async function localD1(): Promise<{ db: LocalD1; close(): Promise<void> }> {
  const miniflare = new Miniflare({ modules: true, script: RUNNER, d1Databases: ['DB'] });
  const send = async (statements: LocalStatement[], batch: boolean): Promise<D1Answer[]> => {
    const response = await miniflare.dispatchFetch('http://d1.local/', {
      method: 'POST',
      body: JSON.stringify({ statements: statements.map(({ sql, params }) => ({ sql, params })), batch }),
    });
    const answer = (await response.json()) as { results?: D1Answer[]; error?: string };
    if (answer.error !== undefined) throw new Error(answer.error);
    return answer.results!;
  };
  const statement = (sql: string, params: unknown[] = []): LocalStatement => ({
    sql,
    params,
    bind: (...values) => statement(sql, values),
    all: async <T>() =>
      (await send([statement(sql, params)], false))[0] as unknown as { results: T[]; meta: { changes?: number } },
    first: async <T>(column?: string) => {
      const [row] = (await send([statement(sql, params)], false))[0]!.results;
      if (!row) return null;
      return (column === undefined ? row : row[column]) as T;
    },
    run: async () => (await send([statement(sql, params)], false))[0]!,
  });
  const db: LocalD1 = { prepare: (sql) => statement(sql), batch: (statements) => send(statements, true) };
  return { db, close: () => miniflare.dispose() };
}

/** Applies one migration file as `wrangler d1 migrations apply` does: its statements in one batch. */
export async function applyMigration(db: LocalD1, file: string): Promise<void> {
  const statements = readFileSync(join(MIGRATIONS, file), 'utf8')
    .split('--> statement-breakpoint')
    .map((statement) => statement.trim())
    .filter(Boolean);
  await db.batch(statements.map((statement) => db.prepare(statement)));
}
