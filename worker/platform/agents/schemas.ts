/**
 * Agents and robots (docs/design/agents-and-robots.md): the agent card the platform keeps, what a robot must
 * answer, the signing secret a provider receives, and the health view. Types are inferred.
 */
import { z } from '@hono/zod-openapi';
import { ATTEMPT_OUTCOMES, PLATFORM_METERS } from '../../vocabulary';

/** The part of a fetched agent card the platform keeps and shows (the card itself is kept too). */
export const agentCardSummarySchema = z
  .object({
    name: z.string(),
    description: z.string(),
    version: z.string(),
    protocol_version: z.string().openapi({
      example: '1.0',
      description: 'The A2A protocol version of the interface the platform calls (1.0, or 0.3).',
    }),
    protocol_binding: z.enum(['JSONRPC', 'HTTP+JSON']),
    endpoint: z.string().openapi({
      description: 'Where SendMessage (message/send on 0.3) is sent: the one interface of the card the platform calls.',
    }),
    tenant: z.string().optional().openapi({ description: 'The tenant the interface names, sent with every call.' }),
    skills: z.array(z.object({ id: z.string(), name: z.string(), description: z.string() })),
    fetched_at: z.string(),
  })
  .openapi('AgentCardSummary');
export type AgentCardSummary = z.infer<typeof agentCardSummarySchema>;

/** The card as stored: its summary, and the normalised card the A2A client is built from. */
export interface StoredAgentCard {
  summary: AgentCardSummary;
  card: Record<string, unknown>;
}

/** What a robot must answer (docs/design/agents-and-robots.md); anything else is an `invalid_answer`. */
export const robotAnswerSchema = z.object({
  output: z.record(z.string(), z.unknown()),
  reply: z.string().max(16_000).optional(),
  usage: z
    .array(
      z.strictObject({
        meter: z
          .string()
          .min(1)
          .max(64)
          .refine(
            (meter) => !PLATFORM_METERS.includes(meter.trim().toLowerCase()),
            'is a meter of the platform’s own; report your usage under a meter of yours',
          ),
        quantity: z.number().finite().nonnegative(),
        unit: z.string().min(1).max(32),
      }),
    )
    .max(20)
    .optional(),
});

/** The `whsec_` secret, shown once: after approval, and after each rotation. */
export const signingSecretSchema = z
  .object({
    signing_secret: z.string().openapi({ example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }),
    previous_secret_valid_until: z
      .string()
      .nullable()
      .openapi({ description: 'After a rotation, the old secret also signs until then (24 h).' }),
  })
  .openapi('SigningSecret');

export const attemptOutcomeSchema = z.enum(ATTEMPT_OUTCOMES).openapi('AttemptOutcome');

/** An agent's or robot's last 24 hours. */
export const agentHealthSchema = z
  .object({
    provider_id: z.string(),
    window_hours: z.literal(24),
    calls: z.number().int().openapi({ description: 'Calls made (skips by the circuit breaker are not calls).' }),
    successes: z.number().int(),
    success_rate: z.number().nullable().openapi({ description: 'Successes per call, 0 to 1; null without calls.' }),
    p50_ms: z.number().int().nullable(),
    p95_ms: z.number().int().nullable(),
    skipped: z
      .number()
      .int()
      .openapi({ description: 'Executions that skipped it while its circuit breaker was open.' }),
    circuit: z.object({
      state: z.enum(['closed', 'open']),
      consecutive_failures: z.number().int(),
      open_until: z.string().nullable(),
    }),
    last_errors: z.array(
      z.object({
        at: z.string(),
        execution_id: z.string(),
        outcome: attemptOutcomeSchema,
        http_status: z.number().int().nullable(),
        error: z.string().nullable(),
      }),
    ),
  })
  .openapi('AgentHealth');
export type AgentHealth = z.infer<typeof agentHealthSchema>;
