/**
 * The Worker's environment: bindings and vars as wrangler.toml and .dev.vars declare them, the
 * settings parsed from them with zod, and the platform's public addresses. Context variables
 * that belong to a module (the database, the actor, the session user…) are declared by that
 * module, by augmenting Hono's ContextVariableMap, so this file depends on no module.
 */
import { z } from 'zod';

/**
 * Bindings and vars. The bindings' types (D1, the queues, the Durable Object namespaces, typed by
 * their classes) are generated from wrangler.toml into worker-configuration.d.ts (`npm run
 * cf-typegen`; `npm test` checks it is current); the vars and secrets, each an optional string
 * whatever wrangler.toml's default, are documented here.
 */
export type Bindings = Omit<Cloudflare.Env, keyof Vars> & Vars & OptionalBindings;

/**
 * Bindings a deployment may add that wrangler.toml does not declare: Workers AI calls out to an
 * account even under `wrangler dev`, so no local run may need it.
 */
export interface OptionalBindings {
  /** Workers AI (`[ai] binding = "AI"`): writes knowledge answers with the model ANSWER_MODEL names. */
  AI?: { run(model: string, input: { messages: Array<{ role: string; content: string }> }): Promise<unknown> };
}

/** The vars and secrets the Worker reads (settingsSchema parses them). */
export interface Vars {
  BASE_URL?: string;
  CONSOLE_URL?: string;
  AUTH_URL?: string;
  DEFAULT_RATE_LIMIT_PER_MINUTE?: string;
  /** Intake requests per minute per channel and client IP. */
  INTAKE_RATE_LIMIT_PER_MINUTE?: string;
  /** Server-side secret mixed into every password hash (secret). */
  PASSWORD_PEPPER?: string;
  /** Bootstrap administrator token (secret). */
  ADMIN_TOKEN?: string;
  /** Encrypts the secrets the platform must read back: signing secrets and agents' bearer tokens (secret). */
  SECRETS_KEY?: string;
  /** Set by `npm run bench` only: adds X-D1-Queries to every response, and the /__bench/d1-batch route. */
  EXPOSE_DB_METRICS?: string;
  /** Local development and tests only: the egress guard also admits http://127.0.0.1:<port>. Never in wrangler.toml. */
  ALLOW_LOOPBACK_EGRESS?: string;
  /**
   * Tests only: every statement is also checked as if the layout's next groups had moved to the
   * shards (lib/shards/router.ts), so a door that forgets its organisation fails before they move.
   */
  STRICT_SHARDS?: string;
  /** Days each class of record stays in D1 (docs/design/data-lifecycle.md); the defaults otherwise. */
  RETENTION_DELIVERIES_DAYS?: string;
  RETENTION_EVENTS_DAYS?: string;
  RETENTION_EMAILS_DAYS?: string;
  RETENTION_EXECUTION_BODIES_DAYS?: string;
  RETENTION_AUDIT_DAYS?: string;
  /** The first step of the webhook retry schedule, in seconds (30 by default; 1 in .dev.vars.example). */
  WEBHOOK_RETRY_BASE_SECONDS?: string;
  /** The total deadline of one execution's chain of agent calls, in ms (20,000 by default). */
  AGENT_CHAIN_DEADLINE_MS?: string;
  /** Outgoing email over SMTP (docs/design/email.md). Without SMTP_HOST, emails are recorded as skipped. */
  SMTP_HOST?: string;
  SMTP_PORT?: string;
  /** `tls` (465), `starttls` (587, required: never falls back to plain text), or `none` (127.0.0.1 only). */
  SMTP_SECURE?: string;
  SMTP_USERNAME?: string;
  /** Secret. */
  SMTP_PASSWORD?: string;
  /** The longest wait for the SMTP server's connection and each reply, in seconds (15; the dialogue: 4 times that). */
  SMTP_TIMEOUT_SECONDS?: string;
  /** The sender, `Name <address>` or an address. */
  MAIL_FROM?: string;
  /** Visitors' replies come back to `reply+{token}@{MAIL_REPLY_DOMAIN}` (Cloudflare Email Routing). */
  MAIL_REPLY_DOMAIN?: string;
  /** The first wait before an email is retried, in seconds (60, doubling to 2 hours; less for local tests). */
  EMAIL_RETRY_BASE_SECONDS?: string;
  /** How long a reply may stay unread before it goes to the visitor by email (120 s; less for local tests). */
  EMAIL_UNREAD_AFTER_SECONDS?: string;
  /** The platform's own channel: the consultation entry of the front page `/` (the widget and its hosted inbox). */
  FRONT_DOOR_CHANNEL?: string;
  /** How many seconds a minute of the lead timers lasts (60; local tests shorten it to see waves and SLAs). */
  LEAD_MINUTE_SECONDS?: string;
  /** The currency of providers' escrows and lead prices (ISO 4217; EUR by default). */
  PLATFORM_CURRENCY?: string;
  /**
   * Local evaluation only (`npm run eval -- knowledge --rules-off …`): ranking rules to turn off on
   * /api/knowledge/ask, to measure what each is worth (docs/design/knowledge.md#rules-beyond-bm25f).
   * Never set in production.
   */
  KNOWLEDGE_RULES_OFF?: string;
  /** Local evaluation only: /api/knowledge/ask answers every question, with the gate's evidence. */
  KNOWLEDGE_EVAL?: string;
  /**
   * The model that writes knowledge answers (docs/design/knowledge.md), optional: a Workers AI
   * model (`@cf/…`, with the AI binding), or the model name an OpenAI-compatible endpoint takes.
   */
  ANSWER_MODEL?: string;
  /** An OpenAI-compatible endpoint (`{url}/chat/completions`) for knowledge answers, instead of Workers AI. */
  ANSWER_MODEL_URL?: string;
  /** The bearer key of ANSWER_MODEL_URL (secret). */
  ANSWER_MODEL_KEY?: string;
  /** Card top-ups (docs/design/billing.md#card-top-ups): Stripe's secret API key (secret). Unset: no cards. */
  STRIPE_SECRET_KEY?: string;
  /** The signing secret of the webhook endpoint Stripe posts to (secret, `whsec_…`). */
  STRIPE_WEBHOOK_SECRET?: string;
  /** Local development and tests only: the Stripe API's origin (the local stand-in, scripts/stripe-stand-in.mjs). */
  STRIPE_API_URL?: string;
  /** What a top-up may be, per currency, in major units: `EUR:5-5000,USD:5-5000` (the default: EUR 5 to 5,000). */
  PAYMENTS_CURRENCIES?: string;
  /**
   * Local development only (`npm run dev` sets it): the loopback origin it serves on, the links'
   * origin for emails no request caused (billing notices of the sweep) when no CONSOLE_URL is set.
   */
  LOCAL_ORIGIN?: string;
}

