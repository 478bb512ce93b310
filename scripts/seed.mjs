// The local demo tenant (docs/design/README.md). Idempotent: every statement leaves an
// existing row as it is, so a second run changes nothing. Never runs on deploy.
import { createCipheriv, createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import widgetDefaults from '../worker/platform/channels/widget-defaults.json' with { type: 'json' };
import { sha256Hex } from './lib.mjs';
import { referenceAgentCard } from './reference-agent.mjs';

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
  agentEmail: 'agent@demo.test',
  agentProviderId: 'prv_demo_agent',
  /**
   * The platform admin's authenticator key (admins sign in in two steps): a demo's, printed by
   * `npm run demo:code` and known to the tests. Never a real deployment's.
   */
  adminTotpKey: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
};

/**
 * The Worker's secret encryption (worker/lib/secrets.ts): AES-256-GCM under SHA-256(SECRETS_KEY),
 * stored as `v1:` + base64(IV ‖ ciphertext ‖ tag).
 */
function encryptSecret(plaintext, secretsKey) {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', createHash('sha256').update(secretsKey).digest(), iv);
  const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `v1:${Buffer.concat([iv, sealed]).toString('base64')}`;
}

/** The reference agent's card as the platform keeps it after validating it (worker/platform/agents/card.ts). */
function storedReferenceCard(baseUrl, now) {
  const card = referenceAgentCard(baseUrl);
  return {
    summary: {
      name: card.name,
      description: card.description,
      version: card.version,
      protocol_version: '1.0',
      protocol_binding: 'JSONRPC',
      endpoint: card.supportedInterfaces[0].url,
      skills: card.skills.map((skill) => ({ id: skill.id, name: skill.name, description: skill.description })),
      fetched_at: new Date(now).toISOString(),
    },
    card,
  };
}

/** The demo's active experts: one for every consultation, one for payroll questions only. */
const DEMO_EXPERTS = [
  {
    userId: 'usr_demo_expert',
    providerId: 'prv_demo_expert',
    email: DEMO.expertEmail,
    displayName: 'Dana Reyes',
    headline: 'Bookkeeping for small businesses',
    bio: 'Demo expert of the local seed: accepts every consultation, and the FAQ questions the agent hands over.',
    domains: ['consultation', 'faq'],
    topics: [],
  },
  {
    userId: 'usr_demo_payroll',
    providerId: 'prv_demo_payroll',
    email: DEMO.payrollExpertEmail,
    displayName: 'Sam Okafor',
    headline: 'Payroll and VAT, nothing else',
    bio: 'Demo expert of the local seed: sees consultations about payroll or VAT only.',
    domains: ['consultation'],
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
    greeting:
      'Hi! Ask us anything about Northwind. Our FAQ assistant answers common questions at once, and a bookkeeping ' +
      'expert takes over whenever you like.',
    placeholder: 'Type your question…',
    launcher_label: 'Chat with Northwind',
    success_message: 'Thanks! An expert will get back to you within one business day.',
  },
  // Northwind's own words in two more languages; the other eight fall back to its English copy above.
  copy_by_language: {
    de: {
      title: 'Fragen Sie Northwind',
      greeting:
        'Hallo! Fragen Sie uns alles zu Northwind. Unser FAQ-Assistent antwortet sofort, und eine Fachkraft für ' +
        'Buchhaltung übernimmt, wann immer Sie möchten.',
      placeholder: 'Ihre Frage…',
      launcher_label: 'Chat mit Northwind',
      success_message: 'Danke! Eine Fachkraft meldet sich innerhalb eines Werktags.',
    },
    ar: {
      title: 'اسأل نورثويند',
      greeting: 'مرحبًا! اسألنا عن أي شيء يخص نورثويند، وسيتولى خبير محاسبة المحادثة متى شئت.',
      placeholder: 'اكتب سؤالك…',
      launcher_label: 'تحدث مع نورثويند',
      success_message: 'شكرًا! سيتواصل معك خبير خلال يوم عمل واحد.',
    },
  },
  lead_capture: { ...widgetDefaults.lead_capture, phone: 'optional' },
};

const quote = (value) => (value === null ? 'NULL' : `'${String(value).replaceAll("'", "''")}'`);

/**
 * The demo tenant: organisation, workspace, API key, channel (on the `faq` domain, so the widget
 * shows the agent and the experts), a site owner who owns the workspace, the domain catalog, two
 * active experts, the reference agent (active for `faq`) and a platform admin. Every row is
 * inserted only when missing (the demo users' password hashes use a fresh salt, so "first run
 * wins" keeps a second run from changing them); the agent's card and secret follow its port.
 */
