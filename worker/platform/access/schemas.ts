/** The wire shapes of access: the scopes an API key can hold. */
import { z } from '@hono/zod-openapi';

export const KNOWN_SCOPES = [
  'execute',
  'leads:write',
  'agents:invoke',
  'memory:read',
  'memory:write',
  'channels:read',
  'channels:write',
] as const;

export const scopeSchema = z.enum(KNOWN_SCOPES).openapi('Scope', {
  description: 'A permission an API key can hold. `execute` is needed for /api/execute.',
});
export type Scope = z.infer<typeof scopeSchema>;
