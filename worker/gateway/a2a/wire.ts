/**
 * A2A on the wire (docs/design/callers.md), in both versions the gateway speaks: 1.0 (proto JSON:
 * `{text}` parts, `ROLE_USER`, `TASK_STATE_COMPLETED`, answers wrapped as `{task}`) and 0.3
 * (`{kind: "text", text}` parts, `user`, `completed`, answers bare). Requests are read into one
 * form here, and validated whole before anything runs; answers are written in the caller's.
 */
import type { StoredTaskMessage, TaskRow } from '../../platform/tasks';

export type A2aVersion = '1.0' | '0.3';

/** JSON-RPC's and A2A's error codes. */
export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** An execution refused by the platform (its problem in `data`). */
  refused: -32000,
  taskNotFound: -32001,
  taskNotCancelable: -32002,
  pushNotSupported: -32003,
  unsupportedOperation: -32004,
  contentTypeNotSupported: -32005,
  extendedCardNotConfigured: -32007,
  versionNotSupported: -32009,
} as const;

/** A refusal of a request, before anything ran. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** A JSON-RPC request, checked: version 2.0, a method, an id of the allowed types, params an object. */
export interface RpcRequest {
  id: string | number | null;
  method: string;
  params: Record<string, unknown>;
}

/** Reads a JSON-RPC request, or refuses it (-32600), keeping its id when it has a usable one. */
export function readRpcRequest(body: unknown): RpcRequest {
  if (Array.isArray(body)) throw new RpcError(RPC.invalidRequest, 'Batches are not accepted: send one request.');
  if (!body || typeof body !== 'object') throw new RpcError(RPC.invalidRequest, 'A JSON-RPC request is an object.');
  const { jsonrpc, method, params, id } = body as Record<string, unknown>;
  if (jsonrpc !== '2.0') throw new RpcError(RPC.invalidRequest, '"jsonrpc" must be "2.0".');
  if (typeof method !== 'string' || !method) throw new RpcError(RPC.invalidRequest, '"method" must be a string.');
  if (id !== undefined && id !== null && typeof id !== 'string' && typeof id !== 'number')
    throw new RpcError(RPC.invalidRequest, '"id" must be a string, a number or null.');
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params)))
    throw new RpcError(RPC.invalidParams, '"params" must be an object.');
  return { id: (id ?? null) as RpcRequest['id'], method, params: (params ?? {}) as Record<string, unknown> };
}

/** The id of a request body, if it has a usable one (for the error that refuses it). */
export function idOf(body: unknown): string | number | null {
  const id = body && typeof body === 'object' && !Array.isArray(body) ? (body as { id?: unknown }).id : null;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

const invalid = (detail: string) => new RpcError(RPC.invalidParams, `Invalid params: ${detail}`);

/** A part of an incoming message, in 1.0's form. */
export type InPart =
  | { text: string }
  | { data: Record<string, unknown> }
  | { url: string; filename?: string; mediaType?: string }
  | { raw: string; filename?: string; mediaType?: string };

/** An incoming user message, read from either version and checked. */
export interface InMessage {
  messageId: string;
  contextId?: string;
  taskId?: string;
  parts: InPart[];
}

/** A 0.3 part as 1.0's (`{kind: "file", file: {uri | bytes, name, mimeType}}` becomes `{url | raw, …}`). */
function partOf(part: unknown, index: number): InPart {
  if (!part || typeof part !== 'object' || Array.isArray(part)) throw invalid(`parts[${index}] must be an object.`);
  const value = part as Record<string, unknown>;
  const named = (extra: Record<string, unknown>) => ({
    ...(typeof extra.filename === 'string' ? { filename: extra.filename } : {}),
    ...(typeof extra.mediaType === 'string' ? { mediaType: extra.mediaType } : {}),
  });
  if (value.kind === 'file' && value.file && typeof value.file === 'object') {
    const file = value.file as Record<string, unknown>;
    const meta = named({ filename: file.name, mediaType: file.mimeType });
    if (typeof file.uri === 'string') return { url: file.uri, ...meta };
    if (typeof file.bytes === 'string') return { raw: file.bytes, ...meta };
    throw invalid(`parts[${index}].file needs a uri or bytes.`);
  }
  if (typeof value.text === 'string') return { text: value.text };
  if ('data' in value) {
    if (!value.data || typeof value.data !== 'object' || Array.isArray(value.data))
      throw invalid(`parts[${index}].data must be an object.`);
    return { data: value.data as Record<string, unknown> };
  }
  if (typeof value.url === 'string') return { url: value.url, ...named(value) };
  if (typeof value.raw === 'string') {
    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(value.raw)) throw invalid(`parts[${index}].raw must be base64.`);
    return { raw: value.raw, ...named(value) };
  }
  throw invalid(`parts[${index}] must have text, data, url or raw.`);
}

