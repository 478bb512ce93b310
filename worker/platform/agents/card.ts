/**
 * Agent cards (A2A v1.0; 0.3 accepted). When an agent's profile names its card, the platform
 * fetches it through the egress guard, normalises it with the `@a2a-js/sdk` resolver (which
 * translates 0.3 cards), and checks what it needs to call the agent: a name, an interface it
 * speaks (JSON-RPC or HTTP+JSON, v1.0 or 0.3) and an endpoint that passes the guard. A card that
 * fails gets a sentence that names the reason.
 */
import { DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import { z } from 'zod';
import { checkEgressUrl, EgressRefused, guardedFetch, type EgressPolicy } from '../../lib/egress';
import type { StoredAgentCard } from './schemas';

/** A card larger than this is refused. */
const CARD_LIMIT_BYTES = 256 * 1024;
const CARD_TIMEOUT_MS = 10_000;

const interfaceSchema = z.object({
  url: z.string().min(1),
  protocolBinding: z.string(),
  protocolVersion: z.string().optional().default(''),
});

/** What the platform requires of a card, after normalisation to the v1.0 shape. */
const normalisedCardSchema = z.object({
  name: z.string().trim().min(1, 'The card has no name.').max(200),
  description: z.string().max(5000).optional().default(''),
  version: z.string().max(100).optional().default(''),
  supportedInterfaces: z.array(interfaceSchema).min(1, 'The card lists no interface to call.'),
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

/** Reads at most `limit` bytes of a body; undefined when it is longer. */
async function boundedText(response: Response, limit: number): Promise<string | undefined> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > limit) return undefined;
  const buffer = await response.arrayBuffer();
  if (buffer.byteLength > limit) return undefined;
  return new TextDecoder().decode(buffer);
}

/** Validates a card already parsed from JSON. */
export function validateAgentCard(raw: unknown, egress: EgressPolicy, now = Date.now()): CardCheck {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return failed('The card is not a JSON object.');
  let normalised: unknown;
  try {
    normalised = new DefaultAgentCardResolver({ legacyCompat: { enabled: true } }).normalizeAgentCard(raw);
  } catch (error) {
    return failed(`The card is not a valid A2A agent card: ${error instanceof Error ? error.message : 'it could not be read'}.`);
  }
  const parsed = normalisedCardSchema.safeParse(normalised);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return failed(issue.code === 'custom' || issue.message.startsWith('The card') ? issue.message : `The card is not a valid A2A agent card: ${issue.path.join('.') || 'card'}: ${issue.message}.`);
  }
  const card = parsed.data;
  const spoken = card.supportedInterfaces.filter((item) => (SPOKEN_BINDINGS as readonly string[]).includes(item.protocolBinding) && spokenVersion(item.protocolVersion));
  if (spoken.length === 0) {
    const offered = card.supportedInterfaces.map((item) => `${item.protocolBinding} ${item.protocolVersion || '?'}`).join(', ');
    return failed(`The card offers no interface the platform speaks (JSON-RPC or HTTP+JSON, A2A 1.0 or 0.3); it offers ${offered}.`);
  }
  // The SDK prefers a 1.0 interface; so do we, and the endpoint must pass the guard as any customer URL.
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
        skills: card.skills.map((skill) => ({ id: skill.id, name: skill.name, description: skill.description })),
        fetched_at: new Date(now).toISOString(),
      },
      card: normalised as Record<string, unknown>,
    },
  };
}

/** Fetches an agent card through the egress guard and validates it. */
export async function fetchAgentCard(url: string, egress: EgressPolicy, now = Date.now()): Promise<CardCheck> {
  let response: Response;
  try {
    response = await guardedFetch(url, { method: 'GET', headers: { Accept: 'application/json' }, timeoutMs: CARD_TIMEOUT_MS }, egress);
  } catch (error) {
    if (error instanceof EgressRefused) return failed(error.message);
    if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return failed(`The card URL did not answer within ${CARD_TIMEOUT_MS / 1000} s.`);
    return failed('The card URL could not be reached (the connection failed).');
  }
  if (!response.ok) {
    await response.body?.cancel();
    return failed(`The card URL answered HTTP ${response.status}; it must answer 200 with the card.`);
  }
  const text = await boundedText(response, CARD_LIMIT_BYTES);
  if (text === undefined) return failed(`The card is larger than ${CARD_LIMIT_BYTES / 1024} KB.`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return failed('The card URL did not answer with JSON.');
  }
  return validateAgentCard(raw, egress, now);
}
