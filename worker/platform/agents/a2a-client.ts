/**
 * The platform's A2A client: one `SendMessage` to the interface a card names, in the four wires the
 * platform speaks (JSON-RPC or HTTP+JSON, A2A 1.0 or 0.3), and the answer read back through zod
 * into one shape. It is ours rather than `@a2a-js/sdk`'s client because the platform sends one kind
 * of request and reads one kind of answer, and the SDK's client (every method, streaming, gRPC
 * types, their proto codecs) weighed about 30 KiB gzip in the Worker. The Node tests hold it
 * against the SDK's own servers, in each wire.
 */
import { z } from 'zod';

/** The one interface of a card the platform calls (as validated and shown; see `calledInterface`). */
export interface A2aInterface {
  url: string;
  protocolBinding: string;
  protocolVersion: string;
  tenant: string;
}

/** The user's message: its text, and everything else as one data part. */
export interface OutgoingMessage {
  messageId: string;
  text?: string;
  data: Record<string, unknown>;
}

/** A part of an answer the platform reads: text, or a JSON object (files are not read). */
export type AnswerPart = { text: string } | { data: Record<string, unknown> };

/** An answer, whatever its wire: a message, or a task with its state (0.3's names: `completed`). */
export type A2aAnswer = { kind: 'message'; parts: AnswerPart[] } | { kind: 'task'; state: string; parts: AnswerPart[] };

/** The answer is not what A2A says it should be (the reason is safe to store). */
export class InvalidA2aAnswer extends Error {}

/** The answer is a JSON-RPC error (the caller reads its code and message from the body). */
export class A2aRpcError extends Error {}

type Wire = 'jsonrpc-1.0' | 'jsonrpc-0.3' | 'rest-1.0' | 'rest-0.3';

const isLegacy = (version: string) => version.startsWith('0.');

function wireOf(target: A2aInterface): Wire {
  const legacy = isLegacy(target.protocolVersion);
  if (target.protocolBinding === 'HTTP+JSON') return legacy ? 'rest-0.3' : 'rest-1.0';
  return legacy ? 'jsonrpc-0.3' : 'jsonrpc-1.0';
}

/** The message in the wire's form: 1.0's parts, 0.3's `kind`s, or 0.3 proto-JSON's `content`. */
function messageFor(message: OutgoingMessage, wire: Wire): Record<string, unknown> {
  const { messageId, text, data } = message;
  if (wire === 'jsonrpc-0.3') {
    const parts = [...(text !== undefined ? [{ kind: 'text', text }] : []), { kind: 'data', data }];
    return { kind: 'message', messageId, role: 'user', parts };
  }
  if (wire === 'rest-0.3')
    return { messageId, role: 'ROLE_USER', content: [...(text !== undefined ? [{ text }] : []), { data: { data } }] };
  const parts = [
    ...(text !== undefined ? [{ text, mediaType: 'text/plain' }] : []),
    { data, mediaType: 'application/json' },
  ];
  return { messageId, role: 'ROLE_USER', parts };
}

/** The request for each wire: where it goes and what it carries. */
function requestFor(target: A2aInterface, message: OutgoingMessage, wire: Wire, rpcId: number) {
  const tenant = target.tenant ? { tenant: target.tenant } : {};
  const params = { ...tenant, message: messageFor(message, wire) };
  const base = target.url.replace(/\/+$/, '');
  switch (wire) {
    case 'jsonrpc-1.0':
      return { url: target.url, body: { jsonrpc: '2.0', id: rpcId, method: 'SendMessage', params } };
    case 'jsonrpc-0.3':
      return { url: target.url, body: { jsonrpc: '2.0', id: rpcId, method: 'message/send', params } };
    case 'rest-1.0':
      return {
        url: `${base}${target.tenant ? `/${encodeURIComponent(target.tenant)}` : ''}/message:send`,
        body: params,
      };
    case 'rest-0.3':
      return { url: `${base}/v1/message:send`, body: { message: params.message } };
  }
}