/** The message of a SendMessage or message/send, checked whole: nothing runs on a refusal. */
export function readMessage(params: Record<string, unknown>): InMessage {
  const message = params.message;
  if (!message || typeof message !== 'object' || Array.isArray(message)) throw invalid('"message" is required.');
  const value = message as Record<string, unknown>;
  if (typeof value.messageId !== 'string' || !value.messageId.trim()) throw invalid('"message.messageId" is required.');
  if (value.messageId.length > 200) throw invalid('"message.messageId" is at most 200 characters.');
  if (value.role !== 'ROLE_USER' && value.role !== 'user' && value.role !== 1)
    throw invalid('"message.role" must be the user\'s (ROLE_USER).');
  if (!Array.isArray(value.parts) || value.parts.length === 0) throw invalid('"message.parts" must not be empty.');
  if (value.parts.length > 20) throw invalid('"message.parts" holds at most 20 parts.');
  const optionalId = (name: 'contextId' | 'taskId') => {
    const id = value[name];
    if (id === undefined || id === null || id === '') return undefined;
    if (typeof id !== 'string' || id.length > 200) throw invalid(`"message.${name}" must be a string.`);
    return id;
  };
  const contextId = optionalId('contextId');
  const taskId = optionalId('taskId');
  return {
    messageId: value.messageId,
    ...(contextId ? { contextId } : {}),
    ...(taskId ? { taskId } : {}),
    parts: value.parts.map(partOf),
  };
}

/** What a SendMessage's configuration asks, checked. */
export interface SendConfiguration {
  historyLength?: number;
  /** The media types the client takes in the answer's parts; absent, all. */
  acceptedOutputModes?: string[];
}

/** The media types the gateway answers with: the reply as text, the envelope as JSON. */
export const OUTPUT_MODES = ['text/plain', 'application/json'] as const;

/** Whether a client accepting `accepted` takes parts of `mediaType` (a `text/*` or any-type range matches too). */
export function accepts(accepted: string[] | undefined, mediaType: string): boolean {
  if (!accepted) return true;
  const [type] = mediaType.split('/');
  return accepted.some((mode) => {
    const wanted = mode.split(';')[0]!.trim().toLowerCase();
    return wanted === mediaType || wanted === `${type}/*` || wanted === '*/*';
  });
}

/**
 * The configuration of a SendMessage, checked: history length, the accepted output modes (one of
 * the gateway's must be among them, else -32005), push notifications (not supported, -32003).
 */
export function readConfiguration(params: Record<string, unknown>): SendConfiguration {
  const configuration = params.configuration;
  if (configuration === undefined || configuration === null) return {};
  if (typeof configuration !== 'object' || Array.isArray(configuration)) throw invalid('"configuration" is an object.');
  const value = configuration as Record<string, unknown>;
  if (value.taskPushNotificationConfig || value.pushNotificationConfig)
    throw new RpcError(RPC.pushNotSupported, 'Push notifications are not supported: read the task with GetTask.');
  const historyLength = readHistoryLength(value.historyLength);
  const modes = value.acceptedOutputModes;
  if (modes !== undefined && modes !== null) {
    if (!Array.isArray(modes) || modes.some((mode) => typeof mode !== 'string'))
      throw invalid('"configuration.acceptedOutputModes" is a list of media types.');
  }
  const acceptedOutputModes = Array.isArray(modes) && modes.length ? (modes as string[]) : undefined;
  if (acceptedOutputModes && !OUTPUT_MODES.some((mode) => accepts(acceptedOutputModes, mode)))
    throw new RpcError(
      RPC.contentTypeNotSupported,
      `Incompatible content types: the gateway answers in ${OUTPUT_MODES.join(' and ')}.`,
    );
  return {
    ...(historyLength === undefined ? {} : { historyLength }),
    ...(acceptedOutputModes ? { acceptedOutputModes } : {}),
  };
}