const optionalUrl = z
  .string()
  .optional()
  .transform((value) => (value ? value.replace(/\/+$/, '') : undefined))
  .pipe(z.url().optional());

/** A retention setting: whole days, 1 to 3,650; unset means the default. */
const retentionDays = z.coerce.number().int().min(1).max(3650).optional();

const settingsSchema = z.object({
  BASE_URL: optionalUrl,
  CONSOLE_URL: optionalUrl,
  AUTH_URL: optionalUrl,
  DEFAULT_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(600),
  INTAKE_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(30),
  ADMIN_TOKEN: z
    .string()
    .min(24, 'ADMIN_TOKEN must be at least 24 characters')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  PASSWORD_PEPPER: z.string().min(16, 'PASSWORD_PEPPER must be at least 16 characters').optional(),
  SECRETS_KEY: z.string().min(24, 'SECRETS_KEY must be at least 24 characters').optional(),
  EXPOSE_DB_METRICS: z
    .string()
    .optional()
    .transform((value) => value === '1' || value === 'true'),
  ALLOW_LOOPBACK_EGRESS: z
    .string()
    .optional()
    .transform((value) => value === '1' || value === 'true'),
  STRICT_SHARDS: z
    .string()
    .optional()
    .transform((value) => value === '1' || value === 'true'),
  WEBHOOK_RETRY_BASE_SECONDS: z.coerce.number().positive().max(3600).default(30),
  RETENTION_DELIVERIES_DAYS: retentionDays,
  RETENTION_EVENTS_DAYS: retentionDays,
  RETENTION_EMAILS_DAYS: retentionDays,
  RETENTION_EXECUTION_BODIES_DAYS: retentionDays,
  RETENTION_AUDIT_DAYS: retentionDays,
  AGENT_CHAIN_DEADLINE_MS: z.coerce.number().int().min(100).max(60_000).default(20_000),
  SMTP_HOST: z
    .string()
    .optional()
    .transform((value) => value || undefined),
  SMTP_PORT: z.coerce.number().int().min(1).max(65_535).default(587),
  SMTP_SECURE: z.enum(['tls', 'starttls', 'none']).default('starttls'),
  SMTP_USERNAME: z.string().optional(),
  SMTP_PASSWORD: z.string().optional(),
  SMTP_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(60).default(15),
  MAIL_FROM: z.string().default('Edge Gateway <no-reply@localhost>'),
  MAIL_REPLY_DOMAIN: z
    .string()
    .optional()
    .transform((value) => value || undefined),
  EMAIL_UNREAD_AFTER_SECONDS: z.coerce.number().int().min(1).max(3600).default(120),
  EMAIL_RETRY_BASE_SECONDS: z.coerce.number().positive().max(3600).default(60),
  LEAD_MINUTE_SECONDS: z.coerce.number().int().min(1).max(60).default(60),
  FRONT_DOOR_CHANNEL: z
    .string()
    .optional()
    .transform((value) => value || undefined),
  PLATFORM_CURRENCY: z
    .string()
    .regex(/^[A-Z]{3}$/, 'PLATFORM_CURRENCY is an ISO 4217 code, such as EUR')
    .default('EUR'),
  LOCAL_ORIGIN: optionalUrl,
  KNOWLEDGE_RULES_OFF: z.string().max(200).optional(),
  KNOWLEDGE_EVAL: z
    .string()
    .optional()
    .transform((value) => value === 'true'),
  ANSWER_MODEL: z
    .string()
    .max(200)
    .optional()
    .transform((value) => value || undefined),
  ANSWER_MODEL_URL: optionalUrl,
  ANSWER_MODEL_KEY: z
    .string()
    .optional()
    .transform((value) => value || undefined),
  STRIPE_SECRET_KEY: z
    .string()
    .optional()
    .transform((value) => value || undefined),
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .optional()
    .transform((value) => value || undefined),
  STRIPE_API_URL: optionalUrl,
  PAYMENTS_CURRENCIES: z
    .string()
    .regex(
      /^\s*[A-Z]{3}:\d+(\.\d{1,2})?-\d+(\.\d{1,2})?\s*(,\s*[A-Z]{3}:\d+(\.\d{1,2})?-\d+(\.\d{1,2})?\s*)*$/,
      'PAYMENTS_CURRENCIES is a list such as EUR:5-5000,USD:5-5000',
    )
    .default('EUR:5-5000'),
});

