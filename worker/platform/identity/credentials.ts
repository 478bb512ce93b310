/**
 * Bearer credentials: API keys and admin tokens, resolved to the actor of a request.
 * Two actor kinds (SPEC "admin_or_api_key"): an administrator, or an API key caller.
 */
import { and, eq } from 'drizzle-orm';
import { secretsEqual, sha256Hex } from '../../lib/crypto';
import { schema, type Database } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { tenantIsActive } from './tenants';

const { apiKeys, adminTokens, workspaces, organizations, usageMeters } = schema;

/** The bootstrap ADMIN_TOKEN has no row; the audit log records it under this id. */
export const BOOTSTRAP_ADMIN_ID = 'adm_bootstrap';

/** The meter every execution is charged to, per key and calendar month. */
export const EXECUTIONS_METER = 'executions';

/** An API key with everything admission needs, read in one query. */
export interface KeyContext {
  id: string;
  workspaceId: string;
  organizationId: string;
  scopes: string[];
  rateLimitPerMinute: number | null;
  monthlyQuota: number | null;
  expiresAt: number | null;
  revokedAt: number | null;
  workspaceActive: boolean;
  /** Executions already charged this month (0 when none). */
  executionsThisPeriod: number;
}

export type Actor = { kind: 'admin'; adminId: string } | { kind: 'api_key'; key: KeyContext };

/** The UTC calendar month that quotas are counted in, e.g. "2026-11". */
export function quotaPeriod(now: number): string {
  return new Date(now).toISOString().slice(0, 7);
}

/** A key by its token's hash or by its id, with its tenant's state and this month's usage. */
export async function findKeyContext(
  db: Database,
  where: { tokenHash: string } | { keyId: string },
  now: number,
): Promise<KeyContext | undefined> {
  const row = await db
    .select({
      id: apiKeys.id,
      workspaceId: apiKeys.workspaceId,
      organizationId: workspaces.organizationId,
      scopes: apiKeys.scopes,
      rateLimitPerMinute: apiKeys.rateLimitPerMinute,
      monthlyQuota: apiKeys.monthlyQuota,
      expiresAt: apiKeys.expiresAt,
      revokedAt: apiKeys.revokedAt,
      workspaceActive: tenantIsActive,
      executionsThisPeriod: usageMeters.used,
    })
    .from(apiKeys)
    .innerJoin(workspaces, eq(workspaces.id, apiKeys.workspaceId))
    .innerJoin(organizations, eq(organizations.id, workspaces.organizationId))
    .leftJoin(
      usageMeters,
      and(eq(usageMeters.keyId, apiKeys.id), eq(usageMeters.meter, EXECUTIONS_METER), eq(usageMeters.period, quotaPeriod(now))),
    )
    .where('tokenHash' in where ? eq(apiKeys.tokenHash, where.tokenHash) : eq(apiKeys.id, where.keyId))
    .get();
  if (!row) return undefined;
  return { ...row, workspaceActive: Boolean(row.workspaceActive), executionsThisPeriod: row.executionsThisPeriod ?? 0 };
}

/** Why a key may not be used now, or undefined when it may. */
export function keyInactiveReason(key: KeyContext, now: number): 'revoked' | 'expired' | undefined {
  if (key.revokedAt !== null) return 'revoked';
  if (key.expiresAt !== null && key.expiresAt <= now) return 'expired';
  return undefined;
}

/** RFC 9110 section 11.1: the scheme name is case-insensitive, so `bearer` and `BEARER` are Bearer too. */
const BEARER = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i;

/** The bootstrap token and hashed admin tokens, from settings. */
export interface BearerSettings {
  ADMIN_TOKEN?: string;
}

/** The bearer actor of an Authorization header; throws the 401 that fits when there is none. */
export async function resolveActor(db: Database, header: string | undefined, settings: BearerSettings, now = Date.now()): Promise<Actor> {
  if (header === undefined || header.trim() === '') {
    throw new ApiError('missing_credentials', 'Send an Authorization: Bearer <token> header.', {
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
  }
  const token = BEARER.exec(header)?.[1];
  if (!token) {
    throw new ApiError('malformed_authorization', 'The Authorization header must be "Bearer <token>".', {
      headers: { 'WWW-Authenticate': 'Bearer error="invalid_request"' },
    });
  }
  const invalid = (code: 'invalid_token' | 'key_revoked' | 'key_expired', detail: string) =>
    new ApiError(code, detail, { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
  if (token.startsWith('egk_')) {
    const key = await findKeyContext(db, { tokenHash: await sha256Hex(token) }, now);
    if (!key) throw invalid('invalid_token', 'The bearer token is not valid.');
    const inactive = keyInactiveReason(key, now);
    if (inactive === 'revoked') throw invalid('key_revoked', 'This API key has been revoked.');
    if (inactive === 'expired') throw invalid('key_expired', 'This API key has expired.');
    return { kind: 'api_key', key };
  }
  if (settings.ADMIN_TOKEN && (await secretsEqual(token, settings.ADMIN_TOKEN))) {
    return { kind: 'admin', adminId: BOOTSTRAP_ADMIN_ID };
  }
  if (token.startsWith('egadm_')) {
    const admin = await db
      .select({ id: adminTokens.id, revokedAt: adminTokens.revokedAt })
      .from(adminTokens)
      .where(eq(adminTokens.tokenHash, await sha256Hex(token)))
      .get();
    if (admin && admin.revokedAt === null) return { kind: 'admin', adminId: admin.id };
  }
  throw invalid('invalid_token', 'The bearer token is not valid.');
}
