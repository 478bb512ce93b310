/**
 * The provider API (docs/design/providers-and-leads.md): a provider reads and writes their own profile and
 * preferences.
 */
import { createRoute } from '@hono/zod-openapi';
import { requireVerifiedEmail } from '../identity';
import { newApp } from '../../lib/app';
import { parseJsonBody, readJsonBody } from '../../lib/body';
import { jsonBody, jsonContent, problemResponses } from '../../lib/openapi';
import { requireProvider, requireProviderRow } from './gate';
import { preferencesOf, savePreferences } from './preferences';
import { preferencesPatchSchema, preferencesSchema, profileInputSchema, providerProfileSchema } from './schemas';
import { saveProviderProfile } from './profile';
import { describeProvider } from './records';

const TAG = 'Providers';
/** Provider routes take the provider's console session (the cookie of {auth_url}). */
const security: Record<string, string[]>[] = [{ consoleSession: [] }];

export const getProfileRoute = createRoute({
  method: 'get',
  path: '/api/provider/profile',
  operationId: 'getProviderProfile',
  tags: [TAG],
  summary: 'Read your provider profile, its state and what it still needs',
  description:
    'Needs a signed-in provider (a business account gets 403 `provider_required`). `missing_fields` lists what must ' +
    'be filled in before submitting; `history` is every change of state.',
  security,
  middleware: [requireProvider('profile.manage')] as const,
  responses: { 200: jsonContent(providerProfileSchema, 'The profile.'), ...problemResponses([401, 403] as const) },
});

export const saveProfileRoute = createRoute({
  method: 'post',
  path: '/api/provider/profile',
  operationId: 'saveProviderProfile',
  tags: [TAG],
  summary: 'Save your provider profile, and submit it for review',
  description:
    'Send any of the fields; the rest stay as they are. `submit: true` sends a complete profile to review ' +
    "(`pending_review`), once the account's email is confirmed (else 403 `email_unverified`). An active " +
    'provider who changes kind, accepted scope or endpoint goes back to review; any other change of state is ' +
    '409 `invalid_transition`. URLs must be public https (the egress guard).',
  security,
  middleware: [readJsonBody(), requireProvider('profile.manage'), parseJsonBody] as const,
  request: {
    body: jsonBody(profileInputSchema, {
      kind: 'expert',
      display_name: 'Dana Reyes',
      headline: 'Payroll and bookkeeping for small firms',
      accepted_scope: { domains: ['consultation'], topics: ['payroll'] },
      languages: ['en'],
      regions: ['US'],
    }),
  },
  responses: {
    200: jsonContent(providerProfileSchema, 'The saved profile.'),
    ...problemResponses([400, 401, 403, 409, 413, 415, 422] as const),
  },
});

export const getPreferencesRoute = createRoute({
  method: 'get',
  path: '/api/provider/preferences',
  operationId: 'getProviderPreferences',
  tags: [TAG],
  summary: 'Read your lead preferences: availability, lead alerts and capacity',
  description: 'Needs a signed-in provider. New accounts start `available`, with `instant` alerts and 20 open claims.',
  security,
  middleware: [requireProvider('profile.manage')] as const,
  responses: { 200: jsonContent(preferencesSchema, 'The preferences.'), ...problemResponses([401, 403] as const) },
});

export const savePreferencesRoute = createRoute({
  method: 'post',
  path: '/api/provider/preferences',
  operationId: 'saveProviderPreferences',
  tags: [TAG],
  summary: 'Change your lead preferences',
  description:
    'Send any of the fields; the rest stay as they are. `away` stops new offers and alerts (the leads you hold ' +
    'stay yours); `lead_alerts` chooses an email per lead, an hourly digest, or none.',
  security,
  middleware: [readJsonBody(), requireProvider('profile.manage'), parseJsonBody] as const,
  request: { body: jsonBody(preferencesPatchSchema, { availability: 'away', lead_alerts: 'hourly' }) },
  responses: {
    200: jsonContent(preferencesSchema, 'The saved preferences.'),
    ...problemResponses([400, 401, 403, 413, 415, 422] as const),
  },
});

/** The provider profile routes. */
export function providerProfileRoutes() {
  const app = newApp('problem');
  app.openapi(getProfileRoute, async (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json(await describeProvider(c.var.db, requireProviderRow(c)), 200);
  });
  app.openapi(saveProfileRoute, async (c) => {
    if (c.req.valid('json').submit) requireVerifiedEmail(c.var.user);
    const saved = await saveProviderProfile(
      c.var.db,
      requireProviderRow(c),
      c.req.valid('json'),
      { egress: c.var.services.egress, secretsKey: c.var.services.secretsKey },
      c.var.requestId,
    );
    c.header('Cache-Control', 'no-store');
    return c.json(await describeProvider(c.var.db, saved), 200);
  });
  app.openapi(getPreferencesRoute, (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json(preferencesOf(requireProviderRow(c)), 200);
  });
  app.openapi(savePreferencesRoute, async (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json(await savePreferences(c.var.db, requireProviderRow(c), c.req.valid('json')), 200);
  });
  return app;
}
