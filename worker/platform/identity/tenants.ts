/**
 * The tenant of a record: its workspace and that workspace's organisation. Every lookup that
 * must refuse a suspended tenant joins the two the same way, through here.
 */
import { eq, sql, type SQL } from 'drizzle-orm';
import type { AnySQLiteColumn, SQLiteSelect } from 'drizzle-orm/sqlite-core';
import { schema, type Database } from '../../lib/db';
import { TtlCache } from '../../lib/ttl-cache';

const { workspaces, organizations } = schema;

/** 1 when both the workspace and its organisation are active, else 0 (the tenant is joined). */
export const tenantIsActive: SQL<number> = sql<number>`(
  ${workspaces.status} = 'active' AND ${organizations.status} = 'active'
)`;

/** Joins the workspace named by `workspaceId`, and its organisation, to a dynamic query. */
export function joinTenant<T extends SQLiteSelect>(query: T, workspaceId: AnySQLiteColumn) {
  return query
    .innerJoin(workspaces, eq(workspaces.id, workspaceId))
    .innerJoin(organizations, eq(organizations.id, workspaces.organizationId));
}

const riskPolicyCache = new TtlCache<{ blockedTerms: string[] }>(10_000, 1000);

/** A workspace's risk settings (its blocked terms), cached briefly: they guard no access decision. */
export async function workspaceRiskPolicy(db: Database, workspaceId: string): Promise<{ blockedTerms: string[] }> {
  return riskPolicyCache.get(workspaceId, db, async () => {
    const row = await db
      .select({ blockedTerms: workspaces.blockedTerms })
      .from(workspaces)
      .where(eq(workspaces.id, workspaceId))
      .get();
    return { blockedTerms: row?.blockedTerms ?? [] };
  });
}

/** Caches blocked terms read alongside something else (a key lookup), sparing their own round trip. */
export function rememberRiskPolicy(workspaceId: string, blockedTerms: string[]): void {
  riskPolicyCache.set(workspaceId, { blockedTerms });
}

/** Forgets a workspace's cached risk settings (after a change through this isolate). */
export function forgetRiskPolicy(workspaceId: string): void {
  riskPolicyCache.clear(workspaceId);
}

const defaultDomainCache = new TtlCache<string | null>(10_000, 1000);

/** A workspace's default domain (for demands that name none), cached briefly: it guards nothing. */
export async function workspaceDefaultDomain(db: Database, workspaceId: string): Promise<string | null> {
  return defaultDomainCache.get(workspaceId, db, async () => {
    const row = await db
      .select({ domain: workspaces.defaultDomain })
      .from(workspaces)
      .where(eq(workspaces.id, workspaceId))
      .get();
    return row?.domain ?? null;
  });
}

/** Forgets a workspace's cached default domain (after a change through this isolate). */
export function forgetDefaultDomain(workspaceId: string): void {
  defaultDomainCache.clear(workspaceId);
}
