/**
 * Admission (docs/design/execution.md, steps 4 and 5): which key an execution runs as, whether its
 * tenant is active, the scopes it runs with, and whether its domain is in the catalog. Nothing
 * here writes: a refused execution leaves no trace.
 */
import { enterBy } from '../shards';
import type { Database } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import type { ContractTerms } from '../billing';
import type { ActiveChannel } from '../channels';
import { assertKnownDomain } from '../domains';
import type { ExecutionContext } from './sources/source';
import { findKeyContext, keyInactiveReason, workspaceInactive, type Actor, type KeyContext } from '../identity';

/** An API request's principal: the bearer actor, and the `key_id` it named (if any). */
export interface KeyPrincipal {
  kind: 'api_key';
  actor: Actor;
  keyId?: string;
}

/** Step 4: the key this execution runs as. */
async function resolveExecutingKey(db: Database, principal: KeyPrincipal, now: number): Promise<KeyContext> {
  const { actor, keyId } = principal;
  if (actor.kind === 'api_key') {
    if (keyId !== undefined && keyId !== actor.key.id) {
      throw new ApiError('key_mismatch', 'key_id must be the id of the bearer key, or left out.', {
        errors: [{ pointer: '/key_id', detail: 'Does not match the bearer key.' }],
      });
    }
    return actor.key;
  }
  if (keyId === undefined) {
    throw new ApiError('key_id_required', 'An administrator must name the API key to act as in key_id.', {
      errors: [{ pointer: '/key_id', detail: 'Required for administrator tokens.' }],
    });
  }
  // The administrator names the key: the directory says whose it is, and its shard is entered.
  const key = (await enterBy(db, 'key', keyId)) ? await findKeyContext(db, { keyId }) : undefined;
  if (!key)
    throw new ApiError('unknown_key_id', `No API key ${keyId}.`, {
      errors: [{ pointer: '/key_id', detail: 'No such key.' }],
    });
  const inactive = keyInactiveReason(key, now);
  if (inactive) {
    throw new ApiError('key_inactive', `API key ${key.id} is ${inactive}.`, {
      errors: [{ pointer: '/key_id', detail: `The key is ${inactive}.` }],
    });
  }
  return key;
}

/** Step 5: the scopes the execution runs with: exactly `required_scopes`, or all of the key's. */
function grantScopes(key: KeyContext, requiredScopes: string[]): string[] {
  if (!key.workspaceActive) throw workspaceInactive();
  const held = new Set(key.scopes);
  const missing = ['execute', ...requiredScopes].filter(
    (scope, index, all) => !held.has(scope) && all.indexOf(scope) === index,
  );
  if (missing.length > 0) {
    throw new ApiError('insufficient_scope', `The key lacks the scope(s): ${missing.join(', ')}.`, {
      extensions: { missing_scopes: missing },
    });
  }
  return requiredScopes.length > 0 ? [...new Set(requiredScopes)] : key.scopes;
}

/** Admits an API request: its executing key, its tenant, its scopes and its domain. */
export async function admitKey(
  db: Database,
  principal: KeyPrincipal,
  domain: string,
  requiredScopes: string[],
  now: number,
) {
  const key = await resolveExecutingKey(db, principal, now);
  const grantedScopes = grantScopes(key, requiredScopes);
  await assertKnownDomain(db, domain);
  return {
    organizationId: key.organizationId,
    workspaceId: key.workspaceId,
    key,
    actorKind: principal.actor.kind,
    actorId: principal.actor.kind === 'admin' ? principal.actor.adminId : key.id,
    grantedScopes,
  };
}

/**
 * The scopes a channel's demand runs with: channels always capture leads, let the domain's
 * agents answer first, and keep the conversation as memory (the visitor sees it whole anyway).
 */
export const CHANNEL_SCOPES = ['execute', 'leads:write', 'agents:invoke', 'memory:read', 'memory:write'];

/** Admits a channel's demand (the channel is active, its tenant too: the route found it so). */
export async function admitChannel(db: Database, channel: ActiveChannel) {
  await assertKnownDomain(db, channel.domain);
  return {
    organizationId: channel.organizationId,
    workspaceId: channel.workspaceId,
    actorKind: 'channel' as const,
    actorId: channel.channelKey,
    grantedScopes: CHANNEL_SCOPES,
  };
}

/**
 * A request may name the contract and escrow it runs under (`exact_bridge`); under a contract,
 * naming another is 422 `contract_mismatch`. Without one, the caller's own references are carried,
 * but not a platform contract's or escrow's id (`ctr_…`, `esc_…`): none is this workspace's, and
 * the envelope and the stored execution would otherwise carry another tenant's.
 */
export function assertContractNamed(contract: ContractTerms | null, context: ExecutionContext): void {
  const named = context.exactBridge;
  if (!named) return;
  if (!contract) {
    const platformIds = [
      ...(named.contract_id?.startsWith('ctr_')
        ? [{ pointer: '/exact_bridge/contract_id', detail: 'No contract is in force for this workspace.' }]
        : []),
      ...(named.escrow_id?.startsWith('esc_')
        ? [{ pointer: '/exact_bridge/escrow_id', detail: 'No contract (and so no escrow) is in force here.' }]
        : []),
    ];
    if (platformIds.length > 0)
      throw new ApiError('contract_mismatch', 'exact_bridge names a contract or escrow that is not this workspace’s.', {
        errors: platformIds,
      });
    return;
  }
  const errors = [
    ...(named.contract_id && named.contract_id !== contract.id
      ? [{ pointer: '/exact_bridge/contract_id', detail: `The contract in force is ${contract.id}.` }]
      : []),
    ...(named.escrow_id && named.escrow_id !== contract.escrowId
      ? [{ pointer: '/exact_bridge/escrow_id', detail: `The contract's escrow is ${contract.escrowId}.` }]
      : []),
  ];
  if (errors.length > 0)
    throw new ApiError('contract_mismatch', 'exact_bridge names another contract or escrow than the one in force.', {
      errors,
    });
}
