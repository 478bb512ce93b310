/**
 * Provider profile schemas (docs/design/providers-and-leads.md): what a provider may send, and what the
 * provider API, the console and the admin API answer. Types are inferred from them.
 */
import { z } from '@hono/zod-openapi';
import { CLAIM_BOUNDS } from '../../brain/lead-policy';
import { displayText, setOf } from '../../lib/openapi';
import { agentCardSummarySchema } from '../agents/schemas';
import { AVAILABILITIES, LEAD_ALERT_MODES, PROVIDER_KINDS, PROVIDER_STATUSES } from '../../vocabulary';

export { PROVIDER_KINDS };
export const providerKindSchema = z.enum(PROVIDER_KINDS).openapi('ProviderKind', {
  description: '`expert`: a person who claims leads; `agent`: an A2A agent; `robot`: a signed HTTPS endpoint.',
});
export type ProviderKind = z.infer<typeof providerKindSchema>;
export const providerStatusSchema = z.enum(PROVIDER_STATUSES).openapi('ProviderStatus');

/** A catalog domain slug (checked against the catalog by the service). */
export const domainSlugSchema = z
  .string()
  .trim()
  .min(1)
  .max(40)
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'Use a lower-case slug such as consultation or tax-advice.');

/** A free topic, kept in lower case: "payroll", "vat returns". */
export const topicSchema = z
  .string()
  .trim()
  .toLowerCase()
  .min(2, 'A topic has at least 2 characters.')
  .max(40, 'A topic has at most 40 characters.')
  .regex(/^[\p{L}\p{N}][\p{L}\p{N} &+.'/-]*$/u, "Use letters, digits, spaces and & + . ' / - only.");

/** A BCP 47 language tag such as en, de or pt-BR. */
export const languageSchema = z
  .string()
  .trim()
  .max(35)
  .regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'Use a language code such as en, de or pt-BR.');

/** An ISO 3166-1 country code (upper case), or "global". */
export const regionSchema = z
  .string()
  .trim()
  .max(6)
  .regex(/^([A-Z]{2}|global)$/, 'Use a two-letter country code such as DE or US, or "global".');

const httpsUrl = z
  .string()
  .trim()
  .max(500)
  .pipe(z.url('Enter a full URL, such as https://agent.example.com/.well-known/agent-card.json.'));

export const acceptedScopeSchema = z
  .strictObject({
    domains: setOf(domainSlugSchema, 20),
    topics: setOf(topicSchema, 30),
  })
  .openapi('AcceptedScope', {
    description: 'Catalog domains the provider accepts, and free topics within them (none: every topic).',
  });
export type AcceptedScope = z.infer<typeof acceptedScopeSchema>;

/** POST /api/provider/profile: any of the profile's fields, plus `submit`. */
export const profileInputSchema = z
  .strictObject({
    kind: providerKindSchema,
    display_name: displayText({ min: 1, max: 80, minMessage: 'Enter a display name.' }),
    headline: displayText({ min: 1, max: 140, minMessage: 'Enter a headline.' }),
    bio: displayText({ max: 2000, multiline: true }).nullable(),
    accepted_scope: acceptedScopeSchema,
    languages: setOf(languageSchema, 20),
    regions: setOf(regionSchema, 60),
    endpoint_url: httpsUrl
      .nullable()
      .openapi({ description: 'Robots: the https endpoint the platform POSTs executions to.' }),
    agent_card_url: httpsUrl.nullable().openapi({ description: 'Agents: the https URL of the A2A agent card.' }),
    priority: z
      .number()
      .int()
      .min(0)
      .max(100)
      .openapi({ description: 'Agents and robots: tried in this order, highest first.' }),
    agent_bearer_token: z
      .string()
      .trim()
      .min(8, 'A bearer token has at least 8 characters.')
      .max(2000)
      .regex(/^[\x21-\x7e]+$/, 'A bearer token has no spaces or control characters.')
      .nullable()
      .openapi({
        description:
          'Agents that need one: the token sent as `Authorization: Bearer`. Stored encrypted and never shown again; ' +
          'null removes it.',
      }),
    timeout_ms: z
      .number()
      .int()
      .min(1000, 'At least 1 second (1000 ms).')
      .max(25_000, 'At most 25 seconds (25000 ms).')
      .openapi({ description: 'Agents and robots: how long a call may take (10 s by default, 25 s at most).' }),
    submit: z.boolean().openapi({ description: 'Submit the profile for review (it must be complete).' }),
  })
  .partial()
  .openapi('ProviderProfileInput');
export type ProfileInput = z.infer<typeof profileInputSchema>;

export const providerTransitionSchema = z
  .object({
    from: providerStatusSchema.nullable(),
    to: providerStatusSchema,
    actor: z.enum(['provider', 'admin', 'user', 'system']),
    note: z.string().nullable(),
    at: z.string(),
  })
  .openapi('ProviderTransition');

export const providerProfileSchema = z
  .object({
    provider_id: z.string(),
    status: providerStatusSchema,
    kind: providerKindSchema.nullable(),
    display_name: z.string().nullable(),
    headline: z.string().nullable(),
    bio: z.string().nullable(),
    accepted_scope: z.object({ domains: z.array(z.string()), topics: z.array(z.string()) }),
    languages: z.array(z.string()),
    regions: z.array(z.string()),
    endpoint_url: z.string().nullable(),
    agent_card_url: z.string().nullable(),
    priority: z.number().int(),
    agent_card: agentCardSummarySchema
      .nullable()
      .openapi({ description: 'Agents: the card as fetched and validated when the profile was saved.' }),
    agent_bearer_token_set: z
      .boolean()
      .openapi({ description: 'Whether a bearer token is stored (it is never shown).' }),
    timeout_ms: z.number().int(),
    version: z
      .number()
      .int()
      .openapi({
        description:
          'Counts every change of the profile. A reviewer approves one version; an edit during review makes a new ' +
          'one, ' +
          'which must be read before it can be approved.',
      }),
    signing_secret: z
      .object({
        issued: z.boolean(),
        shown: z
          .boolean()
          .openapi({ description: 'Whether the secret issued at approval was shown already (it is shown once).' }),
        previous_valid_until: z
          .string()
          .nullable()
          .openapi({ description: 'During a rotation: the old secret also signs until then.' }),
      })
      .openapi({
        description: 'Agents and robots: the `whsec_` secret every call to them is signed with (Standard Webhooks).',
      }),
    missing_fields: z
      .array(z.string())
      .openapi({ description: 'What must still be filled in before the profile can be submitted.' }),
    review_note: z
      .string()
      .nullable()
      .openapi({ description: 'The reviewer’s note after a rejection or a suspension.' }),
    submitted_at: z.string().nullable(),
    history: z.array(providerTransitionSchema),
  })
  .openapi('ProviderProfile');
export type ProviderProfileView = z.infer<typeof providerProfileSchema>;

/** An admin's decision on a provider under review. */
export const reviewNoteSchema = z.strictObject({
  note: displayText({ min: 1, max: 1000, multiline: true, minMessage: 'Say why: the provider reads this note.' }),
});

/** An admin's approval: of the profile version the reviewer read. */
export const approvalSchema = z.strictObject({
  version: z
    .number()
    .int()
    .min(1)
    .openapi({
      description:
        'The profile version you read (`version` of the provider). An edit since then makes the approval fail with ' +
        '409 ' +
        '`profile_changed`.',
    }),
});

/** An expert's lead preferences (docs/design/email.md and docs/design/lead-operations.md). */
export const preferencesSchema = z
  .object({
    availability: z.enum(AVAILABILITIES).openapi({
      description: '`away`: no new offers and no alerts; the leads you hold stay yours.',
    }),
    lead_alerts: z.enum(LEAD_ALERT_MODES).openapi({
      description:
        '`instant`: an email within a minute of each lead offered to you (30 an hour at most, the rest in the ' +
        'digest); `hourly`: one digest an hour; `off`: none.',
    }),
    max_open_claims: z.number().int().min(CLAIM_BOUNDS.maxOpenClaims.min).max(CLAIM_BOUNDS.maxOpenClaims.max).openapi({
      description: 'How many leads you may hold at once (claimed, contacted or qualified).',
    }),
  })
  .openapi('ProviderPreferences');
export type Preferences = z.infer<typeof preferencesSchema>;

/** A change of preferences: any of the fields, at least one. */
export const preferencesPatchSchema = preferencesSchema
  .partial()
  .strict()
  .refine((patch) => Object.keys(patch).length > 0, 'Send at least one of availability, lead_alerts, max_open_claims.')
  .openapi('ProviderPreferencesChange');
