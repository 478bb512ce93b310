/**
 * Bearer credentials: API keys and admin tokens, resolved to the actor of a request.
 * Two actor kinds (SPEC "admin_or_api_key"): an administrator, or an API key caller.
 */
import { eq } from 'drizzle-orm';
import { secretsEqual, sha256Hex } from '../../lib/crypto';
import { schema, type Database } from '../../lib/db';
import { ApiError, type ErrorCode } from '../../lib/errors';
import { AdmissionCache } from '../../lib/admission-cache';
import { rememberRiskPolicy, tenantIsActive } from './tenants';
import { clock } from '../../lib/clock';
import { enterBy, enterOrganization } from '../shards';

const { apiKeys, adminTokens, workspaces, organizations } = schema;

/** The bootstrap ADMIN_TOKEN has no row; the audit log records it under this id. */
export const BOOTSTRAP_ADMIN_ID = 'adm_bootstrap';

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
}

/**
 * `cachedAs`: the key context came from this isolate's cache under this token hash, so its state
 * (revoked, tenant suspended) may be up to a minute old; whatever acts on it must re-check it (the
 * execution batch's guard does, in the same round trip, and a refusal re-verifies it).
 */
export type Actor =
  | { kind: 'admin'; adminId: string }
  | { kind: 'api_key'; key: KeyContext; cachedAs?: { tokenHash: string } };

/** The UTC calendar month that quotas are counted in, e.g. "2026-11". */
export function quotaPeriod(now: number): string {
  return new Date(now).toISOString().slice(0, 7);
}

/** A key by its token's hash or by its id, with its tenant's state. */
export async function findKeyContext(
  db: Database,
  where: { tokenHash: string } | { keyId: string },
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
      // Read with the key for free, so a key's first execution needs no round trip of its own for them.
      blockedTerms: workspaces.blockedTerms,
    })
    .from(apiKeys)
    .innerJoin(workspaces, eq(workspaces.id, apiKeys.workspaceId))
    .innerJoin(organizations, eq(organizations.id, workspaces.organizationId))
    .where('tokenHash' in where ? eq(apiKeys.tokenHash, where.tokenHash) : eq(apiKeys.id, where.keyId))
    .get();
  if (!row) return undefined;
  const { blockedTerms, ...key } = row;
  rememberRiskPolicy(key.workspaceId, blockedTerms ?? []);
  return { ...key, workspaceActive: Boolean(key.workspaceActive) };
}

/** Why a key may not be used now, or undefined when it may. */
export function keyInactiveReason(key: KeyContext, now: number): 'revoked' | 'expired' | undefined {
  if (key.revokedAt !== null) return 'revoked';
  if (key.expiresAt !== null && key.expiresAt <= now) return 'expired';
  return undefined;
}

/**
 * Usable keys of active tenants, by token hash, for /api/execute alone: its batch guards the
 * key's and the tenant's current state, so the cache saves the lookup without a window in which
 * a revoked key or a suspended tenant could execute, and any other refusal re-verifies the key.
 */
const keyContexts = new AdmissionCache<KeyContext>(60_000, 10_000);

/** Forgets every cached key context (after a revocation or a tenant's suspension, or a failed guard). */
export function forgetCachedKeys(): void {
  keyContexts.forget();
}

/** Refusals that already come from the key's current state: re-verifying them would say the same. */
const FRESH_KEY_REFUSALS: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'invalid_token',
  'key_revoked',
  'key_expired',
  'workspace_inactive',
]);

/**
 * The refusal a request that ran on a cached key gets instead of `error`, when the key's current
 * state calls for one: its 401, or the suspended tenant's 403 unless `error` comes before the
 * tenant check in the route's order of checks. Undefined: `error` stands.
 */
export async function reverifyCachedKey(
  db: Database,
  actor: Actor,
  error: unknown,
  refusedBeforeTenantCheck: ReadonlySet<ErrorCode>,
): Promise<ApiError | undefined> {
  if (actor.kind !== 'api_key' || !actor.cachedAs) return undefined;
  const read = { value: actor.key, fromCache: true };
  return keyContexts.reverify(read, actor.cachedAs.tokenHash, error, async (refusal) =>
    FRESH_KEY_REFUSALS.has(refusal.code)
      ? undefined
      : freshKeyRefusal(db, actor.key.id, clock.now(), { tenant: !refusedBeforeTenantCheck.has(refusal.code) }),
  );
}

const invalidBearer = (code: 'invalid_token' | 'key_revoked' | 'key_expired', detail: string) =>
  new ApiError(code, detail, { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });

/** The 401 a bearer key gets when it is unknown, revoked or expired; undefined when it may be used. */
export function bearerKeyRefusal(key: KeyContext | undefined, now: number): ApiError | undefined {
  if (!key) return invalidBearer('invalid_token', 'The bearer token is not valid.');
  const inactive = keyInactiveReason(key, now);
  if (inactive === 'revoked') return invalidBearer('key_revoked', 'This API key has been revoked.');
  if (inactive === 'expired') return invalidBearer('key_expired', 'This API key has expired.');
  return undefined;
}

/** The 403 for a key whose workspace or organisation is suspended. */
export function workspaceInactive(): ApiError {
  return new ApiError('workspace_inactive', 'The workspace or organisation of this key is not active.');
}

/**
 * A cached key context checked against D1 now: the refusal its current state calls for, in the
 * order of checks (the bearer's 401 first, then, when `tenant` is asked, the suspended tenant's
 * 403), or undefined when it still may execute. A refusal forgets the cached contexts.
 */
export async function freshKeyRefusal(
  db: Database,
  keyId: string,
  now: number,
  options: { tenant: boolean },
): Promise<ApiError | undefined> {
  const fresh = (await enterBy(db, 'key', keyId)) ? await findKeyContext(db, { keyId }) : undefined;
  const refused =
    bearerKeyRefusal(fresh, now) ?? (options.tenant && !fresh!.workspaceActive ? workspaceInactive() : undefined);
  if (refused) forgetCachedKeys();
  return refused;
}

/** RFC 9110 section 11.1: the scheme name is case-insensitive, so `bearer` and `BEARER` are Bearer too. */
const BEARER = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i;

/** The bootstrap token and hashed admin tokens, from settings. */
export interface BearerSettings {
  ADMIN_TOKEN?: string;
}

/** The bearer actor of an Authorization header; throws the 401 that fits when there is none. */
export async function resolveActor(
  db: Database,
  header: string | undefined,
  settings: BearerSettings,
  now = clock.now(),
  options: { cachedKeys?: boolean } = {},
): Promise<Actor> {
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
  if (token.startsWith('egk_')) {
    const tokenHash = await sha256Hex(token);
    // The directory says whose key it is (cached for good): its rows are on that organisation's shard.
    const load = async () =>
      (await enterBy(db, 'key_hash', tokenHash)) ? findKeyContext(db, { tokenHash }) : undefined;
    // A key's expiry never changes, so the cached copy can tell it; revocation is the guard's.
    const usable = (key: KeyContext) => keyInactiveReason(key, now) === undefined;
    const read = options.cachedKeys
      ? await keyContexts.read(tokenHash, load, { usable, keep: (key) => usable(key) && key.workspaceActive, now })
      : { value: await load(), fromCache: false };
    const refused = bearerKeyRefusal(read.value, now);
    if (refused) throw refused;
    await enterOrganization(db, read.value!.organizationId);
    return { kind: 'api_key', key: read.value!, ...(read.fromCache ? { cachedAs: { tokenHash } } : {}) };
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
  throw invalidBearer('invalid_token', 'The bearer token is not valid.');
}