export function seedSql({ demoApiKey, demoPassword, pepper, secretsKey, referenceAgent, now = Date.now() }) {
  if (!demoPassword || demoPassword.length < 8)
    throw new Error('DEMO_PASSWORD in .dev.vars must have at least 8 characters.');
  if (!pepper) throw new Error('PASSWORD_PEPPER is missing from .dev.vars.');
  if (!/^egk_[1-9A-HJ-NP-Za-km-z]{20,}$/.test(demoApiKey)) {
    throw new Error('DEMO_API_KEY in .dev.vars must look like egk_ followed by at least 20 base58 characters.');
  }
  if (!secretsKey || secretsKey.length < 24)
    throw new Error('SECRETS_KEY in .dev.vars must have at least 24 characters.');
  if (!referenceAgent?.port || !referenceAgent.secret?.startsWith('whsec_'))
    throw new Error('REFERENCE_AGENT_PORT and REFERENCE_AGENT_SECRET (whsec_…) are missing from .dev.vars.');
  const scopes = JSON.stringify([
    'execute',
    'leads:write',
    'agents:invoke',
    'channels:read',
    'channels:write',
    'memory:read',
    'memory:write',
    'knowledge:read',
    'knowledge:write',
  ]);
  const agentBase = `http://127.0.0.1:${referenceAgent.port}`;
  const hashed = () => quote(hashPassword(demoPassword, pepper));
  // The catalog and the providers: the directory's, and written as they are into the demo's shard
  // too, so that its first execution finds them there before the copier's first run.
  const reference = `
INSERT INTO memberships (user_id, workspace_id, role, created_at) VALUES ('usr_demo_owner',
  ${quote(DEMO.workspaceId)}, 'owner', ${now})
  ON CONFLICT DO NOTHING;
INSERT INTO domains (slug, name, description, created_at) VALUES ('consultation', 'Consultation', 'General requests ' +
  'for expert help.', ${now}), ('faq', 'Frequently asked questions', 'Questions an agent can answer at once.', ${now})
  ON CONFLICT(slug) DO NOTHING;
UPDATE domains SET lead_price_minor = 250, lead_price_currency = 'EUR'
  WHERE slug = 'consultation' AND lead_price_minor IS NULL;
UPDATE domains SET lead_price_minor = 150, lead_price_currency = 'EUR' WHERE slug = 'faq' AND lead_price_minor IS NULL;
${DEMO_EXPERTS.map(
  (expert) => `INSERT INTO providers (id, user_id, status, referred_by_channel_key, kind, display_name, headline, bio,
  accepted_domains, accepted_topics, languages, regions, priority, submitted_at, created_at, updated_at)
  VALUES (${quote(expert.providerId)}, ${quote(expert.userId)}, 'active', NULL, 'expert',
    ${quote(expert.displayName)}, ${quote(expert.headline)}, ${quote(expert.bio)},
      ${quote(JSON.stringify(expert.domains))}, ${quote(JSON.stringify(expert.topics))}, '["en"]', '["global"]', 0,
        ${now}, ${now}, ${now})
  ON CONFLICT(id) DO UPDATE SET kind = excluded.kind, display_name = excluded.display_name, headline =
    excluded.headline, bio = excluded.bio,
    accepted_domains = excluded.accepted_domains, accepted_topics = excluded.accepted_topics, languages =
      excluded.languages, regions = excluded.regions
  WHERE providers.kind IS NULL;
INSERT INTO provider_domains (provider_id, domain) VALUES
  ${expert.domains.map((domain) => `(${quote(expert.providerId)}, ${quote(domain)})`).join(', ')} ON CONFLICT DO
    NOTHING;`,
).join('\n')}
INSERT INTO providers (id, user_id, status, kind, display_name, headline, bio, accepted_domains, accepted_topics,
  languages, regions, agent_card_url, agent_card, signing_secret, signing_secret_shown_at, timeout_ms, priority,
    submitted_at, created_at, updated_at)
  VALUES (${quote(DEMO.agentProviderId)}, 'usr_demo_agent', 'active', 'agent', 'Northwind FAQ agent',
    'Answers common questions at once',
      'The local reference agent (scripts/reference-agent.mjs): rules-based, A2A 1.0.', '["faq"]', '[]', '["en"]',
        '["global"]',
    ${quote(`${agentBase}/.well-known/agent-card.json`)},
      ${quote(JSON.stringify(storedReferenceCard(agentBase, now)))},
        ${quote(encryptSecret(referenceAgent.secret, secretsKey))}, ${now}, 5000, 10, ${now}, ${now}, ${now})
  ON CONFLICT(id) DO UPDATE SET agent_card_url = excluded.agent_card_url, agent_card = excluded.agent_card,
    signing_secret = excluded.signing_secret
  WHERE providers.agent_card_url IS NOT excluded.agent_card_url;
INSERT INTO provider_domains (provider_id, domain) VALUES (${quote(DEMO.agentProviderId)}, 'faq') ON CONFLICT DO
  NOTHING;`;
  const directory = `
INSERT INTO organization_shards (organization_id, shard, placed_at) VALUES (${quote(DEMO.organizationId)},
  ${DEMO_SHARD}, ${now})
  ON CONFLICT(organization_id) DO NOTHING;
INSERT INTO directory_entries (kind, value, organization_id) VALUES
  ('workspace', ${quote(DEMO.workspaceId)}, ${quote(DEMO.organizationId)}),
  ('key', ${quote(DEMO.keyId)}, ${quote(DEMO.organizationId)}),
  ('key_hash', ${quote(sha256Hex(demoApiKey))}, ${quote(DEMO.organizationId)}),
  ('channel', ${quote(DEMO.channelKey)}, ${quote(DEMO.organizationId)})
  ON CONFLICT DO NOTHING;
INSERT INTO users (id, email, password_hash, role, created_at, updated_at) VALUES ('usr_demo_owner',
  ${quote(DEMO.ownerEmail)}, ${hashed()}, 'business', ${now}, ${now})
  ON CONFLICT(id) DO NOTHING;
INSERT INTO users (id, email, password_hash, role, is_platform_admin, created_at, updated_at) VALUES
  ('usr_demo_admin', ${quote(DEMO.adminEmail)}, ${hashed()}, 'business', 1, ${now}, ${now})
  ON CONFLICT(id) DO NOTHING;
${[
  ...DEMO_EXPERTS.map((expert) => ({ id: expert.userId, email: expert.email })),
  { id: 'usr_demo_agent', email: DEMO.agentEmail },
]
  .map(
    (user) => `INSERT INTO users (id, email, password_hash, role, created_at, updated_at) VALUES (${quote(user.id)},
    ${quote(user.email)}, ${hashed()}, 'provider', ${now}, ${now})
  ON CONFLICT(id) DO NOTHING;`,
  )
  .join('\n')}
UPDATE users SET email_verified_at = created_at WHERE id LIKE 'usr_demo_%' AND email_verified_at IS NULL;
INSERT INTO user_factors (id, user_id, kind, secret, confirmed_at, created_at) VALUES ('fac_demo_admin',
  'usr_demo_admin', 'totp', ${quote(encryptSecret(DEMO.adminTotpKey, secretsKey))}, ${now}, ${now})
  ON CONFLICT DO NOTHING;
${[
  ...DEMO_EXPERTS.map((expert) => ({ providerId: expert.providerId, note: 'Seeded as an active demo expert.' })),
  { providerId: DEMO.agentProviderId, note: 'Seeded as the active reference agent.' },
]
  .map(
    ({ providerId, note }) => `INSERT INTO provider_transitions (id, provider_id, from_status, to_status, actor_kind,
    actor_id, note, created_at)
  VALUES (${quote(`ptr_seed_${providerId}`)}, ${quote(providerId)}, NULL, 'active', 'system', NULL, ${quote(note)},
    ${now})
  ON CONFLICT(id) DO NOTHING;`,
  )
  .join('\n')}
${reference}
${expertCreditsSql(now)}`;
  const shard = `
INSERT INTO organizations (id, name, status, created_at) VALUES (${quote(DEMO.organizationId)}, 'Demo Company',
  'active', ${now})
  ON CONFLICT(id) DO NOTHING;
INSERT INTO workspaces (id, organization_id, name, status, created_at) VALUES (${quote(DEMO.workspaceId)},
  ${quote(DEMO.organizationId)}, 'Demo workspace', 'active', ${now})
  ON CONFLICT(id) DO NOTHING;
INSERT INTO api_keys (id, workspace_id, name, token_hash, token_prefix, scopes, created_by, created_at)
  VALUES (${quote(DEMO.keyId)}, ${quote(DEMO.workspaceId)}, 'Demo key (local)', ${quote(sha256Hex(demoApiKey))},
    ${quote(demoApiKey.slice(0, 10))}, ${quote(scopes)}, 'seed', ${now})
  ON CONFLICT(id) DO UPDATE SET token_hash = excluded.token_hash, token_prefix = excluded.token_prefix,
    scopes = excluded.scopes
  WHERE api_keys.token_hash <> excluded.token_hash OR api_keys.scopes <> excluded.scopes;
INSERT INTO channels (channel_key, workspace_id, name, domain, allowed_origins, first_party_origins, status,
  widget_config, created_at, updated_at)
  VALUES (${quote(DEMO.channelKey)}, ${quote(DEMO.workspaceId)}, 'Demo website', 'faq', '[]', '[]', 'active',
    ${quote(JSON.stringify(demoWidget))}, ${now}, ${now})
  ON CONFLICT(channel_key) DO NOTHING;
UPDATE channels SET knowledge = '{"enabled":true,"min_confidence":0.5}'
  WHERE channel_key = ${quote(DEMO.channelKey)} AND knowledge IS NULL;
${reference}
${contractSql(now)}`;
  return { directory: statementsOf(directory), shard: statementsOf(shard), shardIndex: DEMO_SHARD };
}

