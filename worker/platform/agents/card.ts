/**
 * Agent cards (A2A v1.0; 0.3 accepted). When an agent's profile names its card, the platform
 * fetches it through the egress guard, normalises it to 1.0's shape (a 0.3 card's `url` and
 * transports become `supportedInterfaces`), and checks what it needs to call the agent: a name, an interface it
 * speaks (JSON-RPC or HTTP+JSON, v1.0 or 0.3) and an endpoint that passes the guard. A card that
 * fails gets a sentence that names the reason.
 */
import { z } from 'zod';
import {
  checkEgressUrl,
  discardBody,
  EgressRefused,
  guardedFetch,
  readBoundedBody,
  type EgressPolicy,
} from '../../lib/egress';
import { normaliseAgentCard } from './a2a-client';
import type { AgentCardSummary, StoredAgentCard } from './schemas';
import { clock } from '../../lib/clock';

/** A card larger than this is refused. */
const CARD_LIMIT_BYTES = 256 * 1024;
const CARD_TIMEOUT_MS = 10_000;

const interfaceSchema = z.object({
  url: z.string().min(1),
  protocolBinding: z.string(),
  protocolVersion: z.string().optional().default(''),
  tenant: z.string().max(200).optional().default(''),
});

/** What the platform requires of a card, after normalisation to the v1.0 shape. */
const normalisedCardSchema = z.object({
  name: z.string().trim().min(1, 'The card has no name.').max(200),
  description: z.string().max(5000).optional().default(''),
  version: z.string().max(100).optional().default(''),
  supportedInterfaces: z.array(interfaceSchema).min(1, 'The card lists no interface to call.').max(50),
  skills: z
    .array(z.object({ id: z.string(), name: z.string(), description: z.string().optional().default('') }))
    .max(200)
    .optional()
    .default([]),
});

const SPOKEN_BINDINGS = ['JSONRPC', 'HTTP+JSON'] as const;
const spokenVersion = (version: string) => version === '' || version === '1.0' || version.startsWith('0.3');

export type CardCheck = { ok: true; stored: StoredAgentCard } | { ok: false; detail: string };

const failed = (detail: string): CardCheck => ({ ok: false, detail });

/** Validates a card already parsed from JSON. */
export function validateAgentCard(raw: unknown, egress: EgressPolicy, now = clock.now()): CardCheck {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return failed('The card is not a JSON object.');
  const normalised = normaliseAgentCard(raw as Record<string, unknown>);
  const parsed = normalisedCardSchema.safeParse(normalised);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return failed(
      issue.code === 'custom' || issue.message.startsWith('The card')
        ? issue.message
        : `The card is not a valid A2A agent card: ${issue.path.join('.') || 'card'}: ${issue.message}.`,
    );
  }
  const card = parsed.data;
  const spoken = card.supportedInterfaces.filter(
    (item) =>
      (SPOKEN_BINDINGS as readonly string[]).includes(item.protocolBinding) && spokenVersion(item.protocolVersion),
  );
  if (spoken.length === 0) {
    const offered = card.supportedInterfaces
      .map((item) => `${item.protocolBinding} ${item.protocolVersion || '?'}`)
      .join(', ');
    return failed(
      `The card offers no interface the platform speaks (JSON-RPC or HTTP+JSON, A2A 1.0 or 0.3); it offers ${offered}.`,
    );
  }
  // The first 1.0 interface the platform speaks, else the first one. It is stored exactly, shown
  // to the provider and the reviewer, and it is the only one the client is ever built from
  // (calledInterface), whatever else the card lists. Its endpoint must pass the guard.
  const chosen = spoken.find((item) => item.protocolVersion === '1.0' || item.protocolVersion === '') ?? spoken[0]!;
  const endpoint = checkEgressUrl(chosen.url, egress);
  if (!endpoint.ok) return failed(`The card's endpoint ${chosen.url} cannot be called: ${endpoint.detail}`);
  return {
    ok: true,
    stored: {
      summary: {
        name: card.name,
        description: card.description,
        version: card.version,
        protocol_version: chosen.protocolVersion || '1.0',
        protocol_binding: chosen.protocolBinding as (typeof SPOKEN_BINDINGS)[number],
        endpoint: chosen.url,
        ...(chosen.tenant ? { tenant: chosen.tenant } : {}),
        skills: card.skills.map((skill) => ({ id: skill.id, name: skill.name, description: skill.description })),
        fetched_at: new Date(now).toISOString(),
      },
      card: normalised as Record<string, unknown>,
    },
  };
}

/**
 * The one interface the platform calls, as validated and shown: the client is built from a card
 * that lists only it, so an interface added to the card later is never called unseen.
 */
export function calledInterface(summary: AgentCardSummary) {
  return {
    url: summary.endpoint,
    protocolBinding: summary.protocol_binding,
    protocolVersion: summary.protocol_version,
    tenant: summary.tenant ?? '',
  };
}

/** Whether two validated cards call the same thing (a change of it is material: back to review). */
export function sameCalledInterface(a: AgentCardSummary | undefined, b: AgentCardSummary | undefined): boolean {
  if (!a || !b) return a === b;
  return JSON.stringify(calledInterface(a)) === JSON.stringify(calledInterface(b));
}

/** Fetches an agent card through the egress guard and validates it (the timeout is 10 s). */
export async function fetchAgentCard(
  url: string,
  egress: EgressPolicy,
  now = clock.now(),
  options: { timeoutMs?: number } = {},
): Promise<CardCheck> {
  const timeoutMs = options.timeoutMs ?? CARD_TIMEOUT_MS;
  const deadline = clock.now() + timeoutMs;
  const tooSlow = `The card URL did not send the card within ${timeoutMs / 1000} s.`;
  let response: Response;
  try {
    response = await guardedFetch(url, { method: 'GET', headers: { Accept: 'application/json' }, timeoutMs }, egress);
  } catch (error) {
    if (error instanceof EgressRefused) return failed(error.message);
    if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
      return failed(tooSlow);
    return failed('The card URL could not be reached (the connection failed).');
  }
  if (!response.ok) {
    discardBody(response);
    return failed(`The card URL answered HTTP ${response.status}; it must answer 200 with the card.`);
  }
  // Read as a stream and cut at the limit, whatever length the response declares (or not).
  const body = await readBoundedBody(response, CARD_LIMIT_BYTES, deadline);
  if (!body.ok) {
    if (body.reason === 'too_large') return failed(`The card is larger than ${CARD_LIMIT_BYTES / 1024} KB.`);
    if (body.reason === 'timeout') return failed(tooSlow);
    return failed('The card URL broke off while sending the card.');
  }
  let raw: unknown;
  try {
    raw = JSON.parse(body.text);
  } catch {
    return failed('The card URL did not answer with JSON.');
  }
  return validateAgentCard(raw, egress, now);
}
