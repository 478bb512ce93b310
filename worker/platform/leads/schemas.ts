/** Workbench schemas (docs/design/providers-and-leads.md): leads as a provider sees them, and what a provider sends. */
import { z } from '@hono/zod-openapi';
import { attributionSchema } from '../attribution';
import { messageSchema } from '../conversations/schemas';
import { LEAD_STATUSES, MESSAGE_MAX_CHARS, TRIGGERS, URGENCIES } from '../../vocabulary';
import { displayText } from '../../lib/openapi';

/** What a won lead was worth: integer minor units of an ISO 4217 currency. */
export const wonValueSchema = z
  .strictObject({
    value_minor: z.number().int().min(0).max(100_000_000_000),
    currency: z
      .string()
      .length(3)
      .regex(/^[A-Z]{3}$/, 'An ISO 4217 code in capitals, such as EUR.'),
  })
  .openapi('WonValue');

export const leadStatusSchema = z.enum(LEAD_STATUSES).openapi('LeadStatus', {
  description: '`open → claimed → contacted → qualified → won | lost`; the claimer may release a lead back to `open`.',
});
export type LeadStatus = z.infer<typeof leadStatusSchema>;

export const leadContactSchema = z
  .object({ name: z.string().nullable(), email: z.string().nullable(), phone: z.string().nullable() })
  .openapi('LeadContact', { description: 'Only the provider who claimed the lead sees this.' });

export const leadSchema = z
  .object({
    lead_id: z.string().openapi({ example: 'lead_01m83…' }),
    status: leadStatusSchema,
    domain: z.string(),
    topic: z.string().openapi({ description: 'The provider topic the demand names, or `general`.' }),
    urgency: z.enum(URGENCIES),
    trigger: z.enum(TRIGGERS),
    reference: z.string().openapi({ example: 'D-8S5BSX', description: 'The reference the visitor sees.' }),
    summary: z.string().openapi({ description: 'The start of the first message.' }),
    attribution: attributionSchema.nullable(),
    channel_name: z.string().nullable(),
    created_at: z.string(),
    claimed_at: z.string().optional(),
    contact: leadContactSchema.optional(),
    claim_fee: z.object({ amount_minor: z.number().int(), currency: z.string() }).nullable().openapi({
      description: 'What claiming this open lead costs you (its domain’s price); null when free or not open.',
    }),
  })
  .openapi('Lead');
export type LeadView = z.infer<typeof leadSchema>;

export const leadDetailSchema = leadSchema
  .extend({
    messages: z.array(messageSchema),
    history: z.array(
      z.object({
        from: leadStatusSchema.nullable(),
        to: leadStatusSchema,
        actor: z.enum(['provider', 'channel', 'api_key', 'admin', 'system']),
        by_you: z.boolean(),
        note: z.string().nullable(),
        /** A move to `won` may carry what it was worth. */
        value: wonValueSchema.nullable(),
        at: z.string(),
      }),
    ),
  })
  .openapi('LeadDetail');
export type LeadDetail = z.infer<typeof leadDetailSchema>;

export const leadListQuerySchema = z.object({
  scope: z
    .enum(['available', 'mine'])
    .default('available')
    .openapi({ description: '`available`: open leads in your scope; `mine`: the leads you claimed.' }),
  status: leadStatusSchema.optional(),
  limit: z.coerce.number().int().min(1).max(100).default(25),
  starting_after: z
    .string()
    .startsWith('lead_')
    .max(64)
    .optional()
    .openapi({ description: 'Cursor: the last lead_id of the previous page.' }),
});

export const leadListSchema = z
  .object({
    data: z.array(leadSchema),
    has_more: z.boolean(),
    counts: z.object({ available: z.number().int(), mine: z.number().int() }),
  })
  .openapi('LeadList');

export const leadStatusBodySchema = z
  .strictObject({
    status: leadStatusSchema.openapi({ description: 'The next status; `open` releases the lead.' }),
    note: displayText({ max: 1000, multiline: true }).optional(),
    value: wonValueSchema.optional().openapi({
      description: 'With `won` only: what the deal was worth. The owner sees it summed per currency in insights.',
    }),
  })
  .superRefine((body, context) => {
    if (body.value && body.status !== 'won')
      context.addIssue({ code: 'custom', path: ['value'], message: 'A value goes with `won` only.' });
  })
  .openapi('LeadStatusChange');

export const replyBodySchema = z
  .strictObject({
    text: z
      .string()
      .max(MESSAGE_MAX_CHARS)
      .refine((text) => text.trim().length > 0, 'Write something first.')
      .openapi({ description: `1 to ${MESSAGE_MAX_CHARS} characters of plain text.` }),
  })
  .openapi('Reply');

export const replyCreatedSchema = z
  .object({ message_id: z.string().openapi({ example: 'msg_01m83…' }), created_at: z.string() })
  .openapi('ReplyCreated');
