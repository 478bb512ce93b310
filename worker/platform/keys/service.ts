/**
 * API keys and admin tokens: issued (the token shown once, only its SHA-256 stored), listed
 * without secrets, revoked at once. Every change is written with its audit record in one batch;
 * resolving a bearer to its key is identity's (credentials.ts), which this module tells to forget.
 */
import { directoryEntry, enterBy } from '../shards';
import { desc, eq } from 'drizzle-orm';
import { displayPrefix, newSecretToken, sha256Hex } from '../../lib/crypto';
import { schema, type Database } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { auditInsert, type AuditContext } from '../audit';
import { forgetCachedKeys } from '../identity';
import type { AdminTokenView, ApiKeyView } from './schemas';
import { clock } from '../../lib/clock';
import { iso } from '../../lib/periods';

const { workspaces, apiKeys, adminTokens } = schema;

type ApiKeyRow = typeof apiKeys.$inferSelect;

function describeApiKey(row: ApiKeyRow, organizationId: string, now = clock.now()): ApiKeyView {
  const state =
    row.revokedAt !== null ? 'revoked' : row.expiresAt !== null && row.expiresAt <= now ? 'expired' : 'active';
  return {
    key_id: row.id,
    name: row.name,
    workspace_id: row.workspaceId,
    organization_id: organizationId,
    token_prefix: row.tokenPrefix,
    scopes: row.scopes,
    rate_limit_per_minute: row.rateLimitPerMinute,
    monthly_quota: row.monthlyQuota,
    expires_at: iso(row.expiresAt),
    revoked_at: iso(row.revokedAt),
    state,
    created_at: iso(row.createdAt),
  };
}

export interface IssueApiKeyInput {
  workspaceId: string;
  name: string;
  scopes: string[];
  rateLimitPerMinute?: number;
  monthlyQuota?: number;
  expiresAt?: number;
}

/** Issues a key. The token is returned once, here, and only its SHA-256 is stored. */
export async function issueApiKey(db: Database, context: AuditContext, input: IssueApiKeyInput, now = clock.now()) {
  if (!(await enterBy(db, 'workspace', input.workspaceId)))
    throw new ApiError('not_found', `No workspace ${input.workspaceId}.`);
  const workspace = await db
    .select({ id: workspaces.id, organizationId: workspaces.organizationId })
    .from(workspaces)
    .where(eq(workspaces.id, input.workspaceId))
    .get();
  if (!workspace) throw new ApiError('not_found', `No workspace ${input.workspaceId}.`);
  const token = newSecretToken('egk_');
  const row: ApiKeyRow = {
    id: newId('key', now),
    workspaceId: workspace.id,
    name: input.name,
    tokenHash: await sha256Hex(token),
    tokenPrefix: displayPrefix(token),
    scopes: [...new Set(input.scopes)],
    rateLimitPerMinute: input.rateLimitPerMinute ?? null,
    monthlyQuota: input.monthlyQuota ?? null,
    expiresAt: input.expiresAt ?? null,
    revokedAt: null,
    createdBy: context.actorId,
    createdAt: now,
  };
  // The directory's entries first (by id, and by the token's hash for the bearer's door).
  await db.batch([
    directoryEntry(db, 'key', row.id, workspace.organizationId),
    directoryEntry(db, 'key_hash', row.tokenHash, workspace.organizationId),
  ]);
  await db.batch([
    db.insert(apiKeys).values(row),
    auditInsert(
      db,
      context,
      {
        organizationId: workspace.organizationId,
        workspaceId: workspace.id,
        keyId: row.id,
        action: 'api_key.issued',
        targetId: row.id,
        metadata: { scopes: row.scopes, name: row.name },
      },
      now,
    ),
  ]);
  return { ...describeApiKey(row, workspace.organizationId, now), token };
}

/** A workspace's keys, newest first, without tokens. */
export async function listApiKeys(db: Database, workspaceId: string) {
  const rows = await db
    .select({ key: apiKeys, organizationId: workspaces.organizationId })
    .from(apiKeys)
    .innerJoin(workspaces, eq(workspaces.id, apiKeys.workspaceId))
    .where(eq(apiKeys.workspaceId, workspaceId))
    .orderBy(desc(apiKeys.id))
    .limit(500);
  return rows.map((row) => describeApiKey(row.key, row.organizationId));
}

/** Revokes a key at once. Revoking a revoked key changes nothing and answers the same. */
export async function revokeApiKey(db: Database, context: AuditContext, keyId: string, now = clock.now()) {
  const found = await db
    .select({ key: apiKeys, organizationId: workspaces.organizationId })
    .from(apiKeys)
    .innerJoin(workspaces, eq(workspaces.id, apiKeys.workspaceId))
    .where(eq(apiKeys.id, keyId))
    .get();
  if (!found) throw new ApiError('not_found', `No API key ${keyId}.`);
  if (found.key.revokedAt !== null) return describeApiKey(found.key, found.organizationId, now);
  await db.batch([
    db.update(apiKeys).set({ revokedAt: now }).where(eq(apiKeys.id, keyId)),
    auditInsert(
      db,
      context,
      {
        organizationId: found.organizationId,
        workspaceId: found.key.workspaceId,
        keyId,
        action: 'api_key.revoked',
        targetId: keyId,
      },
      now,
    ),
  ]);
  // The execution guard refuses the key anyway; this isolate need not even try.
  forgetCachedKeys();
  return describeApiKey({ ...found.key, revokedAt: now }, found.organizationId, now);
}

type AdminTokenRow = typeof adminTokens.$inferSelect;

function describeAdminToken(row: AdminTokenRow): AdminTokenView {
  return {
    admin_token_id: row.id,
    name: row.name,
    token_prefix: row.tokenPrefix,
    revoked_at: iso(row.revokedAt),
    created_by: row.createdBy,
    created_at: iso(row.createdAt),
  };
}

/** Mints an admin token; like an API key, it is shown once and stored hashed. */
export async function mintAdminToken(db: Database, context: AuditContext, name: string, now = clock.now()) {
  const token = newSecretToken('egadm_');
  const row: AdminTokenRow = {
    id: newId('adm', now),
    name,
    tokenHash: await sha256Hex(token),
    tokenPrefix: displayPrefix(token),
    revokedAt: null,
    createdBy: context.actorId,
    createdAt: now,
  };
  await db.batch([
    db.insert(adminTokens).values(row),
    auditInsert(db, context, { action: 'admin_token.minted', targetId: row.id, metadata: { name } }, now),
  ]);
  return { ...describeAdminToken(row), token };
}

/** Admin tokens, newest first, without secrets. */
export async function listAdminTokens(db: Database) {
  const rows = await db.select().from(adminTokens).orderBy(desc(adminTokens.id)).limit(500);
  return rows.map(describeAdminToken);
}

/** Revokes an admin token at once; revoking twice answers the same. */
export async function revokeAdminToken(db: Database, context: AuditContext, adminTokenId: string, now = clock.now()) {
  const row = await db.select().from(adminTokens).where(eq(adminTokens.id, adminTokenId)).get();
  if (!row) throw new ApiError('not_found', `No admin token ${adminTokenId}.`);
  if (row.revokedAt !== null) return describeAdminToken(row);
  await db.batch([
    db.update(adminTokens).set({ revokedAt: now }).where(eq(adminTokens.id, adminTokenId)),
    auditInsert(db, context, { action: 'admin_token.revoked', targetId: adminTokenId }, now),
  ]);
  return describeAdminToken({ ...row, revokedAt: now });
}