const rawPart = z.record(z.string(), z.unknown());
const partList = (key: string) =>
  z
    .array(rawPart, { error: `"${key}" must be a list.` })
    .optional()
    .default([]);
const state = z.union([z.string(), z.number()], { error: 'a task needs a status with a state.' });

// What each wire answers, from the result (JSON-RPC) or the body (HTTP+JSON). Unknown fields are
// ignored, as A2A asks of clients.
const message10 = z.object({ parts: partList('parts') });
const task10 = z.object({
  status: z.object({ state, message: message10.optional() }),
  artifacts: z.array(message10).optional().default([]),
});
const answer10 = z.union([z.object({ message: message10 }), z.object({ task: task10 })], {
  error: 'the result holds neither a message nor a task.',
});
const answer03 = z.discriminatedUnion(
  'kind',
  [message10.extend({ kind: z.literal('message') }), task10.extend({ kind: z.literal('task') })],
  { error: 'the result is neither a message nor a task (its kind).' },
);
const message03proto = z.object({ content: partList('content') });
const answer03proto = z.union(
  [
    z.object({ message: message03proto }),
    z.object({ msg: message03proto }),
    z.object({
      task: z.object({
        status: z.object({ state, update: message03proto.optional() }),
        artifacts: z.array(message10).optional().default([]),
      }),
    }),
  ],
  { error: 'the answer holds neither a message nor a task.' },
);

/** 1.0's `TASK_STATE_COMPLETED` (or its number, 3) and 0.3's `completed` alike, in 0.3's names. */
const STATE_NUMBERS = [
  'unspecified',
  'submitted',
  'working',
  'completed',
  'failed',
  'canceled',
  'input-required',
  'rejected',
  'auth-required',
];
function stateName(value: string | number): string {
  if (typeof value === 'number') return STATE_NUMBERS[value] ?? 'unknown';
  const name = value
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replaceAll('_', '-');
  return name === 'cancelled' ? 'canceled' : name;
}

/** The parts the platform reads; 0.3 proto-JSON wraps a data part's object once more (`{data: {data}}`). */
function readParts(parts: Record<string, unknown>[], wire: Wire): AnswerPart[] {
  const read: AnswerPart[] = [];
  for (const part of parts) {
    if (typeof part.text === 'string') {
      read.push({ text: part.text });
      continue;
    }
    const holder = wire === 'rest-0.3' ? (part.data as Record<string, unknown> | undefined)?.data : part.data;
    if (holder && typeof holder === 'object' && !Array.isArray(holder))
      read.push({ data: holder as Record<string, unknown> });
  }
  return read;
}

function readAnswer(value: unknown, wire: Wire): A2aAnswer {
  const refuse = (error: z.ZodError) => {
    throw new InvalidA2aAnswer(error.issues[0]?.message ?? 'unreadable');
  };
  if (wire === 'rest-0.3') {
    const parsed = answer03proto.safeParse(value);
    if (!parsed.success) return refuse(parsed.error);
    const answer = parsed.data;
    // The proto field is `msg`; its JSON name, which servers write, is `message`.
    if ('message' in answer) return { kind: 'message', parts: readParts(answer.message.content, wire) };
    if ('msg' in answer) return { kind: 'message', parts: readParts(answer.msg.content, wire) };
    const { status, artifacts } = answer.task;
    const parts = [...artifacts.flatMap((artifact) => artifact.parts), ...(status.update?.content ?? [])];
    return { kind: 'task', state: stateName(status.state), parts: readParts(parts, wire) };
  }
  const parsed = wire === 'jsonrpc-0.3' ? answer03.safeParse(value) : answer10.safeParse(value);
  if (!parsed.success) return refuse(parsed.error);
  const data = parsed.data;
  const message =
    'kind' in data ? (data.kind === 'message' ? data : undefined) : 'message' in data ? data.message : undefined;
  if (message) return { kind: 'message', parts: readParts(message.parts, wire) };
  const task = 'kind' in data ? (data as z.output<typeof task10>) : (data as { task: z.output<typeof task10> }).task;
  const parts = [...task.artifacts.flatMap((artifact) => artifact.parts), ...(task.status.message?.parts ?? [])];
  return { kind: 'task', state: stateName(task.status.state), parts: readParts(parts, wire) };
}

