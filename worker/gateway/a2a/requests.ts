/**
 * What an A2A client may send (docs/design/callers.md), as zod schemas: the JSON-RPC envelope,
 * then one schema of params per method, shared by 1.0 and 0.3 where the wire agrees (a message's
 * parts are read from either form into 1.0's). A request is checked whole before anything runs;
 * a refusal names the first field that failed.
 */
import { z } from 'zod';
import { RPC, RpcError } from './wire';

const rpcId = z.union([z.string(), z.number(), z.null()]);

/** A JSON-RPC 2.0 request (a single one: batches are refused before it is read). */
const rpcRequestSchema = z.object({
  jsonrpc: z.literal('2.0', { error: '"jsonrpc" must be "2.0".' }),
  method: z.string({ error: '"method" must be a string.' }).min(1, '"method" must be a string.'),
  id: rpcId.optional(),
  params: z.record(z.string(), z.unknown(), { error: '"params" must be an object.' }).optional(),
});

/** A JSON-RPC request, checked: version 2.0, a method, an id of the allowed types, params an object. */
export interface RpcRequest {
  id: string | number | null;
  method: string;
  params: Record<string, unknown>;
}

/** The first issue of a failed parse, as a sentence naming its field. */
function firstIssue(error: z.ZodError): { path: PropertyKey[]; text: string } {
  const issue = error.issues[0]!;
  const path = issue.path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`)).join('');
  const field = path.replace(/^\./, '');
  return { path: issue.path, text: field ? `"${field}": ${issue.message}` : issue.message };
}

/** Reads a JSON-RPC request, or refuses it (-32600; -32602 for its params), keeping its id when usable. */
export function readRpcRequest(body: unknown): RpcRequest {
  if (Array.isArray(body)) throw new RpcError(RPC.invalidRequest, 'Batches are not accepted: send one request.');
  const parsed = rpcRequestSchema.safeParse(body);
  if (!parsed.success) {
    const { path, text } = firstIssue(parsed.error);
    const code = path[0] === 'params' ? RPC.invalidParams : RPC.invalidRequest;
    throw new RpcError(code, path.length === 0 ? 'A JSON-RPC request is an object.' : text);
  }
  const { id, method, params } = parsed.data;
  return { id: id ?? null, method, params: params ?? {} };
}

/** The id of a request body, if it has a usable one (for the error that refuses it). */
export function idOf(body: unknown): string | number | null {
  const parsed = z.object({ id: z.union([z.string(), z.number()]) }).safeParse(body);
  return parsed.success ? parsed.data.id : null;
}

// A file's name and media type: kept when they are strings, ignored otherwise.
const optionalText = z.string().optional().catch(undefined);
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** A part of a message, from either version, in 1.0's form (0.3's `{kind: "file", file}` becomes `{url | raw}`). */
const partSchema = z.union(
  [
    z
      .object({
        kind: z.literal('file'),
        file: z
          .object({
            uri: z.string().optional(),
            bytes: z.string().optional(),
            name: optionalText,
            mimeType: optionalText,
          })
          .refine((file) => file.uri !== undefined || file.bytes !== undefined, 'A file needs a uri or bytes.'),
      })
      .transform(({ file }) => ({
        ...(file.uri !== undefined ? { url: file.uri } : { raw: file.bytes! }),
        ...(file.name !== undefined ? { filename: file.name } : {}),
        ...(file.mimeType !== undefined ? { mediaType: file.mimeType } : {}),
      })),
    z.object({ text: z.string() }).transform(({ text }) => ({ text })),
    z.object({ data: z.record(z.string(), z.unknown()) }).transform(({ data }) => ({ data })),
    z
      .object({ url: z.string(), filename: optionalText, mediaType: optionalText })
      .transform(({ url, filename, mediaType }) => ({ url, ...named(filename, mediaType) })),
    z
      .object({ raw: z.string().regex(BASE64, 'raw must be base64.'), filename: optionalText, mediaType: optionalText })
      .transform(({ raw, filename, mediaType }) => ({ raw, ...named(filename, mediaType) })),
  ],
  { error: 'A part has text, data, url or raw.' },
);

function named(filename: string | undefined, mediaType: string | undefined) {
  return { ...(filename !== undefined ? { filename } : {}), ...(mediaType !== undefined ? { mediaType } : {}) };
}

/** A part of an incoming message, in 1.0's form. */
export type InPart = z.output<typeof partSchema>;

/** An optional id: absent, null or empty is none. */
const optionalId = z
  .union([z.string().max(200), z.null()])
  .optional()
  .transform((id) => id || undefined);

/** The user's message of a SendMessage or message/send (1.0's `ROLE_USER`, 0.3's `user`, proto's 1). */
const messageSchema = z.object({
  messageId: z
    .string({ error: 'is required.' })
    .refine((id) => id.trim() !== '', 'is required.')
    .refine((id) => id.length <= 200, 'is at most 200 characters.'),
  role: z.union([z.literal('ROLE_USER'), z.literal('user'), z.literal(1)], {
    error: "must be the user's (ROLE_USER).",
  }),
  parts: z.array(partSchema, { error: 'must not be empty.' }).min(1, 'must not be empty.').max(20, 'holds at most 20.'),
  contextId: optionalId,
  taskId: optionalId,
});

/** An incoming user message, read from either version and checked. */
export type InMessage = z.output<typeof messageSchema>;

/** A history length: a whole number from 0. */
const historyLength = z
  .number({ error: 'must be a whole number from 0.' })
  .int('must be a whole number from 0.')
  .min(0, 'must be a whole number from 0.')
  .nullable()
  .optional()
  .transform((length) => length ?? undefined);

const configurationSchema = z
  .object({
    historyLength,
    acceptedOutputModes: z.array(z.string(), { error: 'is a list of media types.' }).nullable().optional(),
    taskPushNotificationConfig: z.unknown().optional(),
    pushNotificationConfig: z.unknown().optional(),
  })
  .nullable()
  .optional();

const taskId = z.string({ error: 'is required.' }).min(1, 'is required.');

const TASK_STATES = [
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
] as const;

// An RFC 3339 time only: Date.parse alone takes "-1" as a year.
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

/** The params of each method that takes any, by what it does. */
export const PARAMS = {
  send: z.object({ message: messageSchema, configuration: configurationSchema }),
  get: z.object({ id: taskId, historyLength }),
  cancel: z.object({ id: taskId }),
  subscribe: z.object({ id: taskId }),
  list: z.object({
    pageSize: z
      .number({ error: 'is a whole number from 1 to 100.' })
      .int('is a whole number from 1 to 100.')
      .min(1, 'is a whole number from 1 to 100.')
      .max(100, 'is a whole number from 1 to 100.')
      .default(50),
    historyLength,
    contextId: z.string({ error: 'is a string.' }).optional(),
    status: z
      .enum([...TASK_STATES, 'TASK_STATE_UNSPECIFIED'], { error: 'is a task state, such as TASK_STATE_COMPLETED.' })
      .optional(),
    statusTimestampAfter: z
      .string({ error: 'is an ISO 8601 time.' })
      .regex(RFC3339, 'is an ISO 8601 time.')
      .transform((text) => Date.parse(text))
      .refine((time) => !Number.isNaN(time), 'is an ISO 8601 time.')
      .optional(),
    pageToken: z
      .string({ error: 'is the nextPageToken of a previous page.' })
      .regex(/^(\d+\..+)?$/, 'is the nextPageToken of a previous page.')
      .transform((token) => {
        const dot = token.indexOf('.');
        return token ? { updatedAt: Number(token.slice(0, dot)), id: token.slice(dot + 1) } : undefined;
      })
      .optional(),
    includeArtifacts: z.boolean({ error: 'is true or false.' }).optional(),
  }),
} as const;

/** The params of a method, checked. */
export type ParamsOf<M extends keyof typeof PARAMS> = z.output<(typeof PARAMS)[M]>;

/** Reads a method's params, or refuses them (-32602) naming the first field that failed. */
export function readParams<M extends keyof typeof PARAMS>(method: M, params: Record<string, unknown>): ParamsOf<M> {
  const parsed = PARAMS[method].safeParse(params);
  if (parsed.success) return parsed.data as ParamsOf<M>;
  throw new RpcError(RPC.invalidParams, `Invalid params: ${firstIssue(parsed.error).text}`);
}
