/**
 * The API key source (POST /api/execute): admission by the bearer key and its scopes (docs/design/execution.md
 * section 2, steps 4 and 5), the key's rate limit, per-key idempotency, a conversation named by
 * the caller's `session_id` (none without one), and a reply worded for a program's caller.
 */
import { admitKey, type KeyPrincipal } from '../admission';
import { findApiConversation } from '../../conversations';
import { callerReply } from '../replies';
import type { Source } from './source';

export interface ApiSourceInput {
  principal: KeyPrincipal;
  domain: string;
  /** `required_scopes` (empty: all of the key's scopes). */
  requiredScopes: string[];
  /** The caller's `session_id`: a conversation of the key's workspace. */
  sessionId?: string;
  idempotency?: { key: string; fingerprint: string };
}

/** An API key caller as a source of demand. */
export function apiSource(input: ApiSourceInput): Source {
  return {
    ...(input.idempotency ? { idempotency: input.idempotency } : {}),
    async admit(db, context) {
      const admitted = await admitKey(db, input.principal, input.domain, input.requiredScopes, context.now);
      return {
        ...admitted,
        rateLimitSubject: admitted.key.id,
        rateLimitPerMinute: admitted.key.rateLimitPerMinute ?? context.limits.defaultRateLimitPerMinute,
        channelGuard: null,
        routingPool: { kind: 'platform', workspaceId: admitted.workspaceId },
      };
    },
    findConversation: (db, admitted) =>
      input.sessionId ? findApiConversation(db, admitted.workspaceId, input.sessionId) : Promise.resolve(undefined),
    // Only a session_id forms a conversation (docs/design/providers-and-leads.md): a one-off call has nothing to
    // continue.
    newConversation: async (admitted) =>
      input.sessionId
        ? { start: { kind: 'api', workspaceId: admitted.workspaceId, externalSessionId: input.sessionId } }
        : null,
    brainOrigin: () => ({ kind: 'api' }),
    channelFacts: () => undefined,
    reply: callerReply,
  };
}
