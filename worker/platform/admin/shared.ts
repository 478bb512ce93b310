import { z } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../../env';
import { requireAdmin, requireBearer } from '../../lib/auth';
import { parseJsonBody, readJsonBody } from '../../lib/body';
import type { AuditContext } from '../identity';

/** Middleware for admin routes with a JSON body, in the gateway's check order. */
export const adminJsonMiddleware: MiddlewareHandler<AppEnv>[] = [readJsonBody(), requireBearer('admin'), parseJsonBody];
export const adminMiddleware: MiddlewareHandler<AppEnv>[] = [requireBearer('admin')];

export function adminAuditContext(c: Context<AppEnv>): AuditContext {
  return { actorKind: 'admin', actorId: requireAdmin(c).adminId, requestId: c.var.requestId, traceId: c.var.traceId };
}

export const jsonContent = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { 'application/json': { schema } },
});

export const idParam = (name: string, prefix: string) =>
  z.object({ [name]: z.string().startsWith(`${prefix}_`).max(64) } as Record<string, z.ZodString>);

export const nameSchema = z.string().trim().min(1).max(120);