/** The demo organisation's shard (of the two local ones). */
const DEMO_SHARD = 0;

/** A seed text's statements, one each (no statement of the seed has `;` at the end of a line inside it). */
const statementsOf = (text) =>
  text
    .split(/;\s*\n/)
    .map((statement) => statement.trim().replace(/;$/, ''))
    .filter(Boolean);

/**
 * A credit to an escrow (`escrow`: SQL for its id), once (by its transfer id): a transfer from the
 * platform's funding account, which the database posts as the ledger's two entries.
 */
function creditSql({ id, escrow, amount, reference, workspaceId, now }) {
  return `INSERT INTO transfers (id, kind, currency, from_account, to_account, amount_minor, ref, workspace_id,
    created_at)
  SELECT ${quote(`trf_${id}`)}, 'credit', 'EUR', 'platform:funding:EUR', ${escrow}, ${amount}, ${quote(reference)},
    ${quote(workspaceId)}, ${now}
  WHERE ${escrow} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM transfers WHERE id = ${quote(`trf_${id}`)});`;
}

/**
 * The demo's contract and money (docs/design/billing.md), on its shard: plan "Demo" for ws_demo
 * from the start of this month (5 executions and 100 leads a month, so that the README's walk goes
 * past the allowance and shows a charge; executions past it at 2 cents), its escrow funded with
 * 100.00 EUR. (Leads are priced on consultation, 2.50, and faq, 1.50: the catalog's.)
 */
