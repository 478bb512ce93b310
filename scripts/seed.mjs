// The local demo tenant (PRODUCT.md section 0). Idempotent: every statement leaves an
// existing row as it is, so a second run changes nothing. Never runs on deploy.
import { createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import widgetDefaults from '../worker/platform/channels/widget-defaults.json' with { type: 'json' };
import { sha256Hex } from './lib.mjs';

/** The Worker's password scheme (worker/lib/passwords.ts): HMAC with the pepper, then PBKDF2-SHA256. */
function hashPassword(password, pepper) {
  const salt = randomBytes(16);
  const peppered = createHmac('sha256', pepper).update(password).digest();
  const hash = pbkdf2Sync(peppered, salt, 100_000, 32, 'sha256');
  return `pbkdf2-sha256$100000$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export const DEMO = {
  organizationId: 'org_demo',
  workspaceId: 'ws_demo',
  keyId: 'key_demo',
  channelKey: 'ch_demo',
  ownerEmail: 'owner@demo.test',
  expertEmail: 'expert@demo.test',
  payrollExpertEmail: 'payroll@demo.test',
  adminEmail: 'admin@demo.test',
};

/** The demo's active experts: one for every consultation, one for payroll questions only. */
const DEMO_EXPERTS = [
  {
    userId: 'usr_demo_expert',
    providerId: 'prv_demo_expert',
    email: DEMO.expertEmail,
    displayName: 'Dana Reyes',
    headline: 'Bookkeeping for small businesses',
    bio: 'Demo expert of the local seed: accepts every consultation.',
    topics: [],
  },
  {
    userId: 'usr_demo_payroll',
    providerId: 'prv_demo_payroll',
    email: DEMO.payrollExpertEmail,
    displayName: 'Sam Okafor',
    headline: 'Payroll and VAT, nothing else',
    bio: 'Demo expert of the local seed: sees consultations about payroll or VAT only.',
    topics: ['payroll', 'vat'],
  },
];

/** The demo channel's widget: the platform's defaults (shared with the Worker), in Northwind's words. */
const demoWidget = {
  ...widgetDefaults,
  brand: { name: 'Northwind Bookkeeping', logo_url: null },
  copy: {
    ...widgetDefaults.copy,
    title: 'Ask Northwind',
    greeting: 'Hi! Tell us what you need help with, and a bookkeeping expert will answer.',
    placeholder: 'Type your question…',
    launcher_label: 'Chat with Northwind',
    success_message: 'Thanks! An expert will get back to you within one business day.',
  },
  lead_capture: { ...widgetDefaults.lead_capture, phone: 'optional' },
};

const quote = (value) => (value === null ? 'NULL' : `'${String(value).replaceAll("'", "''")}'`);

/**
 * The demo tenant: organisation, workspace, API key, channel, a site owner who owns the
 * workspace, the domain catalog, two active experts and a platform admin. Every row is inserted only when missing (the demo users'
 * password hashes use a fresh salt, so "first run wins" keeps a second run from changing them).
 */
export function seedSql({ demoApiKey, demoPassword, pepper, now = Date.now() }) {
  if (!demoPassword || demoPassword.length < 8) throw new Error('DEMO_PASSWORD in .dev.vars must have at least 8 characters.');
  if (!pepper) throw new Error('PASSWORD_PEPPER is missing from .dev.vars.');
  if (!/^egk_[1-9A-HJ-NP-Za-km-z]{20,}$/.test(demoApiKey)) {
    throw new Error('DEMO_API_KEY in .dev.vars must look like egk_ followed by at least 20 base58 characters.');
  }
  const scopes = JSON.stringify(['execute', 'leads:write', 'channels:read', 'channels:write', 'memory:read', 'memory:write']);
  return `
INSERT INTO organizations (id, name, status, created_at) VALUES (${quote(DEMO.organizationId)}, 'Demo Company', 'active', ${now})
  ON CONFLICT(id) DO NOTHING;
INSERT INTO workspaces (id, organization_id, name, status, created_at) VALUES (${quote(DEMO.workspaceId)}, ${quote(DEMO.organizationId)}, 'Demo workspace', 'active', ${now})
  ON CONFLICT(id) DO NOTHING;
INSERT INTO api_keys (id, workspace_id, name, token_hash, token_prefix, scopes, created_by, created_at)
  VALUES (${quote(DEMO.keyId)}, ${quote(DEMO.workspaceId)}, 'Demo key (local)', ${quote(sha256Hex(demoApiKey))}, ${quote(demoApiKey.slice(0, 10))}, ${quote(scopes)}, 'seed', ${now})
  ON CONFLICT(id) DO UPDATE SET token_hash = excluded.token_hash, token_prefix = excluded.token_prefix
  WHERE api_keys.token_hash <> excluded.token_hash;
INSERT INTO channels (channel_key, workspace_id, name, domain, allowed_origins, first_party_origins, status, widget_config, created_at, updated_at)
  VALUES (${quote(DEMO.channelKey)}, ${quote(DEMO.workspaceId)}, 'Demo website', 'consultation', '[]', '[]', 'active', ${quote(JSON.stringify(demoWidget))}, ${now}, ${now})
  ON CONFLICT(channel_key) DO NOTHING;
INSERT INTO users (id, email, password_hash, role, created_at, updated_at) VALUES ('usr_demo_owner', ${quote(DEMO.ownerEmail)}, ${quote(hashPassword(demoPassword, pepper))}, 'business', ${now}, ${now})
  ON CONFLICT(id) DO NOTHING;
INSERT INTO memberships (user_id, workspace_id, role, created_at) VALUES ('usr_demo_owner', ${quote(DEMO.workspaceId)}, 'owner', ${now})
  ON CONFLICT DO NOTHING;
INSERT INTO domains (slug, name, description, created_at) VALUES ('consultation', 'Consultation', 'General requests for expert help.', ${now}), ('faq', 'Frequently asked questions', 'Questions an agent can answer at once.', ${now})
  ON CONFLICT(slug) DO NOTHING;
INSERT INTO users (id, email, password_hash, role, is_platform_admin, created_at, updated_at) VALUES ('usr_demo_admin', ${quote(DEMO.adminEmail)}, ${quote(hashPassword(demoPassword, pepper))}, 'business', 1, ${now}, ${now})
  ON CONFLICT(id) DO NOTHING;
${DEMO_EXPERTS.map(
  (expert) => `INSERT INTO users (id, email, password_hash, role, created_at, updated_at) VALUES (${quote(expert.userId)}, ${quote(expert.email)}, ${quote(hashPassword(demoPassword, pepper))}, 'provider', ${now}, ${now})
  ON CONFLICT(id) DO NOTHING;
INSERT INTO providers (id, user_id, status, referred_by_channel_key, kind, display_name, headline, bio, accepted_domains, accepted_topics, languages, regions, priority, submitted_at, created_at, updated_at)
  VALUES (${quote(expert.providerId)}, ${quote(expert.userId)}, 'active', NULL, 'expert', ${quote(expert.displayName)}, ${quote(expert.headline)}, ${quote(expert.bio)}, '["consultation"]', ${quote(JSON.stringify(expert.topics))}, '["en"]', '["global"]', 0, ${now}, ${now}, ${now})
  ON CONFLICT(id) DO UPDATE SET kind = excluded.kind, display_name = excluded.display_name, headline = excluded.headline, bio = excluded.bio,
    accepted_domains = excluded.accepted_domains, accepted_topics = excluded.accepted_topics, languages = excluded.languages, regions = excluded.regions
  WHERE providers.kind IS NULL;
INSERT INTO provider_domains (provider_id, domain) VALUES (${quote(expert.providerId)}, 'consultation') ON CONFLICT DO NOTHING;
INSERT INTO provider_transitions (id, provider_id, from_status, to_status, actor_kind, actor_id, note, created_at)
  VALUES (${quote(`ptr_seed_${expert.providerId}`)}, ${quote(expert.providerId)}, NULL, 'active', 'system', NULL, 'Seeded as an active demo expert.', ${now})
  ON CONFLICT(id) DO NOTHING;`,
).join('\n')}
`;
}
