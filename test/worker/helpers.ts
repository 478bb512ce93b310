/** Shared helpers for worker tests: requests through the real Worker, tenants via the admin API. */
import { buildServices } from '../../worker/lib/services';
import type { Database } from '../../worker/lib/db';
import { routedHandleOf } from '../../worker/lib/shards/router';
import type { Bindings } from '../../worker/env';
import { env } from 'cloudflare:test';
import { expect } from 'vitest';
import { workerFetch } from './self';
import { platformDb } from './platform-db';

export const ADMIN_TOKEN = env.ADMIN_TOKEN;
export const ORIGIN = 'http://gateway.test';

export interface RequestOptions {
  method?: string;
  token?: string;
  /** An object is sent as JSON; a string or bytes are sent as they are. */
  body?: unknown;
  headers?: Record<string, string>;
}

export function call(path: string, options: RequestOptions = {}): Promise<Response> {
  const headers = new Headers(options.headers);
  if (options.token) headers.set('Authorization', `Bearer ${options.token}`);
  let body: BodyInit | undefined;
  if (typeof options.body === 'string' || options.body instanceof Uint8Array) {
    body = options.body as BodyInit;
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
  }
  if (body !== undefined && !headers.has('Content-Type')) headers.set('Content-Type', 'application/json');
  return workerFetch(`${ORIGIN}${path}`, {
    method: options.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    body,
  });
}

export async function json<T = Record<string, any>>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

export interface Tenant {
  organizationId: string;
  workspaceId: string;
  keyId: string;
  token: string;
}

export interface KeyOptions {
  scopes?: string[];
  rate_limit_per_minute?: number;
  monthly_quota?: number;
  expires_at?: string;
}

export async function issueKey(
  workspaceId: string,
  options: KeyOptions = {},
): Promise<{ keyId: string; token: string }> {
  const response = await call('/api/admin/api-keys', {
    token: ADMIN_TOKEN,
    body: {
      workspace_id: workspaceId,
      name: 'test key',
      scopes: options.scopes ?? ['execute', 'leads:write'],
      ...options,
    },
  });
  expect(response.status, await response.clone().text()).toBe(201);
  const key = await json(response);
  return { keyId: key.key_id, token: key.token };
}

export async function createTenant(options: KeyOptions = {}): Promise<Tenant> {
  const response = await call('/api/admin/organizations', { token: ADMIN_TOKEN, body: { name: 'Test Org' } });
  expect(response.status).toBe(201);
  const created = await json(response);
  const key = await issueKey(created.workspace_id, options);
  return { organizationId: created.organization_id, workspaceId: created.workspace_id, ...key };
}

export function executeBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    domain: 'consultation',
    execution_mode: 'sync',
    required_scopes: [],
    text: 'Need help with a CRM rollout.',
    ...overrides,
  };
}

export function execute(token: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return call('/api/execute', { token, body, headers });
}

/** Rows a workspace has in a table with a workspace_id column. */
export async function countRows(
  table: 'executions' | 'demands' | 'leads' | 'audit_log',
  workspaceId: string,
): Promise<number> {
  const row = await platformDb
    .prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE workspace_id = ?`)
    .bind(workspaceId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

export async function expectProblem(response: Response, status: number, code: string): Promise<Record<string, any>> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  expect(response.headers.get('Content-Type')).toBe('application/problem+json');
  const problem = JSON.parse(text);
  expect(problem.code, text).toBe(code);
  expect(problem.status).toBe(status);
  expect(typeof problem.title).toBe('string');
  expect(typeof problem.detail).toBe('string');
  expect(problem.request_id).toBe(response.headers.get('X-Request-Id'));
  return problem;
}

/** Every row a failed request could have written for this workspace and key. */
export async function writeFootprint(workspaceId: string, keyId: string): Promise<Record<string, number>> {
  const byKey = async (table: string) =>
    (await platformDb.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE key_id = ?`).bind(keyId).first<{ n: number }>())
      ?.n ?? 0;
  return {
    executions: await countRows('executions', workspaceId),
    demands: await countRows('demands', workspaceId),
    audit_log: await countRows('audit_log', workspaceId),
    rate_limit_windows: await byKey('rate_limit_windows'),
    usage_meters: await byKey('usage_meters'),
    idempotency_records: await byKey('idempotency_records'),
  };
}

/** The headers every server-rendered page must carry: a strict CSP, and no framing. */
export function expectStrictPageHeaders(response: Response): void {
  const csp = response.headers.get('Content-Security-Policy')!;
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toContain('unsafe-inline');
  expect(response.headers.get('X-Frame-Options')).toBe('DENY');
}

/**
 * The audit log's entries of a workspace, newest first, as the admin API reads them (a completed
 * execution's entry is read from its execution row: audit/service.ts).
 */
export async function auditEntries(workspaceId: string): Promise<Array<Record<string, unknown>>> {
  const response = await call(`/api/admin/audit-log?workspace_id=${workspaceId}&limit=100`, { token: ADMIN_TOKEN });
  return (await json(response)).data;
}

/** One audit entry by its id, or undefined. */
export async function auditEntry(workspaceId: string, auditId: string) {
  return (await auditEntries(workspaceId)).find((entry) => entry.audit_id === auditId);
}

/**
 * The database handle the Worker's own jobs use (routed over the directory and the shards), for
 * tests that call a module's function directly: a bare binding would skip the routing.
 */
export function workerDb(): Database {
  return buildServices(env as unknown as Bindings, { kind: 'cron' }).db;
}

/**
 * The Worker's handle entered on one shard, for tests that write rows of a made-up workspace
 * (one the directory does not know) directly: its rows live on that shard.
 */
export function shardDb(shard = 0): Database {
  const handle = routedHandleOf(workerDb());
  if (!handle) throw new Error('The worker handle is not routed.');
  return handle.onShard(shard);
}

/**
 * A queue job's services entered into a workspace's organisation (on its shard), for tests that
 * run a job's step directly on that workspace's rows.
 */
export async function servicesIn(workspaceId: string, base: object = env) {
  const services = buildServices(base as Bindings, { kind: 'queue' });
  const handle = routedHandleOf(services.db);
  const { enterBy } = await import('../../worker/platform/shards');
  if (!handle || !(await enterBy(services.db, 'workspace', workspaceId)))
    throw new Error(`No workspace ${workspaceId} in the directory.`);
  return services;
}

/**
 * Brings the shards' copies of the reference tables up to date, as the minute's run does: for
 * fixtures written straight into the directory's D1 (which no router copies).
 */
export function copyReferencesNow(): Promise<number> {
  return buildServices(env as unknown as Bindings, { kind: 'cron' }).copyReferences();
}
