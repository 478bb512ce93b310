/**
 * The platform's shared words and limits, written once: the tables (drizzle/schema.ts), the zod
 * schemas, the brain and the pages all read them from here. A leaf: it imports nothing, so any
 * layer may depend on it.
 */

/** Where a provider is in its review (docs/design/README.md). */
export const PROVIDER_STATUSES = ['registered', 'profile_incomplete', 'pending_review', 'active', 'suspended'] as const;
export type ProviderStatus = (typeof PROVIDER_STATUSES)[number];

/** What a provider is: a person who claims leads, an A2A agent, or a signed HTTPS endpoint. */
export const PROVIDER_KINDS = ['expert', 'agent', 'robot'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

/** A lead's life (docs/design/providers-and-leads.md): `open → claimed → contacted → qualified → won | lost`. */
export const LEAD_STATUSES = ['open', 'claimed', 'contacted', 'qualified', 'won', 'lost'] as const;
export type LeadStatus = (typeof LEAD_STATUSES)[number];

/** How urgent a demand is, in rising order (the brain's judgement). */
export const URGENCIES = ['low', 'normal', 'high'] as const;
export type Urgency = (typeof URGENCIES)[number];

/** Ranks urgencies: a conversation's urgency only rises. */
export const URGENCY_RANK: Record<Urgency, number> = { low: 0, normal: 1, high: 2 };

/** What a visitor did: wrote a message, asked for a person, or sent the contact form. */
export const TRIGGERS = ['consultation', 'handoff', 'lead_capture'] as const;
export type Trigger = (typeof TRIGGERS)[number];

/** Risk control's verdict on a demand. */
export const DISPOSITIONS = ['routed', 'held', 'rejected'] as const;
export type Disposition = (typeof DISPOSITIONS)[number];

/** The languages the platform speaks to visitors in (lib/i18n's catalogs), English first: the fallback. */
export const LANGUAGES = ['en', 'de', 'fr', 'es', 'pt', 'nl', 'it', 'pl', 'ar', 'he'] as const;
export type Language = (typeof LANGUAGES)[number];
/** A channel's language setting: one of them, or `auto` (the visitor's browser). */
export const LANGUAGE_SETTINGS = ['auto', ...LANGUAGES] as const;
export type LanguageSetting = (typeof LANGUAGE_SETTINGS)[number];

/** Who may see a channel's leads: every matching provider, or the channel workspace's members only. */
export const ROUTING_POOLS = ['platform', 'workspace'] as const;
export type RoutingPoolKind = (typeof ROUTING_POOLS)[number];

/** Who wrote a message of a conversation. */
export const MESSAGE_ROLES = ['visitor', 'provider', 'agent', 'system'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

/** A member's role in a workspace. */
export const WORKSPACE_ROLES = ['owner', 'admin', 'member'] as const;
export type WorkspaceRole = (typeof WORKSPACE_ROLES)[number];

/** The longest message a visitor (or a provider) may write. */
export const MESSAGE_MAX_CHARS = 4000;

/** The meter every execution is charged to, per key and calendar month. */
export const EXECUTIONS_METER = 'executions';

/**
 * Meters the platform charges itself. A provider's reported usage may never take one of these
 * names: its lines are its own (`source: "provider"`), never mistaken for the platform's charge.
 */
export const PLATFORM_METERS: readonly string[] = [EXECUTIONS_METER, 'leads', 'agent_calls'];

/**
 * What a contract meters per calendar month (docs/design/billing.md): every execution, every lead
 * an execution creates, and every answer an agent or robot gives.
 */
export const CONTRACT_METERS = ['executions', 'leads', 'agent_calls'] as const;
export type ContractMeter = (typeof CONTRACT_METERS)[number];

/** The unit each contract meter counts, as the envelope's `unit` names it. */
export const METER_UNITS: Record<ContractMeter, string> = {
  executions: 'execution',
  leads: 'lead',
  agent_calls: 'agent_call',
};

/**
 * Who reported a usage line: the platform's own charge (a key's quota), the contract in force, or
 * the agent or robot that answered.
 */
export const USAGE_SOURCES = ['platform', 'contract', 'provider'] as const;

/** What a ledger entry records (docs/design/billing.md). */
export const LEDGER_KINDS = ['credit', 'charge', 'lead_fee', 'refund', 'carry'] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

/** Whose prepaid balance an escrow is. */
export const ESCROW_OWNERS = ['workspace', 'provider'] as const;

/**
 * A card top-up (docs/design/billing.md#card-top-ups): `open` until Stripe's webhook says it was paid
 * (`paid`, credited once), `expired` when its Checkout Session lapsed unpaid; a refund or a
 * dispute after it is recorded on the payment (refunded_minor, disputed).
 */
export const PAYMENT_STATUSES = ['open', 'paid', 'expired', 'disputed'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** Why an expert asks for a lead fee back. */
export const REFUND_REASONS = ['spam', 'unreachable'] as const;
export const REFUND_STATUSES = ['pending', 'accepted', 'declined'] as const;

/** Whether an expert takes new leads now (docs/design/lead-operations.md): away experts get no offers and no alerts. */
export const AVAILABILITIES = ['available', 'away'] as const;
export type Availability = (typeof AVAILABILITIES)[number];

/** How an expert hears of new leads (docs/design/email.md): an email each, an hourly digest, or none. */
export const LEAD_ALERT_MODES = ['instant', 'hourly', 'off'] as const;
export type LeadAlertMode = (typeof LEAD_ALERT_MODES)[number];

/** What a workspace may ask the platform to provision (docs/design/identity-and-access.md). */
export const PROVISIONING_KINDS = ['api_key', 'webhook_endpoint'] as const;
/** A provisioning request is decided once: approved (the key or endpoint made) or declined. */
export const PROVISIONING_STATUSES = ['pending', 'approved', 'declined'] as const;

/** What an email is about (docs/design/email.md). */
export const EMAIL_KINDS = [
  'lead_alert',
  'lead_digest',
  'visitor_continuation',
  'lead_unclaimed',
  'smtp_test',
  'billing_notice',
  /** A short notice to a user about their account or workspace: its subject says it, its link leads there. */
  'notice',
  /** A password reset's single-use link (docs/design/identity-and-access.md): its secret is made when it is sent. */
  'password_reset',
  /** A link that confirms the account's address (docs/design/identity-and-access.md#email-verification). */
  'email_verification',
] as const;

/** What a single-use account link is for (docs/design/identity-and-access.md). */
export const ACCOUNT_TOKEN_PURPOSES = ['password_reset', 'email_verification'] as const;
export type AccountTokenPurpose = (typeof ACCOUNT_TOKEN_PURPOSES)[number];
export type EmailKind = (typeof EMAIL_KINDS)[number];

/**
 * Where an email is: `held` waits (for the next digest, or for the visitor to read a reply),
 * `queued` is due to be sent, `sending` is leased by one consumer, then `sent`, `failed` (given up
 * after 24 hours) or `skipped` (nothing to send, or no SMTP server configured).
 */
export const EMAIL_STATUSES = ['held', 'queued', 'sending', 'sent', 'failed', 'skipped'] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];

/**
 * How a call to an agent or robot ended. `declined`: the agent said it will not do this one;
 * `refused`: the egress guard or the agent's own bounds stopped it; `circuit_open`: not called.
 */
export const ATTEMPT_OUTCOMES = [
  'success',
  'timeout',
  'http_error',
  'invalid_answer',
  'rpc_error',
  'not_completed',
  'declined',
  'network_error',
  'refused',
  'circuit_open',
] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

/** What a knowledge source is (docs/design/knowledge.md): a document, a Q&A pair, or a URL to fetch. */
export const KNOWLEDGE_SOURCE_KINDS = ['document', 'qa', 'url'] as const;
export type KnowledgeSourceKind = (typeof KNOWLEDGE_SOURCE_KINDS)[number];

/**
 * A privacy request's state: waiting, erasing (an erasure's subjects taken), finished, given up,
 * or an export whose object is gone.
 */
export const PRIVACY_REQUEST_STATUSES = ['queued', 'running', 'done', 'failed', 'expired'] as const;
export type PrivacyRequestStatus = (typeof PRIVACY_REQUEST_STATUSES)[number];

/** A source's indexing: waiting on the queue, in the index, or refused with its reason. */
export const KNOWLEDGE_SOURCE_STATUSES = ['queued', 'indexed', 'failed'] as const;
export type KnowledgeSourceStatus = (typeof KNOWLEDGE_SOURCE_STATUSES)[number];

/** What erased text reads as, everywhere (a visitor's words and contact after their erasure). */
export const ERASED_TEXT = '[erased]';
