/**
 * Calling an agent or a robot (docs/design/agents-and-robots.md). An agent gets one A2A `SendMessage`
 * (`message/send` on 0.3) through the platform's A2A client (`a2a-client.ts`); a robot gets one JSON POST. Every
 * request goes through the egress guard, carries Standard Webhooks signature headers over its
 * exact body, and must answer within the provider's timeout. The answer is validated; anything
 * else becomes a failure with a stable outcome and a short, secret-free reason.
 */
import type { AgentAnswer, AgentCall, ReportedUsage } from '../../brain';
import { EgressRefused, guardedFetch, readBoundedBody, type EgressPolicy } from '../../lib/egress';
import { newId } from '../../lib/ids';
import { jsonNestsDeeperThan, MAX_ANSWER_JSON_DEPTH } from '../../lib/json-depth';
import { signStandardWebhook } from '../../lib/standard-webhooks';
import { sendA2aMessage, type A2aAnswer, type AnswerPart } from './a2a-client';
import { calledInterface } from './card';
import { robotAnswerSchema, type StoredAgentCard } from './schemas';
import { clock } from '../../lib/clock';

/** What the platform needs to call one provider. Secrets are decrypted only for the call. */
export interface CallTarget {
  providerId: string;
  kind: 'agent' | 'robot';
  endpointUrl: string | null;
  card: StoredAgentCard | null;
  /** The signing secrets: the current one, and the previous one during a rotation. */
  signingSecrets: string[];
  bearerToken: string | null;
  timeoutMs: number;
}

/** The largest answer read from an agent or robot. */
const ANSWER_LIMIT_BYTES = 1024 * 1024;
/** The largest reply text kept (what a visitor reads). */
const REPLY_LIMIT_CHARS = 16_000;

/** What the signed fetch saw of the last response, to tell failures apart after the client throws. */
interface Probe {
  status: number | null;
  body?: string;
  tooLarge?: boolean;
  /** The connection broke off in the middle of the answer. */
  broken?: boolean;
}

class CallTimeout extends Error {}

type Failure = Extract<AgentAnswer, { ok: false }>;
const failure = (outcome: Failure['outcome'], error: string, httpStatus: number | null, started: number): Failure => ({
  ok: false,
  outcome,
  error,
  httpStatus,
  durationMs: clock.now() - started,
});

/**
 * fetch() for one call: signs the exact body, adds the bearer token, goes through the guard
 * (no redirects, the call's deadline), and keeps what it saw in the probe.
 */
function signedFetch(target: CallTarget, egress: EgressPolicy, deadline: number, probe: Probe): typeof fetch {
  return async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.toString() : input.url;
    const body = typeof init?.body === 'string' ? init.body : '';
    const headers = new Headers(init?.headers);
    const signature = await signStandardWebhook(
      target.signingSecrets,
      newId('call'),
      Math.floor(clock.now() / 1000),
      body,
    );
    for (const [name, value] of Object.entries(signature)) headers.set(name, value);
    if (target.bearerToken) headers.set('Authorization', `Bearer ${target.bearerToken}`);
    const response = await guardedFetch(
      url,
      {
        method: init?.method ?? 'POST',
        headers,
        ...(body ? { body } : {}),
        timeoutMs: Math.max(1, deadline - clock.now()),
      },
      egress,
    );
    probe.status = response.status;
    // Read as a stream and cut at the limit and the deadline, whatever length the answer declares.
    const answer = await readBoundedBody(response, ANSWER_LIMIT_BYTES, deadline);
    if (!answer.ok) {
      if (answer.reason === 'timeout') throw new CallTimeout();
      probe.tooLarge = answer.reason === 'too_large';
      probe.broken = answer.reason === 'failed';
      throw new Error(`answer ${answer.reason}`);
    }
    probe.body = answer.text;
    return new Response(response.status === 204 ? null : answer.text, {
      status: response.status,
      headers: response.headers,
    });
  };
}

