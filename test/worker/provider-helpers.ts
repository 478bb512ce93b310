import { expect } from 'vitest';
import { ADMIN_TOKEN, call, json, ORIGIN, copyReferencesNow } from './helpers';
import { forgetExpertPools } from '../../worker/platform/providers';
import { SESSION_COOKIE, signUpUser } from './console-helpers';
import { workerFetch } from './self';
import { clock } from '../../worker/lib/clock';
import { platformDb, type ViewStatement } from './platform-db';

export const SITE = 'https://shop.example.com';

/** A call to a cookie-authenticated API route, from the console's own origin. */
export function sessionCall(
  cookie: string,
  path: string,
  init: { method?: string; body?: unknown; origin?: string } = {},
): Promise<Response> {
  const headers: Record<string, string> = { Cookie: `${SESSION_COOKIE}=${cookie}`, Origin: init.origin ?? ORIGIN };
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  return workerFetch(`${ORIGIN}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

export interface TestProvider {
  email: string;
  cookie: string;
  providerId: string;
  userId: string;
}

/** A provider who signed up and did nothing else (state `registered`). */
export async function signUpProvider(): Promise<TestProvider> {
  const user = await signUpUser('provider');
  const row = await platformDb
    .prepare(
      'SELECT p.id AS provider_id, u.id AS user_id FROM providers p JOIN users u ON u.id = p.user_id WHERE u.email = ?',
    )
    .bind(user.email)
    .first<{ provider_id: string; user_id: string }>();
  return { email: user.email, cookie: user.cookie, providerId: row!.provider_id, userId: row!.user_id };
}

/** A complete expert profile for these domains and topics. */
export function completeProfile(
  options: { domains?: string[]; topics?: string[]; kind?: 'expert' | 'agent' | 'robot' } = {},
) {
  return {
    kind: options.kind ?? 'expert',
    display_name: 'Test Expert',
    headline: 'Helps with tests',
    bio: null,
    accepted_scope: { domains: options.domains ?? ['consultation'], topics: options.topics ?? [] },
    languages: ['en'],
    regions: ['global'],
  };
}

/** The profile version an admin reads before approving. */
export async function profileVersion(providerId: string): Promise<number> {
  return (await json(await call(`/api/admin/providers/${providerId}`, { token: ADMIN_TOKEN }))).version;
}

/** An admin decision through the admin API; an approval names the version just read (or `version`). */
export async function review(
  providerId: string,
  decision: 'approve' | 'reject' | 'suspend',
  note?: string,
  version?: number,
): Promise<Response> {
  const body =
    decision === 'approve' ? { version: version ?? (await profileVersion(providerId)) } : note ? { note } : undefined;
  return call(`/api/admin/providers/${providerId}/${decision}`, {
    method: 'POST',
    token: ADMIN_TOKEN,
    ...(body ? { body } : {}),
  });
}

/**
 * An active expert: signed up, profile submitted, approved by an admin. Their lead alerts are off
 * unless `alerts` says otherwise: every lead would otherwise email every matching expert of the
 * file over SMTP, work that only email.test.ts is about.
 */
export async function createActiveExpert(
  options: { domains?: string[]; topics?: string[]; alerts?: boolean } = {},
): Promise<TestProvider> {
  const provider = await signUpProvider();
  const saved = await sessionCall(provider.cookie, '/api/provider/profile', {
    body: { ...completeProfile(options), submit: true },
  });
  expect(saved.status, await saved.clone().text()).toBe(200);
  expect((await review(provider.providerId, 'approve')).status).toBe(200);
  // Written straight to D1, a test fixture like the seed (the preferences route has its own tests).
  if (!options.alerts) {
    await platformDb.prepare("UPDATE providers SET lead_alerts = 'off' WHERE id = ?").bind(provider.providerId).run();
    await copyReferencesNow();
  }
  return provider;
}

/**
 * Many active experts at once, written straight to D1 as a fixture (users, providers, their domains
 * and a signed-in session each), for tests that need a crowd rather than the sign-up and review
 * flow, which createActiveExpert and the providers tests go through.
 */
export async function seedActiveExperts(count: number, options: { domains: string[] }): Promise<TestProvider[]> {
  const now = clock.now();
  const stamp = crypto.randomUUID().replaceAll('-', '').slice(0, 10);
  const experts: TestProvider[] = [];
  const statements: ViewStatement[] = [];
  for (let index = 0; index < count; index++) {
    const userId = `usr_seed${stamp}${index}`;
    const providerId = `prv_seed${stamp}${index}`;
    const email = `seed.${stamp}.${index}@example.com`;
    const token = `seed${stamp}${index}${crypto.randomUUID().replaceAll('-', '')}`;
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token));
    const tokenHash = [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
    statements.push(
      platformDb
        .prepare(
          `INSERT INTO users (id, email, password_hash, role, email_verified_at, created_at, updated_at)
         VALUES (?, ?, 'x', 'provider', ?, ?, ?)`,
        )
        .bind(userId, email, now, now, now),
      platformDb
        .prepare(
          `INSERT INTO providers (id, user_id, status, kind, display_name, headline, accepted_domains, languages,
          regions, lead_alerts, created_at, updated_at)
         VALUES (?, ?, 'active', 'expert', ?, 'Helps with tests', ?, '["en"]', '["global"]', 'off', ?, ?)`,
        )
        .bind(providerId, userId, `Seeded Expert ${index}`, JSON.stringify(options.domains), now, now),
      ...options.domains.map((domain) =>
        platformDb.prepare('INSERT INTO provider_domains (provider_id, domain) VALUES (?, ?)').bind(providerId, domain),
      ),
      platformDb
        .prepare('INSERT INTO user_sessions (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)')
        .bind(tokenHash, userId, now, now + 24 * 60 * 60 * 1000),
    );
    experts.push({ email, cookie: token, providerId, userId });
  }
  await platformDb.batch(statements);
  await copyReferencesNow();
  // The routing's brief cache of each domain's experts would not see them for 10 s.
  forgetExpertPools();
  return experts;
}

/**
 * A channel of a workspace (created with a key that has channels:write). Its leads are offered to
 * up to 50 experts at once, so that tests of other things see every matching expert offered;
 * lead-operations.cases.ts tests the waves themselves.
 */
export async function createChannel(
  token: string,
  options: {
    routingPool?: 'platform' | 'workspace';
    domain?: string;
    leadCapture?: Record<string, string>;
    routing?: Record<string, number>;
  } = {},
): Promise<string> {
  const response = await call('/api/integrations/channels', {
    token,
    body: {
      name: 'Supply test site',
      domain: options.domain ?? 'consultation',
      allowed_origins: [SITE],
      routing_pool: options.routingPool ?? 'platform',
      routing: { offer_first: 50, ...options.routing },
      ...(options.leadCapture ? { widget: { lead_capture: options.leadCapture } } : {}),
    },
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return (await json(response)).channel_key as string;
}

/** A visitor's message through the public intake route. */
export async function visitorSays(channelKey: string, body: Record<string, unknown>, ip = '203.0.113.50') {
  const response = await call(`/api/public/widget/${channelKey}/intake`, {
    body,
    headers: { Origin: SITE, 'CF-Connecting-IP': ip },
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return json(response);
}
