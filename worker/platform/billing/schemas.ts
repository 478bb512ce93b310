/**
 * The ledger's wire shapes (docs/design/billing.md): contracts, escrows and their entries, usage,
 * statements, an expert's credits and refund requests. Types are inferred from these.
 */
import { z } from '@hono/zod-openapi';
import { calendarDate, calendarTime, displayText } from '../../lib/openapi';
import { EVENT_DATA } from '../events/schemas';
import { CONTRACT_METERS, ESCROW_OWNERS, LEDGER_KINDS, REFUND_REASONS, REFUND_STATUSES } from '../../vocabulary';

/** A sum of money: integer minor units (cents), up to a billion units of the currency. */
export const minorUnits = z.number().int().min(0).max(100_000_000_000);
export const currencySchema = z
  .string()
  .length(3)
  .regex(/^[A-Z]{3}$/, 'An ISO 4217 code in capitals, such as EUR.');
const at = z.string().openapi({ description: 'ISO 8601, UTC.' });
const isoTime = calendarTime();

const meterTerms = <T extends z.ZodType>(value: T) =>
  z.strictObject(
    Object.fromEntries(CONTRACT_METERS.map((meter) => [meter, value.optional()])) as {
      [M in (typeof CONTRACT_METERS)[number]]: z.ZodOptional<T>;
    },
  );

export const allowancesSchema = meterTerms(z.number().int().min(0).max(1_000_000_000)).openapi({
  description: 'Units included per calendar month (UTC), by meter.',
});
export const overageSchema = meterTerms(z.strictObject({ unit_price_minor: minorUnits })).openapi({
  description: 'The price of each unit past the allowance; a meter without one is blocked past it.',
});

export const newContractSchema = z
  .strictObject({
    workspace_id: z.string().startsWith('ws_').max(64),
    plan: displayText({ min: 1, max: 80 }),
    currency: currencySchema,
    starts_at: isoTime,
    ends_at: isoTime.optional(),
    reference: displayText({ min: 1, max: 200 }).optional(),
    allowances: allowancesSchema.default({}),
    overage: overageSchema.default({}),
    low_balance_minor: minorUnits.optional().openapi({
      description: 'Below this balance, `escrow.low_balance` is sent (1,000 minor units by default).',
    }),
  })
  .superRefine((body, context) => {
    if (body.ends_at && Date.parse(body.ends_at) <= Date.parse(body.starts_at))
      context.addIssue({ code: 'custom', path: ['ends_at'], message: 'Must be after starts_at.' });
  });
export type NewContract = z.infer<typeof newContractSchema>;

export const contractSchema = z.object({
  contract_id: z.string(),
  workspace_id: z.string(),
  plan: z.string(),
  currency: z.string(),
  starts_at: at,
  ends_at: at.nullable(),
  reference: z.string().nullable(),
  allowances: allowancesSchema,
  overage: overageSchema,
  escrow_id: z.string(),
  status: z.enum(['scheduled', 'in_force', 'ended']),
  created_at: at,
});
export type ContractView = z.infer<typeof contractSchema>;

/** The lead a fee, a refund or a refund request is about, as people name it. */
const leadFactsSchema = z.object({
  reference: z.string().openapi({ example: 'D-8S5BSX' }),
  status: z.string(),
});

export const ledgerEntrySchema = z.object({
  entry_id: z.string(),
  account: z.string(),
  amount_minor: z.number().int(),
  balance_after: z.number().int(),
  currency: z.string(),
  kind: z.enum(LEDGER_KINDS),
  meter: z.string().nullable(),
  quantity: z.number().int().nullable(),
  ref: z.string(),
  lead: leadFactsSchema.nullable().openapi({ description: 'A fee’s or refund’s lead: its reference and status.' }),
  created_at: at,
});
export type LedgerEntryView = z.infer<typeof ledgerEntrySchema>;

export const escrowSchema = z.object({
  escrow_id: z.string(),
  owner: z.object({ kind: z.enum(ESCROW_OWNERS), id: z.string() }),
  contract_id: z.string().nullable(),
  currency: z.string(),
  balance_minor: z.number().int(),
  low_balance_minor: z.number().int(),
  entries: z.array(ledgerEntrySchema).openapi({ description: 'The latest 100, newest first.' }),
});

export const creditSchema = z.strictObject({
  amount_minor: minorUnits.min(1),
  reference: displayText({ min: 1, max: 200 }).openapi({
    description: 'The payment’s reference outside (an invoice, a transfer): a second credit with it changes nothing.',
  }),
});
export const creditAnswerSchema = z.object({
  entry_id: z.string(),
  balance_minor: z.number().int(),
  already_recorded: z.boolean().openapi({
    description: 'True when this reference had already recorded this credit: nothing was added this time.',
  }),
});

export const usageMeterSchema = z.object({
  meter: z.enum(CONTRACT_METERS),
  used: z.number().int(),
  included: z.number().int(),
  overage: z.number().int(),
  charged_minor: z.number().int(),
});

export const usageQuerySchema = z.object({
  from: calendarDate().optional(),
  to: calendarDate().optional(),
  group_by: z.enum(['day', 'meter', 'channel', 'key']).default('day'),
  workspace_id: z.string().startsWith('ws_').max(64).optional(),
});

export const usageSchema = z.object({
  workspace_id: z.string(),
  contract_id: z.string().nullable(),
  currency: z.string().nullable(),
  period: z.object({ from: z.string(), to: z.string() }),
  balance_minor: z.number().int().nullable(),
  meters: z.array(usageMeterSchema).openapi({ description: 'This month, against the contract in force.' }),
  group_by: z.enum(['day', 'meter', 'channel', 'key']),
  rows: z.array(
    z.object({
      group: z.string(),
      executions: z.number().int(),
      leads: z.number().int(),
      agent_calls: z.number().int(),
      charged_minor: z.number().int(),
    }),
  ),
});
export type UsageView = z.infer<typeof usageSchema>;

/** A statement: the `statement.issued` event's fields, and the month's sums and meters between them. */
export const statementSchema = EVENT_DATA['statement.issued'].extend({
  credits_minor: z.number().int(),
  charges_minor: z.number().int(),
  fees_minor: z.number().int(),
  refunds_minor: z.number().int(),
  meters: z.array(usageMeterSchema.omit({ meter: true }).extend({ meter: z.string() })),
});
export type StatementView = z.infer<typeof statementSchema>;

export const refundRequestBodySchema = z.strictObject({
  reason: z.enum(REFUND_REASONS),
  note: displayText({ max: 500, multiline: true }).optional(),
});

export const refundRequestSchema = z.object({
  refund_request_id: z.string(),
  lead_id: z.string(),
  lead: leadFactsSchema.nullable(),
  provider_id: z.string(),
  provider_name: z.string().nullable(),
  amount_minor: z.number().int(),
  currency: z.string(),
  reason: z.enum(REFUND_REASONS),
  note: z.string().nullable(),
  status: z.enum(REFUND_STATUSES),
  decision_note: z.string().nullable(),
  created_at: at,
  decided_at: at.nullable(),
});
export type RefundRequestView = z.infer<typeof refundRequestSchema>;

export const refundDecisionSchema = z.strictObject({
  decision: z.enum(['accept', 'decline']),
  note: displayText({ max: 500, multiline: true }).optional(),
});

export const providerCreditsSchema = z.object({
  escrow_id: z.string(),
  currency: z.string(),
  balance_minor: z.number().int(),
  entries: z.array(ledgerEntrySchema),
  refund_requests: z.array(refundRequestSchema),
});
