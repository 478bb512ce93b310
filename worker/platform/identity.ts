/**
 * Platform identity and provisioning: organisations, workspaces, API keys, admin tokens and
 * the audit log. Every change is written together with its audit record in one D1 batch.
 */
import { and, desc, eq, lt, type SQL } from 'drizzle-orm';
import { displayPrefix, newSecretToken, sha256Hex } from '../lib/crypto';
import { schema, type Database } from '../lib/db';
import { ApiError } from '../lib/errors';
import { newId } from '../lib/ids';

const { organizations, workspaces, apiKeys, adminTokens, auditLog } = schema;

/** Who did it and under which request, for the audit record. */
export interface AuditContext {
  actorKind: 'admin' | 'api_key' | 'user' | 'system';
  actorId: string;
  requestId: string;
  traceId?: string;
}

type AuditEntry = Omit<typeof auditLog.$inferInsert, 'id' | 'createdAt' | 'actorKind' | 'actorId' | 'requestId' | 'traceId' | 'targetId'> & {
  /** The record acted on; SQL when its id is only known inside the batch. */
  targetId?: string | SQL | null;
};

/** An audit record of `context`'s action, for the change's own batch. */
export function auditInsert(db: Database, context: AuditContext, entry: AuditEntry, now: number) {
  return db.insert(auditLog).values({
    id: newId('aud', now),
    actorKind: context.actorKind,
    actorId: context.actorId,
    requestId: context.requestId,
    traceId: context.traceId ?? null,
    createdAt: now,
    ...entry,
  });
}

const iso = (milliseconds: number | null) => (milliseconds === null ? null : new Date(milliseconds).toISOString());

export type RecordStatus = 'active' | 'suspended';

export async function createOrganization(
  db: Database,
  context: AuditContext,
  input: { name: string; workspaceName?: string },
  now = Date.now(),
) {
  const organizationId = newId('org', now);
  const workspaceId = newId('ws', now);
  const workspaceName = input.workspaceName ?? 'Default';
  await db.batch([
    db.insert(organizations).values({ id: organizationId, name: input.name, status: 'active', createdAt: now }),
    db.insert(workspaces).values({ id: workspaceId, organizationId, name: workspaceName, status: 'active', createdAt: now }),
    auditInsert(db, context, { organizationId, workspaceId, action: 'organization.created', targetId: organizationId }, now),
  ]);
  return {
    organization_id: organizationId,
    workspace_id: workspaceId,
    name: input.name,
    workspace_name: workspaceName,
    status: 'active' as const,
    created_at: iso(now),
  };
}

export async function listOrganizations(db: Database) {
  const rows = await db.select().from(organizations).orderBy(desc(organizations.id)).limit(500);
  return rows.map((row) => ({ organization_id: row.id, name: row.name, status: row.status, created_at: iso(row.createdAt) }));
}

export async function createWorkspace(
  db: Database,
  context: AuditContext,
  input: { organizationId: string; name: string },
  now = Date.now(),
) {
  const organization = await db.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, input.organizationId)).get();
  if (!organization) throw new ApiError('not_found', `No organisation ${input.organizationId}.`);
  const workspaceId = newId('ws', now);
  await db.batch([
    db.insert(workspaces).values({ id: workspaceId, organizationId: input.organizationId, name: input.name, status: 'active', createdAt: now }),
    auditInsert(db, context, { organizationId: input.organizationId, workspaceId, action: 'workspace.created', targetId: workspaceId }, now),
  ]);
  return { workspace_id: workspaceId, organization_id: input.organizationId, name: input.name, status: 'active' as const, created_at: iso(now) };
}

export async function listWorkspaces(db: Database, organizationId?: string) {
  const rows = await db
    .select()
    .from(workspaces)
    .where(organizationId ? eq(workspaces.organizationId, organizationId) : undefined)
    .orderBy(desc(workspaces.id))
    .limit(500);
  return rows.map((row) => ({
    workspace_id: row.id,
    organization_id: row.organizationId,
    name: row.name,
    status: row.status,
    created_at: iso(row.createdAt),
  }));
}