export type Settings = z.infer<typeof settingsSchema>;

const settingsCache = new WeakMap<object, Settings>();

/**
 * Parses the environment once per isolate and env object. A misconfigured deployment fails
 * loudly on its first request (as a 500 problem without details) rather than behaving oddly.
 */
export function readSettings(env: Bindings): Settings {
  let settings = settingsCache.get(env);
  if (!settings) {
    settings = settingsSchema.parse(env);
    settingsCache.set(env, settings);
  }
  return settings;
}

/** The limits every execution runs under. */
export interface ExecutionLimits {
  defaultRateLimitPerMinute: number;
  intakeRateLimitPerMinute: number;
  /** The agent chain's total deadline. */
  agentChainMs: number;
  /** How long a minute of the lead timers lasts (60,000 ms; local tests shorten it). */
  leadMinuteMs: number;
}

/** The limits every execution runs under, from the settings. */
export function executionLimits(settings: Settings): ExecutionLimits {
  return {
    defaultRateLimitPerMinute: settings.DEFAULT_RATE_LIMIT_PER_MINUTE,
    intakeRateLimitPerMinute: settings.INTAKE_RATE_LIMIT_PER_MINUTE,
    agentChainMs: settings.AGENT_CHAIN_DEADLINE_MS,
    leadMinuteMs: settings.LEAD_MINUTE_SECONDS * 1000,
  };
}

