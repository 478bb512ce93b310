/**
 * The execution request and the envelope it answers with (docs/design/execution.md). The same objects validate
 * requests and generate the OpenAPI
 * description, so the two cannot drift. TypeScript types are inferred from them.
 */
import { z } from '@hono/zod-openapi';
import { setOf } from '../../lib/openapi';
import { USAGE_SOURCES } from '../../vocabulary';
import { KNOWN_SCOPES, scopeSchema } from '../access/schemas';

/** Correlation ids travel in headers and logs, so they are visible ASCII only. */
const correlationId = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[\x21-\x7e]+$/, 'Use 1 to 128 visible ASCII characters (no spaces).');

const callerReference = z.string().min(1).max(200);
const jsonObject = z.record(z.string(), z.unknown());

export const attachmentSchema = z
  .strictObject({
    attachment_id: z.string().min(1).max(200),
    kind: z.string().min(1).max(100).openapi({ example: 'image' }),
    url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .optional(),
    metadata: jsonObject.optional(),
  })
  .openapi('Attachment');

export const requestExactBridgeSchema = z
  .looseObject({
    contract_id: z.string().max(200).optional(),
    escrow_id: z.string().max(200).optional(),
  })
  .openapi('RequestExactBridge', {
    description: 'Associates the execution with an existing business record. Not required for execution.',
  });

export const executeRequestSchema = z
  .strictObject({
    domain: z.string().trim().min(1).max(100).openapi({
      description: 'A domain of the catalog; anything else is 422 `unknown_domain`.',
      example: 'consultation',
    }),
    execution_mode: z.literal('sync').openapi({ description: 'Only `sync` is supported.' }),
    required_scopes: setOf(scopeSchema, KNOWN_SCOPES.length).openapi({
      description:
        "The minimal scopes this request needs. Must be a subset of the key's scopes. Empty means all of the key's " +
        'scopes.',
      example: ['execute'],
    }),
    key_id: z.string().min(1).max(64).optional().openapi({
      description: 'The API key to act as. Mandatory for administrators; an API key may only name itself.',
    }),
    text: z.string().min(1).max(100_000).optional().openapi({
      description: 'The demand in words, up to 100,000 characters.',
      example: 'I need help choosing a CRM.',
    }),
    structured_input: jsonObject.optional().openapi({
      description: 'Richer structured context. Protocol objects (Demand, Envelope, AuthorizationGrant) go in here.',
    }),
    request_id: correlationId.optional().openapi({ description: 'Yours, echoed in `output.request_id`.' }),
    trace_id: correlationId
      .optional()
      .openapi({ description: 'Echoed in `output.trace_id`; without it, a `traceparent` header sets it.' }),
    idempotency_key: z.string().min(1).max(255).optional().openapi({
      description: 'Retries with the same key and body replay the first response for 24 hours.',
    }),
    project_id: callerReference.optional().openapi({ description: 'Your own reference, stored with the execution.' }),
    user_id: callerReference.optional().openapi({ description: 'Your own reference, stored with the execution.' }),
    session_id: callerReference.optional().openapi({
      description: 'Executions with one `session_id` are one conversation of your workspace: one demand, one lead.',
    }),
    attachments: z.array(attachmentSchema).max(20).optional().openapi({ description: 'At most 20.' }),
    exact_bridge: requestExactBridgeSchema.optional(),
  })
  .superRefine((body, context) => {
    if (body.text === undefined && body.structured_input === undefined) {
      context.addIssue({ code: 'custom', path: ['text'], message: 'Provide text, structured_input, or both.' });
    }
  })
  .openapi('ExecuteRequest');
export type ExecuteRequest = z.infer<typeof executeRequestSchema>;

export const usageApplicationSchema = z
  .object({
    meter: z.string().openapi({ example: 'executions' }),
    quantity: z
      .number()
      .openapi({ description: 'An integer for the platform’s own meters; a provider may report fractions.' }),
    unit: z.string().openapi({ example: 'execution' }),
    limit: z.number().int().optional().openapi({
      description: 'The key’s monthly quota (`platform`), or the units the contract includes a month (`contract`).',
    }),
    remaining: z.number().int().optional().openapi({ description: 'What is left of it this month.' }),
    charged_minor: z.number().int().optional().openapi({
      description: 'For `source: contract`: what this execution debited from the escrow (overage), in minor units.',
    }),
    currency: z.string().optional().openapi({ description: 'For `source: contract`: the contract’s currency.' }),
    source: z.enum(USAGE_SOURCES).openapi({
      description:
        '`platform`: the key’s own quota. `contract`: a meter of the workspace’s contract in force. `provider`: ' +
        'usage that the robot or agent which answered reported about itself (never a platform meter).',
    }),
    provider_id: z.string().optional().openapi({ description: 'For `source: provider`: who reported it.' }),
  })
  .openapi('UsageApplication');
export type UsageApplication = z.infer<typeof usageApplicationSchema>;

export const EXACT_BRIDGE_FIELDS = [
  'contract_id',
  'escrow_id',
  'org_id',
  'organization_id',
  'workspace_id',
  'audit_id',
  'source_layer',
  'source_record',
] as const;

export const exactBridgeSchema = z
  .object(
    Object.fromEntries(EXACT_BRIDGE_FIELDS.map((field) => [field, z.string()])) as Record<
      (typeof EXACT_BRIDGE_FIELDS)[number],
      z.ZodString
    >,
  )
  .openapi('ExactBridge', { description: 'Always all eight fields, always strings ("" when not applicable).' });
export type ExactBridge = z.infer<typeof exactBridgeSchema>;

export const executeResponseSchema = z
  .object({
    output: z.object({
      request_id: z.string().openapi({ description: 'Your `request_id`, else ours (`req_…`).' }),
      trace_id: z.string().openapi({ description: 'Your `trace_id`, the `traceparent`’s, or a new one.' }),
      status: z.literal('completed'),
      execution_id: z.string().openapi({ example: 'exe_01jd3k5v7m8n9p0q1r2s3t4v5w' }),
      domain: z.string().openapi({ description: 'The request’s domain.' }),
      result: jsonObject.openapi({ description: 'What the brain answered for this domain.' }),
    }),
    usage_applications: z.array(usageApplicationSchema).openapi({ description: 'What this execution charged.' }),
    exact_bridge: exactBridgeSchema,
  })
  .openapi('ExecuteResponse');
export type ExecuteResponse = z.infer<typeof executeResponseSchema>;