/** Runs a call under the provider's timeout, whatever the transport does with its signal. */
async function withinTimeout<T>(timeoutMs: number, run: () => Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CallTimeout()), timeoutMs);
  });
  try {
    return await Promise.race([run(), expired]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

const isJsonRpcError = (body: string | undefined) => {
  try {
    const parsed = body ? (JSON.parse(body) as { error?: { code?: unknown; message?: unknown } }) : undefined;
    return parsed?.error && typeof parsed.error === 'object' ? parsed.error : undefined;
  } catch {
    return undefined;
  }
};

const parsesAsJson = (body: string | undefined) => {
  try {
    JSON.parse(body ?? '');
    return true;
  } catch {
    return false;
  }
};

/** Tells apart why a call failed, from the error and what the probe saw. */
function classifyError(error: unknown, probe: Probe, started: number): Failure {
  if (error instanceof EgressRefused)
    return failure('refused', `Refused by the egress guard: ${error.message}`, null, started);
  if (
    error instanceof CallTimeout ||
    (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
  ) {
    return failure('timeout', 'No answer within the timeout.', probe.status, started);
  }
  if (probe.tooLarge)
    return failure(
      'invalid_answer',
      `The answer is larger than ${ANSWER_LIMIT_BYTES / 1024} KB.`,
      probe.status,
      started,
    );
  if (probe.broken)
    return failure('network_error', 'The connection broke off during the answer.', probe.status, started);
  if (probe.status === null) return failure('network_error', 'The connection failed.', null, started);
  const rpcError = isJsonRpcError(probe.body);
  if (rpcError)
    return failure(
      'rpc_error',
      `JSON-RPC error ${String(rpcError.code ?? '?')}: ${String(rpcError.message ?? '').slice(0, 200)}`,
      probe.status,
      started,
    );
  if (probe.status >= 400) return failure('http_error', `HTTP ${probe.status}.`, probe.status, started);
  if (!parsesAsJson(probe.body)) return failure('invalid_answer', 'The answer is not JSON.', probe.status, started);
  return failure(
    'invalid_answer',
    `The answer is not a valid A2A response: ${error instanceof Error ? error.message.slice(0, 200) : 'unreadable'}.`,
    probe.status,
    started,
  );
}

/** The text of a part list (the reply) and the merged data parts (the output). */
function collectParts(parts: AnswerPart[], into: { texts: string[]; output: Record<string, unknown> }) {
  for (const part of parts) {
    if ('text' in part) into.texts.push(part.text);
    else Object.assign(into.output, part.data);
  }
}

/** An answer nested deeper than the platform stores (D1 refuses JSON past 1,000 levels): refused before any write. */
const nestsTooDeeply = (probe: Probe) => jsonNestsDeeperThan(probe.body ?? '', MAX_ANSWER_JSON_DEPTH);
const tooDeep = (probe: Probe, started: number) =>
  failure('invalid_answer', `The answer nests deeper than ${MAX_ANSWER_JSON_DEPTH} levels.`, probe.status, started);

/** The answer of an A2A call: a message, or a completed task; any other state is a failure. */
function answerOfA2A(result: A2aAnswer, probe: Probe, started: number): AgentAnswer {
  if (nestsTooDeeply(probe)) return tooDeep(probe, started);
  if (result.kind === 'task' && result.state === 'rejected')
    return failure('declined', 'The agent declined the task.', probe.status, started);
  if (result.kind === 'task' && result.state !== 'completed')
    return failure(
      'not_completed',
      `The task is ${result.state}, not completed (execution is sync only).`,
      probe.status,
      started,
    );
  const collected = { texts: [] as string[], output: {} as Record<string, unknown> };
  collectParts(result.parts, collected);
  const reply = collected.texts.join('\n\n').trim();
  if (!reply && Object.keys(collected.output).length === 0)
    return failure('invalid_answer', 'The answer has neither text nor data.', probe.status, started);
  return {
    ok: true,
    reply: reply ? reply.slice(0, REPLY_LIMIT_CHARS) : null,
    output: collected.output,
    usage: [],
    httpStatus: probe.status,
    durationMs: clock.now() - started,
  };
}

async function callAgent(
  target: CallTarget,
  call: AgentCall,
  egress: EgressPolicy,
  started: number,
): Promise<AgentAnswer> {
  const stored = target.card;
  if (!stored) return failure('invalid_answer', 'The agent has no validated card.', null, started);
  const probe: Probe = { status: null };
  const fetchImpl = signedFetch(target, egress, started + target.timeoutMs, probe);
  try {
    return await withinTimeout(target.timeoutMs, async () => {
      // Only the interface that was validated and shown is called, whatever else the card lists.
      const { text, ...context } = call;
      const result = await sendA2aMessage(
        calledInterface(stored.summary),
        { messageId: newId('msg'), ...(text !== undefined ? { text } : {}), data: context },
        fetchImpl,
      );
      return answerOfA2A(result, probe, started);
    });
  } catch (error) {
    return classifyError(error, probe, started);
  }
}

async function callRobot(
  target: CallTarget,
  call: AgentCall,
  egress: EgressPolicy,
  started: number,
): Promise<AgentAnswer> {
  if (!target.endpointUrl) return failure('invalid_answer', 'The robot has no endpoint.', null, started);
  const probe: Probe = { status: null };
  const fetchImpl = signedFetch(target, egress, started + target.timeoutMs, probe);
  try {
    return await withinTimeout(target.timeoutMs, async () => {
      const response = await fetchImpl(target.endpointUrl!, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify(call),
      });
      if (!response.ok) return failure('http_error', `HTTP ${response.status}.`, response.status, started);
      if (nestsTooDeeply(probe)) return tooDeep(probe, started);
      let json: unknown;
      try {
        json = JSON.parse(probe.body ?? '');
      } catch {
        return failure('invalid_answer', 'The answer is not JSON.', response.status, started);
      }
      const parsed = robotAnswerSchema.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        return failure(
          'invalid_answer',
          `The answer does not match {output, reply?, usage?}: ${issue.path.join('.') || 'body'}: ` +
            `${issue.message}`.slice(0, 300),
          response.status,
          started,
        );
      }
      const usage: ReportedUsage[] = parsed.data.usage ?? [];
      const reply = parsed.data.reply?.trim();
      return {
        ok: true,
        reply: reply ? reply : null,
        output: parsed.data.output,
        usage,
        httpStatus: response.status,
        durationMs: clock.now() - started,
      } as const;
    });
  } catch (error) {
    return classifyError(error, probe, started);
  }
}

/** Calls one agent or robot, and returns its validated answer or why there is none. */
export function callProvider(target: CallTarget, call: AgentCall, egress: EgressPolicy): Promise<AgentAnswer> {
  const started = clock.now();
  return target.kind === 'agent' ? callAgent(target, call, egress, started) : callRobot(target, call, egress, started);
}
