/** Provisioning requests' wire shapes (docs/design/identity-and-access.md); types are inferred from these. */
import { z } from '@hono/zod-openapi';
import { displayText, setOf } from '../../lib/openapi';
import { PROVISIONING_KINDS, PROVISIONING_STATUSES } from '../../vocabulary';
import { KNOWN_SCOPES, scopeSchema } from '../access/schemas';
import { EVENT_TYPES, eventTypeSchema } from '../events/schemas';

const purpose = displayText({ min: 1, max: 500, multiline: true, minMessage: 'Say what it is for.' });

/** An owner asks for an API key: its name, the scopes it needs, and why. */
export const apiKeyRequestSchema = z.strictObject({
  kind: z.literal('api_key'),
  name: displayText({ min: 1, max: 80, minMessage: 'Give the key a name.' }),
  scopes: setOf(scopeSchema, KNOWN_SCOPES.length).refine((scopes) => scopes.length > 0, 'Choose at least one scope.'),
  purpose,
});

/** An owner asks for a webhook endpoint: its URL, the events it takes, and why. */
export const endpointRequestSchema = z.strictObject({
  kind: z.literal('webhook_endpoint'),
  url: z.url({ protocol: /^https?$/ }).max(500),
  event_types: setOf(eventTypeSchema, EVENT_TYPES.length).refine(
    (types) => types.length > 0,
    'Choose at least one event.',
  ),
  purpose,
});

export const provisioningRequestBodySchema = z.discriminatedUnion('kind', [apiKeyRequestSchema, endpointRequestSchema]);
export type ProvisioningRequestBody = z.infer<typeof provisioningRequestBodySchema>;

export const provisioningDecisionSchema = z.strictObject({
  decision: z.enum(['approve', 'decline']),
  note: displayText({ max: 500, multiline: true }).optional(),
});

export const provisioningRequestViewSchema = z.object({
  request_id: z.string(),
  workspace_id: z.string(),
  kind: z.enum(PROVISIONING_KINDS),
  status: z.enum(PROVISIONING_STATUSES),
  details: z.record(z.string(), z.unknown()),
  requested_by: z.string(),
  decision_note: z.string().nullable(),
  /** The key's or endpoint's id, once approved. */
  result_id: z.string().nullable(),
  /** Whether its one secret still waits for an owner to see it. */
  secret_waiting: z.boolean(),
  created_at: z.string(),
  decided_at: z.string().nullable(),
});
export type ProvisioningRequestView = z.infer<typeof provisioningRequestViewSchema>;
