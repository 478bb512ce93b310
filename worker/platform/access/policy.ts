/**
 * The one access policy: which API-key scope or workspace role may take which action, and which
 * provider states and kinds may take which provider action. Pure data: the identity guards
 * (identity/guards.ts), the provider gate (providers/gate.ts), the services and the console pages
 * all ask this table, so a rule is written once. Platform administrators use the admin API.
 */
import { PROVIDER_STATUSES, type ProviderKind, type ProviderStatus, type WorkspaceRole } from '../../vocabulary';

export { KNOWN_SCOPES, type Scope, SCOPE_MEANINGS, scopeSchema } from './schemas';
import type { Scope } from './schemas';

interface Rule {
  /** The API-key scope that allows it; null when no API key may. */
  scope: Scope | null;
  /** The workspace roles whose console session allows it. */
  roles: readonly WorkspaceRole[];
}

/** Every action on a workspace, and who may take it. */
export const WORKSPACE_POLICY = {
  /** Read the workspace's channels, their widget settings and their intake. */
  'channels.read': { scope: 'channels:read', roles: ['owner', 'admin', 'member'] },
  /** Create and change channels and widget settings. */
  'channels.write': { scope: 'channels:write', roles: ['owner', 'admin'] },
  /** See the team and its open invitations. */
  'team.read': { scope: null, roles: ['owner', 'admin', 'member'] },
  /** Invite, change roles, remove members, withdraw invitations. */
  'team.manage': { scope: null, roles: ['owner'] },
  /** See the workspace's API keys (metadata only). */
  'keys.read': { scope: null, roles: ['owner', 'admin', 'member'] },
  /** Ask the platform for an API key or a webhook endpoint, and see its one secret once approved. */
  'provisioning.request': { scope: null, roles: ['owner'] },
  /** Change the workspace's own settings, such as its blocked terms. */
  'workspace.settings': { scope: null, roles: ['owner', 'admin'] },
  /** See the webhook endpoints and their delivery log (read only: changes go through provisioning). */
  'webhooks.read': { scope: null, roles: ['owner'] },
  /** Read the email log: alerts and visitor emails about the workspace's leads, recipients masked. */
  'emails.read': { scope: null, roles: ['owner', 'admin'] },
  /** The workspace's insights: its funnel, response times and outcomes (docs/design/insights.md). */
  'insights.read': { scope: 'channels:read', roles: ['owner'] },
  /** Read the knowledge's sources, its gaps, and ask it (docs/design/knowledge.md). */
  'knowledge.read': { scope: 'knowledge:read', roles: ['owner'] },
  /** Add, re-sync and delete knowledge sources. */
  'knowledge.write': { scope: 'knowledge:write', roles: ['owner'] },
  /** See the contract's usage, the escrow's balance and the statements (money: owners only). */
  'usage.read': { scope: null, roles: ['owner'] },
  /** Erase a visitor's data, export the workspace's (owners only; an administrator may name the workspace). */
  'privacy.manage': { scope: null, roles: ['owner'] },
} as const satisfies Record<string, Rule>;

export type WorkspaceAction = keyof typeof WORKSPACE_POLICY;

interface ProviderRule {
  /**
   * The provider states that allow it (docs/design/providers-and-leads.md: only active providers see or claim leads).
   */
  states: readonly ProviderStatus[];
  /** The provider kinds it is for; null: every kind, and a provider who has not chosen one yet. */
  kinds: readonly ProviderKind[] | null;
}

/**
 * Provider actions, and the states and kinds that allow them. The provider API (requireProvider)
 * and the provider's console pages (their one page gate) both ask this table.
 */
export const PROVIDER_POLICY = {
  /** Read and edit one's own profile, and submit it for review. */
  'profile.manage': { states: PROVIDER_STATUSES, kinds: null },
  /** See, claim and work leads in the workbench. */
  'workbench.use': { states: ['active'], kinds: ['expert'] },
  /** Agents and robots: their signing secret (shown once, rotated) and their health. */
  'agent.operate': { states: ['active', 'suspended', 'pending_review'], kinds: ['agent', 'robot'] },
} as const satisfies Record<string, ProviderRule>;

export type ProviderAction = keyof typeof PROVIDER_POLICY;

/** Why a provider may not take an action: its state, or its kind; undefined when it may. */
export function providerRefusal(
  provider: { status: ProviderStatus; kind: ProviderKind | null },
  action: ProviderAction,
): 'state' | 'kind' | undefined {
  const rule: ProviderRule = PROVIDER_POLICY[action];
  if (rule.kinds && (!provider.kind || !rule.kinds.includes(provider.kind))) return 'kind';
  if (!rule.states.includes(provider.status)) return 'state';
  return undefined;
}

/** Whether a member with this role may take the action. */
export function roleMay(role: WorkspaceRole, action: WorkspaceAction): boolean {
  return (WORKSPACE_POLICY[action].roles as readonly WorkspaceRole[]).includes(role);
}

/** The scope an API key needs for the action, or null when keys may not take it. */
export function scopeFor(action: WorkspaceAction): Scope | null {
  return WORKSPACE_POLICY[action].scope;
}