/** Suspends or reactivates an organisation or a workspace; executions check both. */
export async function setStatus(
  db: Database,
  context: AuditContext,
  target: { kind: 'organization' | 'workspace'; id: string },
  status: RecordStatus,
  now = Date.now(),
) {
  const table = target.kind === 'organization' ? organizations : workspaces;
  const existing = await db.select({ id: table.id }).from(table).where(eq(table.id, target.id)).get();
  if (!existing) throw new ApiError('not_found', `No ${target.kind} ${target.id}.`);
  await db.batch([
    db.update(table).set({ status }).where(eq(table.id, target.id)),
    auditInsert(
      db,
      context,
      {
        organizationId: target.kind === 'organization' ? target.id : null,
        workspaceId: target.kind === 'workspace' ? target.id : null,
        action: `${target.kind}.${status === 'active' ? 'activated' : 'suspended'}`,
        targetId: target.id,
      },
      now,
    ),
  ]);
  return { id: target.id, status };
}

type ApiKeyRow = typeof apiKeys.$inferSelect;

function describeApiKey(row: ApiKeyRow, organizationId: string, now = Date.now()) {
  const state = row.revokedAt !== null ? 'revoked' : row.expiresAt !== null && row.expiresAt <= now ? 'expired' : 'active';
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
export type ApiKeyDescription = ReturnType<typeof describeApiKey>;

export interface IssueApiKeyInput {
  workspaceId: string;
  name: string;
  scopes: string[];
  rateLimitPerMinute?: number;
  monthlyQuota?: number;
  expiresAt?: number;
}

/** Issues a key. The token is returned once, here, and only its SHA-256 is stored. */
export async function issueApiKey(db: Database, context: AuditContext, input: IssueApiKeyInput, now = Date.now()) {
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
export async function revokeApiKey(db: Database, context: AuditContext, keyId: string, now = Date.now()) {
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
      { organizationId: found.organizationId, workspaceId: found.key.workspaceId, keyId, action: 'api_key.revoked', targetId: keyId },
      now,
    ),
  ]);
  return describeApiKey({ ...found.key, revokedAt: now }, found.organizationId, now);
}

type AdminTokenRow = typeof adminTokens.$inferSelect;

function describeAdminToken(row: AdminTokenRow) {
  return {
    admin_token_id: row.id,
    name: row.name,
    token_prefix: row.tokenPrefix,
    revoked_at: iso(row.revokedAt),
    created_by: row.createdBy,
    created_at: iso(row.createdAt),
  };
}

export async function mintAdminToken(db: Database, context: AuditContext, name: string, now = Date.now()) {
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

export async function listAdminTokens(db: Database) {
  const rows = await db.select().from(adminTokens).orderBy(desc(adminTokens.id)).limit(500);
  return rows.map(describeAdminToken);
}

export async function revokeAdminToken(db: Database, context: AuditContext, adminTokenId: string, now = Date.now()) {
  const row = await db.select().from(adminTokens).where(eq(adminTokens.id, adminTokenId)).get();
  if (!row) throw new ApiError('not_found', `No admin token ${adminTokenId}.`);
  if (row.revokedAt !== null) return describeAdminToken(row);
  await db.batch([
    db.update(adminTokens).set({ revokedAt: now }).where(eq(adminTokens.id, adminTokenId)),
    auditInsert(db, context, { action: 'admin_token.revoked', targetId: adminTokenId }, now),
  ]);
  return describeAdminToken({ ...row, revokedAt: now });
}

export interface AuditQuery {
  workspaceId?: string;
  organizationId?: string;
  action?: string;
  /** Cursor: the id of the last record of the previous page. */
  startingAfter?: string;
  limit: number;
}

/** Newest first, with cursor pagination on the time-sortable id. */
export async function listAuditLog(db: Database, query: AuditQuery) {
  const conditions: SQL[] = [];
  if (query.workspaceId) conditions.push(eq(auditLog.workspaceId, query.workspaceId));
  if (query.organizationId) conditions.push(eq(auditLog.organizationId, query.organizationId));
  if (query.action) conditions.push(eq(auditLog.action, query.action));
  if (query.startingAfter) conditions.push(lt(auditLog.id, query.startingAfter));
  const rows = await db
    .select()
    .from(auditLog)
    .where(and(...conditions))
    .orderBy(desc(auditLog.id))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit);
  return {
    data: page.map((row) => ({
      audit_id: row.id,
      action: row.action,
      actor_kind: row.actorKind,
      actor_id: row.actorId,
      key_id: row.keyId,
      organization_id: row.organizationId,
      workspace_id: row.workspaceId,
      target_id: row.targetId,
      request_id: row.requestId,
      trace_id: row.traceId,
      metadata: row.metadata,
      created_at: iso(row.createdAt),
    })),
    has_more: rows.length > query.limit,
    next_cursor: rows.length > query.limit ? (page[page.length - 1]?.id ?? null) : null,
  };
}
