/**
 * A2A on the wire (docs/design/callers.md), in both versions the gateway speaks: 1.0 (proto JSON:
 * `{text}` parts, `ROLE_USER`, `TASK_STATE_COMPLETED`, answers wrapped as `{task}`) and 0.3
 * (`{kind: "text", text}` parts, `user`, `completed`, answers bare). Requests are read into one
 * form by requests.ts; answers are written here, in the caller's.
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
 * What a SendMessage's configuration asks, once its shape is checked (requests.ts): push
 * notifications are not supported (-32003), and one of the gateway's output modes must be among
 * the accepted ones (-32005).
 */
export function sendConfiguration(
  configuration:
    | {
        historyLength?: number | undefined;
        acceptedOutputModes?: string[] | null | undefined;
        taskPushNotificationConfig?: unknown;
        pushNotificationConfig?: unknown;
      }
    | null
    | undefined,
): SendConfiguration {
  if (!configuration) return {};
  if (configuration.taskPushNotificationConfig || configuration.pushNotificationConfig)
    throw new RpcError(RPC.pushNotSupported, 'Push notifications are not supported: read the task with GetTask.');
  const modes = configuration.acceptedOutputModes;
  const acceptedOutputModes = modes?.length ? modes : undefined;
  if (acceptedOutputModes && !OUTPUT_MODES.some((mode) => accepts(acceptedOutputModes, mode)))
    throw new RpcError(
      RPC.contentTypeNotSupported,
      `Incompatible content types: the gateway answers in ${OUTPUT_MODES.join(' and ')}.`,
    );
  const { historyLength } = configuration;
  return {
    ...(historyLength === undefined ? {} : { historyLength }),
    ...(acceptedOutputModes ? { acceptedOutputModes } : {}),
  };
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
export function messageFor(value: StoredTaskMessage, version: A2aVersion) {
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

/** A task as the caller reads it, in its version. */
export interface TaskView {
  kind?: 'task';
  id: string;
  contextId: string;
  status: { state: string; message?: unknown; timestamp: string };
  artifacts?: Array<{ artifactId: string; name: string; parts: Record<string, unknown>[] }>;
  history: unknown[];
  metadata?: Record<string, unknown>;
}

/** A task in the caller's version, with at most `historyLength` messages and, unless left out, its artifacts. */
export function taskFor(
  row: Pick<TaskRow, 'id' | 'contextId' | 'state' | 'history' | 'artifacts' | 'updatedAt'>,
  version: A2aVersion,
  options: { historyLength?: number; artifacts?: boolean; acceptedOutputModes?: string[] } = {},
): TaskView {
  const history = row.history;
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
  const artifacts = row.artifacts.map((artifact) => {
    const parts = artifact.parts.filter((part) => accepts(options.acceptedOutputModes, String(part.mediaType)));
    return { ...artifact, parts: version === '1.0' ? parts : parts.map(part03) };
  });
  return {
    ...(version === '0.3' ? { kind: 'task' as const } : {}),
    id: row.id,
    contextId: row.contextId,
    status,
    ...(options.artifacts === false ? {} : { artifacts }),
    history: kept.map((message) => messageFor(message, version)),
  };
}
