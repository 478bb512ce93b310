/**
 * Platform identity and provisioning: organisations, workspaces, API keys and admin tokens.
 * Every change is written together with its audit record in one D1 batch.
 */
import { desc, eq, sql } from 'drizzle-orm';
import { displayPrefix, newSecretToken, sha256Hex } from '../../lib/crypto';
import { schema, type Database } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { auditInsert, auditInsertWhere, type AuditContext } from './audit';
import { forgetCachedKeys } from './credentials';
import { forgetRiskPolicy } from './tenants';

export { workspaceRiskPolicy } from './tenants';

const { organizations, workspaces, apiKeys, adminTokens, users } = schema;

/** Sets the words and phrases that hold a demand of this workspace for review. */
export async function setBlockedTerms(
  db: Database,
  context: AuditContext,
  scope: { workspaceId: string; organizationId: string },
  terms: string[],
  now = Date.now(),
) {
  const cleaned = [...new Set(terms.map((term) => term.trim().toLowerCase()).filter(Boolean))];
  await db.batch([
    db.update(workspaces).set({ blockedTerms: cleaned }).where(eq(workspaces.id, scope.workspaceId)),
    auditInsert(
      db,
      context,
      {
        organizationId: scope.organizationId,
        workspaceId: scope.workspaceId,
        action: 'workspace.blocked_terms_changed',
        targetId: scope.workspaceId,
        metadata: { count: cleaned.length },
      },
      now,
    ),
  ]);
  forgetRiskPolicy(scope.workspaceId);
  return cleaned;
}

/** A user as an administrator sees them. */
function describeUser(row: typeof users.$inferSelect) {
  return {
    user_id: row.id,
    email: row.email,
    role: row.role,
    platform_admin: row.isPlatformAdmin,
    created_at: iso(row.createdAt),
  };
}

/** Finds a user by email (the admin API's "find by email"). */
export async function findUserByEmail(db: Database, email: string) {
  const row = await db.select().from(users).where(eq(users.email, email.trim().toLowerCase())).get();
  if (!row) throw new ApiError('not_found', 'No user with that email.');
  return describeUser(row);
}

/** Grants or removes platform admin (who reviews providers in the console). */
export async function setPlatformAdmin(
  db: Database,
  context: AuditContext,
  userId: string,
  granted: boolean,
  now = Date.now(),
) {
  const [updated] = await db.batch([
    db.update(users).set({ isPlatformAdmin: granted, updatedAt: now }).where(eq(users.id, userId)).returning(),
    auditInsertWhere(
      db,
      context,
      { action: granted ? 'user.platform_admin_granted' : 'user.platform_admin_removed', targetId: userId },
      sql`EXISTS (SELECT 1 FROM ${users} WHERE ${users.id} = ${userId})`,
      now,
    ),
  ]);
  const row = updated[0];
  if (!row) throw new ApiError('not_found', `No user ${userId}.`);
  return describeUser(row);
}

const iso = (milliseconds: number | null) => (milliseconds === null ? null : new Date(milliseconds).toISOString());

export type RecordStatus = 'active' | 'suspended';

/** Creates an organisation with its first workspace. */
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
    db
      .insert(workspaces)
      .values({ id: workspaceId, organizationId, name: workspaceName, status: 'active', createdAt: now }),
    auditInsert(
      db,
      context,
      { organizationId, workspaceId, action: 'organization.created', targetId: organizationId },
      now,
    ),
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

/** Organisations, newest first. */
export async function listOrganizations(db: Database) {
  const rows = await db.select().from(organizations).orderBy(desc(organizations.id)).limit(500);
  return rows.map((row) => ({
    organization_id: row.id,
    name: row.name,
    status: row.status,
    created_at: iso(row.createdAt),
  }));
}

/** Adds a workspace to an organisation. */
export async function createWorkspace(
  db: Database,
  context: AuditContext,
  input: { organizationId: string; name: string },
  now = Date.now(),
) {
  const organization = await db
    .select({ id: organizations.id })
    .from(organizations)
    .where(eq(organizations.id, input.organizationId))
    .get();
  if (!organization) throw new ApiError('not_found', `No organisation ${input.organizationId}.`);
  const workspaceId = newId('ws', now);
  await db.batch([
    db.insert(workspaces).values({
      id: workspaceId,
      organizationId: input.organizationId,
      name: input.name,
      status: 'active',
      createdAt: now,
    }),
    auditInsert(
      db,
      context,
      { organizationId: input.organizationId, workspaceId, action: 'workspace.created', targetId: workspaceId },
      now,
    ),
  ]);
  return {
    workspace_id: workspaceId,
    organization_id: input.organizationId,
    name: input.name,
    status: 'active' as const,
    created_at: iso(now),
  };
}

/** Workspaces, of one organisation or all, newest first. */
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
  forgetCachedKeys();
  return { id: target.id, status };
}

type ApiKeyRow = typeof apiKeys.$inferSelect;

function describeApiKey(row: ApiKeyRow, organizationId: string, now = Date.now()) {
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

/** Mints an admin token; like an API key, it is shown once and stored hashed. */
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

/** Admin tokens, newest first, without secrets. */
export async function listAdminTokens(db: Database) {
  const rows = await db.select().from(adminTokens).orderBy(desc(adminTokens.id)).limit(500);
  return rows.map(describeAdminToken);
}

/** Revokes an admin token at once; revoking twice answers the same. */
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
