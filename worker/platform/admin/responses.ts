/**
 * What each admin route answers, as zod schemas like the public routes': every answer is checked
 * against its schema before it leaves (a missing or mistyped field is a bug, caught by the tests),
 * and the handlers' return types are inferred from them.
 */
import { z } from '@hono/zod-openapi';
import { PROVIDER_STATUSES } from '../../vocabulary';
import { agentHealthSchema } from '../agents';
import { providerProfileSchema } from '../providers/schemas';

const list = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item) });
const timestamp = z.string().nullable();
const tenantStatus = z.enum(['active', 'suspended']);

export const organizationSchema = z.object({
  organization_id: z.string(),
  name: z.string(),
  status: tenantStatus,
  created_at: timestamp,
  shard: z.number().int().nullable().openapi({ description: 'The shard (DB_<n>) that holds its rows.' }),
});
export const newOrganizationSchema = organizationSchema.extend({
  workspace_id: z.string(),
  workspace_name: z.string(),
});
export const workspaceSchema = z.object({
  workspace_id: z.string(),
  organization_id: z.string(),
  name: z.string(),
  status: tenantStatus,
  created_at: timestamp,
});
export const statusChangeSchema = z.object({ id: z.string(), status: tenantStatus });
export const organizationListSchema = list(organizationSchema);
export const workspaceListSchema = list(workspaceSchema);

export const domainEntrySchema = z.object({
  domain: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  lead_price_minor: z.number().int().nullable(),
  lead_price_currency: z.string().nullable(),
  created_at: z.string(),
});
export const domainListSchema = list(domainEntrySchema);

export const userSchema = z.object({
  user_id: z.string(),
  email: z.string(),
  role: z.string(),
  platform_admin: z.boolean(),
  created_at: timestamp,
});

export const providerSummarySchema = z.object({
  provider_id: z.string(),
  user_id: z.string(),
  email: z.string(),
  status: z.enum(PROVIDER_STATUSES),
  kind: z.string().nullable(),
  display_name: z.string().nullable(),
  accepted_scope: z.object({ domains: z.array(z.string()), topics: z.array(z.string()) }),
  submitted_at: timestamp,
});
export const providerListSchema = list(providerSummarySchema);
export const providerReviewSchema = providerProfileSchema.extend({
  user_id: z.string(),
  email: z.string(),
  contact_reveals: z.number().int(),
  escrow_id: z.string().nullable(),
});
export const approvalAnswerSchema = z.object({
  provider_id: z.string(),
  status: z.enum(PROVIDER_STATUSES),
  signing_secret: z.string().startsWith('whsec_').optional(),
});
export const decisionAnswerSchema = z.object({
  provider_id: z.string(),
  status: z.enum(PROVIDER_STATUSES),
  review_note: z.string().nullable(),
});
export { agentHealthSchema };

export const endpointSchema = z.object({
  webhook_id: z.string(),
  workspace_id: z.string(),
  url: z.string(),
  description: z.string().nullable(),
  event_types: z.array(z.string()),
  status: z.enum(['active', 'disabled']),
  disabled_reason: z.string().nullable(),
  disabled_at: timestamp,
  failing_since: timestamp,
  previous_secret_valid_until: timestamp,
  created_at: timestamp,
});
export const newEndpointSchema = endpointSchema.extend({ secret: z.string().startsWith('whsec_') });
export const endpointListSchema = list(endpointSchema);
export const endpointEnabledSchema = endpointSchema.extend({
  replayed: z.number().int().optional(),
  expired: z.number().int().optional(),
});
export const rotatedSecretSchema = z.object({
  webhook_id: z.string(),
  secret: z.string().startsWith('whsec_'),
  previous_secret_valid_until: timestamp,
});
export const deliveryLogSchema = z.object({
  data: z.array(
    z.object({
      attempt_id: z.string(),
      event_id: z.string(),
      event_type: z.string().nullable(),
      attempt: z.number().int(),
      status_code: z.number().int().nullable(),
      duration_ms: z.number().int().nullable(),
      error: z.string().nullable(),
      at: timestamp,
      delivery_status: z.string().nullable(),
      next_attempt_at: timestamp,
    }),
  ),
  has_more: z.boolean(),
});
export const redeliverySchema = z.object({
  webhook_id: z.string(),
  event_id: z.string(),
  status: z.literal('pending'),
});

export const auditLogSchema = z.object({
  data: z.array(
    z.object({
      audit_id: z.string(),
      action: z.string(),
      actor_kind: z.string(),
      actor_id: z.string().nullable(),
      key_id: z.string().nullable(),
      organization_id: z.string().nullable(),
      workspace_id: z.string().nullable(),
      target_id: z.string().nullable(),
      request_id: z.string().nullable(),
      trace_id: z.string().nullable(),
      metadata: z.unknown(),
      created_at: timestamp,
    }),
  ),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
});

export const testEmailSchema = z.object({ email_id: z.string(), status: z.literal('queued') });
export const emailStatusSchema = z.object({
  email_id: z.string(),
  kind: z.string(),
  status: z.string(),
  attempts: z.number().int(),
  last_error: z.string().nullable(),
  sent_at: timestamp,
});
