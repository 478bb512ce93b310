/**
 * The one provider gate, for the provider API and the provider's console pages alike: a signed-in
 * provider whose state and kind allow the action (access/policy.ts). A business user gets 403
 * `provider_required`; a provider not allowed, 403 `provider_inactive` (or `forbidden` for the
 * agents' operations).
 */
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../../env';
import { ApiError } from '../../lib/errors';
import { isSameOriginRequest, SAFE_METHODS } from '../identity';
import { providerRefusal, type ProviderAction } from '../access';
import { readSessionToken, type SessionUser, validateSession } from '../identity';
import { providerByUserQuery, type ProviderRow } from './records';
import { clock } from '../../lib/clock';

declare module 'hono' {
  interface ContextVariableMap {
    /** Set on provider routes and pages: the signed-in provider. */
    provider: ProviderRow;
  }
}

/**
 * A signed-in console session for an API route: the user, after the same-origin check that every
 * cookie-authenticated change must pass. Without a valid session: 401 `session_required`.
 */
async function requireSessionProvider(
  c: Context<AppEnv>,
): Promise<{ user: SessionUser; provider: ProviderRow | undefined }> {
  const token = readSessionToken(c);
  // The session and its provider record, in one round trip.
  const session = token
    ? await validateSession(c.var.db, token, clock.now(), (userId) => providerByUserQuery(c.var.db, userId))
    : undefined;
  if (!session)
    throw new ApiError('session_required', 'Sign in to the console first; this route takes a console session.');
  if (!SAFE_METHODS.has(c.req.method) && !isSameOriginRequest(c)) {
    throw new ApiError('csrf_rejected', 'Cookie-authenticated changes must come from the console itself.');
  }
  c.set('user', session.user);
  return { user: session.user, provider: session.companion[0] };
}

/** What a refused provider is told, for the API and the console alike. */
export function providerRefusalError(
  provider: ProviderRow,
  action: ProviderAction,
  refusal: 'state' | 'kind',
): ApiError {
  const extensions = { status: provider.status };
  if (refusal === 'kind') {
    return action === 'agent.operate'
      ? new ApiError('forbidden', 'This is for agents and robots: experts claim leads in the workbench instead.', {
          extensions,
        })
      : new ApiError(
          'provider_inactive',
          'The workbench is for experts; agents and robots answer executions instead.',
          { extensions },
        );
  }
  return new ApiError(
    'provider_inactive',
    `Your provider account is ${provider.status.replace('_', ' ')}; it cannot do this in that state.`,
    { extensions },
  );
}

/**
 * Admits a signed-in provider whose state and kind allow the action (access/policy.ts). A
 * business user gets 403 `provider_required`; a provider not allowed, 403 `provider_inactive`
 * (or `forbidden` for the agents' operations).
 */
export function requireProvider(action: ProviderAction) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const { user, provider } = await requireSessionProvider(c);
    if (user.role !== 'provider' || !provider)
      throw new ApiError('provider_required', 'This route is for provider accounts (experts, agents and robots).');
    const refusal = providerRefusal(provider, action);
    if (refusal) throw providerRefusalError(provider, action, refusal);
    c.set('provider', provider);
    await next();
  });
}

/** The provider that requireProvider admitted. */
export function requireProviderRow(c: Context<AppEnv>): ProviderRow {
  const provider = c.get('provider');
  if (!provider) throw new Error('requireProvider must run before this handler');
  return provider;
}