const rpcResponse = z.object({ jsonrpc: z.literal('2.0'), id: z.union([z.string(), z.number(), z.null()]) });

/**
 * Sends one message and reads the answer. `fetchImpl` does the transport (the platform's signs,
 * guards and bounds it); a refused answer throws `InvalidA2aAnswer`, a JSON-RPC error `A2aRpcError`,
 * an HTTP error status `InvalidA2aAnswer` with the status.
 */
export async function sendA2aMessage(
  target: A2aInterface,
  message: OutgoingMessage,
  fetchImpl: typeof fetch,
): Promise<A2aAnswer> {
  const wire = wireOf(target);
  const rpcId = 1;
  const request = requestFor(target, message, wire, rpcId);
  const response = await fetchImpl(request.url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json',
      'A2A-Version': isLegacy(target.protocolVersion) ? '0.3' : '1.0',
    },
    body: JSON.stringify(request.body),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new InvalidA2aAnswer(response.ok ? 'the answer is not JSON.' : `HTTP ${response.status}.`);
  }
  if (wire === 'rest-1.0' || wire === 'rest-0.3') {
    if (!response.ok) throw new InvalidA2aAnswer(`HTTP ${response.status}.`);
    return readAnswer(body, wire);
  }
  const envelope = body as { error?: unknown; result?: unknown };
  if (envelope && typeof envelope === 'object' && envelope.error) throw new A2aRpcError('JSON-RPC error');
  if (!response.ok) throw new InvalidA2aAnswer(`HTTP ${response.status}.`);
  const checked = rpcResponse.safeParse(body);
  if (!checked.success) throw new InvalidA2aAnswer('the answer is not a JSON-RPC 2.0 response.');
  if (checked.data.id !== rpcId) throw new InvalidA2aAnswer(`the response's id is not the request's (${rpcId}).`);
  return readAnswer(envelope.result, wire);
}

const LEGACY_ONLY_FIELDS = ['preferredTransport', 'additionalInterfaces', 'supportsAuthenticatedExtendedCard'];

/** Whether a card is in A2A 0.3's shape (a `url` and a transport, no `supportedInterfaces`). */
function isLegacyCard(card: Record<string, unknown>): boolean {
  if (Array.isArray(card.supportedInterfaces) && card.supportedInterfaces.length > 0) return false;
  if (typeof card.url === 'string' && !('supportedInterfaces' in card)) return true;
  if (LEGACY_ONLY_FIELDS.some((field) => field in card)) return true;
  return typeof card.protocolVersion === 'string' && isLegacy(card.protocolVersion);
}

/**
 * A card in A2A 1.0's shape: a 0.3 card's `url`, `preferredTransport` and `additionalInterfaces`
 * become `supportedInterfaces` (each at 0.3, the primary one at the card's `protocolVersion`); a
 * 1.0 card is returned as it is. The rest of the card is kept for the reviewer to read.
 */
export function normaliseAgentCard(card: Record<string, unknown>): Record<string, unknown> {
  if (!isLegacyCard(card)) return card;
  const additional = z
    .array(z.object({ url: z.string(), transport: z.string() }))
    .catch([])
    .parse(card.additionalInterfaces ?? []);
  const { url, preferredTransport, additionalInterfaces: _, protocolVersion, ...rest } = card;
  const primary = {
    url,
    protocolBinding: typeof preferredTransport === 'string' ? preferredTransport : 'JSONRPC',
    tenant: '',
    protocolVersion: typeof protocolVersion === 'string' && protocolVersion ? protocolVersion : '0.3',
  };
  const others = additional.map((item) => ({
    url: item.url,
    protocolBinding: item.transport,
    tenant: '',
    protocolVersion: '0.3',
  }));
  return { ...rest, supportedInterfaces: [primary, ...others] };
}