function contractSql(now) {
  const monthStart = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), 1);
  return `INSERT INTO contracts (id, workspace_id, plan, currency, starts_at, ends_at, reference, allowances, overage,
    escrow_id, created_at)
  VALUES ('ctr_demo', ${quote(DEMO.workspaceId)}, 'Demo', 'EUR', ${monthStart}, NULL, 'cus_demo',
    '{"executions":5,"leads":100}', '{"executions":{"unit_price_minor":2}}', 'esc_demo', ${now})
  ON CONFLICT(id) DO NOTHING;
${escrowSql('esc_demo', 'workspace', DEMO.workspaceId, 'ctr_demo', now)}
${creditSql({
  id: 'demo_credit',
  escrow: "'esc_demo'",
  amount: 10_000,
  reference: 'DEMO-INV-1',
  workspaceId: DEMO.workspaceId,
  now,
})}`;
}

/** An escrow, once. */
const escrowSql = (id, ownerKind, ownerId, contractId, now) =>
  `INSERT INTO escrows (id, owner_kind, owner_id, contract_id, currency, low_balance_minor, low_balance_notified,
    created_at) VALUES (${quote(id)}, '${ownerKind}', ${quote(ownerId)}, ${quote(contractId)}, 'EUR', 1000, 0, ${now})
  ON CONFLICT DO NOTHING;`;

/** 20.00 EUR of credits for each demo expert, in the directory with the providers' escrows. */
function expertCreditsSql(now) {
  return DEMO_EXPERTS.map(
    (expert) => `${escrowSql(`esc_${expert.providerId}`, 'provider', expert.providerId, null, now)}
${creditSql({
  id: `credit_${expert.providerId}`,
  escrow: `(SELECT id FROM escrows WHERE owner_kind = 'provider' AND owner_id = ${quote(expert.providerId)})`,
  amount: 2000,
  reference: 'DEMO-CREDITS',
  workspaceId: null,
  now,
})}`,
  ).join('\n');
}