/** Public addresses of the platform, resolved against the request's own origin. */
export interface PlatformUrls {
  baseUrl: string;
  consoleUrl: string;
  authUrl: string;
}

/** BASE_URL, CONSOLE_URL and AUTH_URL where set, else the request's own origin (docs/design/README.md). */
export function resolvePlatformUrls(settings: Settings, requestUrl: string): PlatformUrls {
  const ownOrigin = new URL(requestUrl).origin;
  const baseUrl = settings.BASE_URL ?? ownOrigin;
  const consoleUrl = settings.CONSOLE_URL ?? ownOrigin;
  return { baseUrl, consoleUrl, authUrl: settings.AUTH_URL ?? `${consoleUrl}/auth` };
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * The origin of every link in an email: CONSOLE_URL, else BASE_URL. Never a request's Host, which
 * anyone can set; only in local development (ALLOW_LOOPBACK_EGRESS, plain http) is a loopback
 * origin taken: the request's, else the one `npm run dev` serves on (LOCAL_ORIGIN, for emails the
 * sweep writes), so `npm run dev` on any port works. Empty: none, and such emails are not sent (the
 * composer skips them with the reason).
 */
export function emailLinkOrigin(settings: Settings, requestUrl?: string): string {
  const configured = settings.CONSOLE_URL ?? settings.BASE_URL;
  if (configured) return new URL(configured).origin;
  const local = requestUrl ?? settings.LOCAL_ORIGIN;
  if (!local || !settings.ALLOW_LOOPBACK_EGRESS) return '';
  const url = new URL(local);
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname) ? url.origin : '';
}

/**
 * Whether a request reached us under one of our own names: a configured BASE_URL's or
 * CONSOLE_URL's host, or a loopback name (local development). A browser page on a name rebound to
 * a local server (DNS rebinding) arrives under its own name, which is none of these.
 */
export function isOwnHost(settings: Settings, requestUrl: string): boolean {
  const { host, hostname } = new URL(requestUrl);
  const configured = [settings.BASE_URL, settings.CONSOLE_URL].flatMap((url) => (url ? [new URL(url).host] : []));
  return configured.includes(host) || LOOPBACK_HOSTS.has(hostname);
}

/** The console's origin: where our own pages, and so cookie-authenticated changes, come from. */
export function consoleOrigin(urls: PlatformUrls): string {
  return new URL(urls.consoleUrl).origin;
}

/**
 * Whether some platform URL is taken from the request's Host header (BASE_URL or CONSOLE_URL
 * unset). Responses that embed such a URL must then not be shared by caches across hosts.
 */
export function urlsFollowHost(settings: Settings): boolean {
  return !settings.BASE_URL || !settings.CONSOLE_URL;
}

/** The variables every request has; modules add their own through ContextVariableMap. */
export interface Variables {
  /** Our own id of this request (`req_…`): X-Request-Id and the log line's request_id, always. */
  requestId: string;
  /** The caller's own `request_id` from an execute body: echoed in output, logged as its own field. */
  callerRequestId?: string;
  traceId: string;
  settings: Settings;
  /**
   * The rate-limit headers of this request's last execution (or a refusal's Retry-After), for the
   * MCP and A2A adapters, whose responses an SDK builds: they add them as /api/execute sends them.
   */
  executionHeaders?: Record<string, string>;
}

export interface AppEnv {
  Bindings: Bindings;
  Variables: Variables;
}