/** A history length: a whole number from 0; undefined when absent. */
export function readHistoryLength(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
    throw invalid('"historyLength" must be a whole number from 0.');
  return value;
}

/** 1.0 states by name, as 0.3 names them. */
const STATE_03: Record<string, string> = {
  TASK_STATE_SUBMITTED: 'submitted',
  TASK_STATE_WORKING: 'working',
  TASK_STATE_COMPLETED: 'completed',
  TASK_STATE_FAILED: 'failed',
  TASK_STATE_CANCELED: 'canceled',
  TASK_STATE_INPUT_REQUIRED: 'input-required',
  TASK_STATE_REJECTED: 'rejected',
  TASK_STATE_AUTH_REQUIRED: 'auth-required',
};

/** A 1.0 part in 0.3's form. */
function part03(part: Record<string, unknown>): Record<string, unknown> {
  const meta = { ...(part.metadata ? { metadata: part.metadata } : {}) };
  if (typeof part.text === 'string') return { kind: 'text', text: part.text, ...meta };
  if ('data' in part) return { kind: 'data', data: part.data, ...meta };
  const file = {
    ...(typeof part.url === 'string' ? { uri: part.url } : { bytes: part.raw }),
    ...(part.filename ? { name: part.filename } : {}),
    ...(part.mediaType ? { mimeType: part.mediaType } : {}),
  };
  return { kind: 'file', file, ...meta };
}

/** A stored (1.0) message in the caller's version. */
export function messageFor(message: StoredTaskMessage | Record<string, unknown>, version: A2aVersion) {
  const value = message as StoredTaskMessage;
  if (version === '1.0') return value;
  return {
    kind: 'message',
    messageId: value.messageId,
    contextId: value.contextId,
    taskId: value.taskId,
    role: value.role === 'ROLE_AGENT' ? 'agent' : 'user',
    parts: value.parts.map(part03),
  };
}

/** A task in the caller's version, with at most `historyLength` messages and, unless left out, its artifacts. */
export function taskFor(
  row: Pick<TaskRow, 'id' | 'contextId' | 'state' | 'history' | 'artifacts' | 'updatedAt'>,
  version: A2aVersion,
  options: { historyLength?: number; artifacts?: boolean; acceptedOutputModes?: string[] } = {},
): Record<string, unknown> {
  const history = row.history as StoredTaskMessage[];
  const kept =
    options.historyLength === undefined
      ? history
      : options.historyLength === 0
        ? []
        : history.slice(-options.historyLength);
  const state = row.state;
  const last = history.at(-1);
  const status = {
    state: version === '1.0' ? state : (STATE_03[state] ?? 'unknown'),
    ...(last?.role === 'ROLE_AGENT' ? { message: messageFor(last, version) } : {}),
    timestamp: new Date(row.updatedAt).toISOString(),
  };
  // A client that takes only text, or only JSON, gets the artifact's parts of that kind.
  const artifacts = (
    row.artifacts as Array<{ artifactId: string; name: string; parts: Record<string, unknown>[] }>
  ).map((artifact) => {
    const parts = artifact.parts.filter((part) => accepts(options.acceptedOutputModes, String(part.mediaType)));
    return { ...artifact, parts: version === '1.0' ? parts : parts.map(part03) };
  });
  return {
    ...(version === '0.3' ? { kind: 'task' } : {}),
    id: row.id,
    contextId: row.contextId,
    status,
    ...(options.artifacts === false ? {} : { artifacts }),
    history: kept.map((message) => messageFor(message, version)),
  };
}
