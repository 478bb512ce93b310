/** The wire shapes of access: the scopes an API key can hold. */
import { z } from '@hono/zod-openapi';

/**
 * Every scope, in a fixed order: an execution stores its granted scopes as bits in this order
 * (scopeBits), so a new scope is only ever added at the end.
 */
export const KNOWN_SCOPES = [
  'execute',
  'leads:write',
  'agents:invoke',
  'memory:read',
  'memory:write',
  'channels:read',
  'channels:write',
  'knowledge:read',
  'knowledge:write',
] as const;

export const scopeSchema = z.enum(KNOWN_SCOPES).openapi('Scope', {
  description: 'A permission an API key can hold. `execute` is needed for /api/execute.',
});
export type Scope = z.infer<typeof scopeSchema>;

/** Scopes as one integer: bit i is KNOWN_SCOPES[i] (a stored execution's granted scopes). */
export function scopeBits(scopes: readonly string[]): number {
  return KNOWN_SCOPES.reduce((bits, scope, index) => (scopes.includes(scope) ? bits | (1 << index) : bits), 0);
}

/** The scopes an integer of scopeBits names, in KNOWN_SCOPES order. */
export function scopesOfBits(bits: number): Scope[] {
  return KNOWN_SCOPES.filter((_, index) => (bits & (1 << index)) !== 0);
}

/** What each scope allows, as the docs and the console say it (Markdown code spans). */
export const SCOPE_MEANINGS: Record<Scope, string> = {
  execute: 'Call `POST /api/execute` at all.',
  'leads:write': 'A routed demand becomes a lead that experts claim.',
  'agents:invoke': 'Agents and robots that accept the domain are called first.',
  'memory:read': "An agent receives the conversation's earlier turns (with a `session_id`).",
  'memory:write': "The conversation's turns are kept for later calls.",
  'channels:read': 'Read channels and their recent intake.',
  'channels:write': 'Create and change channels.',
  'knowledge:read': "Read the workspace's knowledge sources and ask its knowledge.",
  'knowledge:write': 'Add, re-sync and delete knowledge sources.',
};
