/**
 * The tenant of a record: its workspace and that workspace's organisation. Every lookup that
 * must refuse a suspended tenant joins the two the same way, through here.
 */
import { eq, sql, type SQL } from 'drizzle-orm';
import type { AnySQLiteColumn, SQLiteSelect } from 'drizzle-orm/sqlite-core';
import { schema } from '../../lib/db';

const { workspaces, organizations } = schema;

/** 1 when both the workspace and its organisation are active, else 0 (the tenant is joined). */
export const tenantIsActive: SQL<number> = sql<number>`(${workspaces.status} = 'active' AND ${organizations.status} = 'active')`;

/** Joins the workspace named by `workspaceId`, and its organisation, to a dynamic query. */
export function joinTenant<T extends SQLiteSelect>(query: T, workspaceId: AnySQLiteColumn) {
  return query
    .innerJoin(workspaces, eq(workspaces.id, workspaceId))
    .innerJoin(organizations, eq(organizations.id, workspaces.organizationId));
}
