/**
 * Platform identity and provisioning: users, organisations and workspaces (keys and admin tokens
 * are the keys module's). Every change is written together with its audit record in one D1 batch.
 */
import { desc, eq, sql } from 'drizzle-orm';
import { schema, type Database } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { auditInsert, auditInsertWhere, type AuditContext } from '../audit';
import {
  directoryEntry,
  enterOrganization,
  placementsOf,
  placeOrganization,
  readEveryShard,
  shardOfOrganization,
} from '../shards';
import type { Services } from '../../lib/services';
import { forgetCachedKeys } from './credentials';
import { forgetDefaultDomain, forgetRiskPolicy } from './tenants';
import { clock } from '../../lib/clock';
import { iso } from '../../lib/periods';

export { workspaceRiskPolicy } from './tenants';

const { organizations, workspaces, users } = schema;

/** Sets the words and phrases that hold a demand of this workspace for review. */
export async function setBlockedTerms(
  db: Database,
  context: AuditContext,
  scope: { workspaceId: string; organizationId: string },
  terms: string[],
  now = clock.now(),
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
  now = clock.now(),
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

export type RecordStatus = 'active' | 'suspended';

/** Creates an organisation with its first workspace, on the shard placement chooses for it. */
export async function createOrganization(
  services: Services,
  context: AuditContext,
  input: { name: string; workspaceName?: string },
  now = clock.now(),
) {
  const { db } = services;
  const organizationId = newId('org', now);
  const workspaceId = newId('ws', now);
  const workspaceName = input.workspaceName ?? 'Default';
  const shard = await placeOrganization(services, organizationId, workspaceId, now);
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
    shard,
  };
}

/** Organisations, newest first (the 500 newest of every shard's, merged), each with its shard. */
export async function listOrganizations(db: Database) {
  const read = (each: Database) => each.select().from(organizations).orderBy(desc(organizations.id)).limit(500).all();
  const rows = (await readEveryShard(db, organizations, read))
    .flat()
    .sort((a, b) => (a.id < b.id ? 1 : -1))
    .slice(0, 500);
  const placed = await placementsOf(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({
    organization_id: row.id,
    name: row.name,
    status: row.status,
    created_at: iso(row.createdAt),
    shard: placed.get(row.id) ?? null,
  }));
}

/** Adds a workspace to an organisation. */
export async function createWorkspace(
  db: Database,
  context: AuditContext,
  input: { organizationId: string; name: string },
  now = clock.now(),
) {
  const notFound = () => new ApiError('not_found', `No organisation ${input.organizationId}.`);
  if ((await shardOfOrganization(db, input.organizationId)) === undefined) throw notFound();
  await enterOrganization(db, input.organizationId);
  const organization = await db
    .select({ id: organizations.id })
    .from(organizations)
    .where(eq(organizations.id, input.organizationId))
    .get();
  if (!organization) throw notFound();
  const workspaceId = newId('ws', now);
  // The directory's entry first: no workspace's row is ever without a map to it.
  await directoryEntry(db, 'workspace', workspaceId, input.organizationId);
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
  // One organisation's are on its shard (the admin route entered it); every organisation's, on every shard.
  const read = (each: Database) =>
    each
      .select()
      .from(workspaces)
      .where(organizationId ? eq(workspaces.organizationId, organizationId) : undefined)
      .orderBy(desc(workspaces.id))
      .limit(500)
      .all();
  const rows = organizationId
    ? await read(db)
    : (await readEveryShard(db, workspaces, read))
        .flat()
        .sort((a, b) => (a.id < b.id ? 1 : -1))
        .slice(0, 500);
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
  now = clock.now(),
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

/**
 * Sets (or clears) the workspace's default domain, with its audit record; 404 for no such
 * workspace. The caller checks the domain against the catalog.
 */
export async function setDefaultDomain(
  db: Database,
  context: AuditContext,
  workspaceId: string,
  domain: string | null,
  now = clock.now(),
): Promise<{ workspace_id: string; default_domain: string | null }> {
  const workspace = await db
    .select({ organizationId: workspaces.organizationId })
    .from(workspaces)
    .where(eq(workspaces.id, workspaceId))
    .get();
  if (!workspace) throw new ApiError('not_found', `No workspace ${workspaceId}.`);
  await db.batch([
    db.update(workspaces).set({ defaultDomain: domain }).where(eq(workspaces.id, workspaceId)),
    auditInsert(
      db,
      context,
      {
        organizationId: workspace.organizationId,
        workspaceId,
        action: 'workspace.default_domain_changed',
        targetId: workspaceId,
        metadata: { domain },
      },
      now,
    ),
  ]);
  forgetDefaultDomain(workspaceId);
  return { workspace_id: workspaceId, default_domain: domain };
}
