/**
 * POST /a2a (docs/design/callers.md): the gateway as an A2A agent, JSON-RPC in 1.0 (`A2A-Version:
 * 1.0`) or 0.3 (no header). A request is checked whole before anything runs (the JSON, the
 * envelope, the method, the message, a named task); then a message runs one execution, whose
 * answer is a completed task, kept in the execution's own batch so GetTask and ListTasks read it
 * back. The message's id is its idempotency key unless it names one: a retry of the same message
 * replays the first answer.
 */
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../env';
import type { ProblemBody } from '../../lib/errors';
import { type StoredTaskMessage, findTask, listTasks, taskWrite } from '../../platform/tasks';
import { type AssistantRequest, executeForAssistant } from '../callers';
import type { InMessage, InPart, ParamsOf, RpcRequest } from './requests';
import { type A2aVersion, RPC, RpcError, sendConfiguration, type TaskView, taskFor } from './wire';

/** Methods by version: each maps to what it does. */
const METHODS: Record<A2aVersion, Record<string, Action>> = {
  '1.0': {
    SendMessage: 'send',
    SendStreamingMessage: 'stream',
    GetTask: 'get',
    ListTasks: 'list',
    CancelTask: 'cancel',
    SubscribeToTask: 'subscribe',
    CreateTaskPushNotificationConfig: 'push',
    GetTaskPushNotificationConfig: 'push',
    ListTaskPushNotificationConfigs: 'push',
    DeleteTaskPushNotificationConfig: 'push',
    GetExtendedAgentCard: 'extendedCard',
  },
  '0.3': {
    'message/send': 'send',
    'message/stream': 'stream',
    'tasks/get': 'get',
    'tasks/cancel': 'cancel',
    'tasks/resubscribe': 'subscribe',
    'tasks/pushNotificationConfig/set': 'push',
    'tasks/pushNotificationConfig/get': 'push',
    'tasks/pushNotificationConfig/list': 'push',
    'tasks/pushNotificationConfig/delete': 'push',
    'agent/getAuthenticatedExtendedCard': 'extendedCard',
  },
};

export type Action = 'send' | 'stream' | 'get' | 'list' | 'cancel' | 'subscribe' | 'push' | 'extendedCard';

/** What a request asks, once checked: its action and its version. */
export function actionOf(request: RpcRequest, version: A2aVersion): Action {
  // Own keys only: `constructor` or `__proto__` is a method name like any other, and none of ours.
  const lookup = (of: A2aVersion) =>
    Object.hasOwn(METHODS[of], request.method) ? METHODS[of][request.method] : undefined;
  const action = lookup(version);
  if (!action) {
    const other = version === '1.0' ? '0.3' : '1.0';
    const hint = lookup(other) ? ` (a ${other} method: send A2A-Version: ${other})` : '';
    throw new RpcError(RPC.methodNotFound, `Method not found: ${request.method}${hint}.`);
  }
  return action;
}

const REFUSED_AS_INVALID = new Set(['validation_failed', 'unknown_domain', 'idempotency_key_reused']);

/** A platform's refusal as a JSON-RPC error: the problem's code and detail, the problem itself in `data`. */
export function refusalOf(problem: ProblemBody, version: A2aVersion): RpcError {
  const code = REFUSED_AS_INVALID.has(problem.code) ? RPC.invalidParams : RPC.refused;
  // 1.0 carries details as google.rpc-style entries; 0.3 takes any value.
  const data =
    version === '0.3'
      ? problem
      : [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: problem.code.toUpperCase(),
            domain: 'edge-execution-gateway',
            metadata: { code: problem.code, detail: problem.detail, request_id: problem.request_id },
          },
        ];
  return new RpcError(code, `${problem.code}: ${problem.detail}`, data);
}

/** The fields a message's data part may carry for the execution (checked again by the execute request's schema). */
const dataFieldsSchema = z.object({
  domain: z.string().optional().catch(undefined),
  idempotency_key: z.string().optional().catch(undefined),
  structured_input: z.unknown().optional(),
  key_id: z.unknown().optional(),
});

const isData = (part: InPart): part is Extract<InPart, { data: unknown }> => 'data' in part;

/** What a message asks the gateway: its words, its data part's fields, its attachments. */
function requestOf(message: InMessage, contextId: string): AssistantRequest {
  const text = message.parts.flatMap((part) => ('text' in part ? [part.text] : [])).join('\n');
  const data = dataFieldsSchema.parse(message.parts.find(isData)?.data ?? {});
  const attachments = message.parts.flatMap((part, index) =>
    'url' in part || 'raw' in part
      ? [
          {
            attachment_id: `${message.messageId}-${index}`,
            kind: part.mediaType ?? 'file',
            ...('url' in part && /^https?:/.test(part.url) ? { url: part.url } : {}),
            metadata: { filename: part.filename ?? null, media_type: part.mediaType ?? null },
          },
        ]
      : [],
  );
  const words =
    text || (attachments.length ? `Files: ${attachments.map((a) => a.metadata.filename ?? a.kind).join(', ')}` : '');
  return {
    ...(data.domain !== undefined ? { domain: data.domain } : {}),
    session_id: contextId,
    ...(words ? { text: words } : {}),
    ...(data.structured_input !== undefined ? { structured_input: data.structured_input } : {}),
    // The message is the unit a client retries: its id keys the retry, unless the data names a key.
    idempotency_key: data.idempotency_key ?? `a2a:${message.messageId}`,
    ...(data.key_id !== undefined ? { key_id: data.key_id } : {}),
    ...(attachments.length ? { attachments } : {}),
  };
}

/** The user's message as the task's history keeps it (1.0's JSON). */
function storedMessage(message: InMessage, contextId: string, taskId: string): StoredTaskMessage {
  return { messageId: message.messageId, contextId, taskId, role: 'ROLE_USER', parts: message.parts };
}

/**
 * SendMessage (and its streaming twin): checks the message and any task it continues, then runs
 * one execution and answers its task. Nothing runs when the request is refused.
 */
export async function sendMessage(
  c: Context<AppEnv>,
  params: ParamsOf<'send'>,
  version: A2aVersion,
  workspaceId: string | null,
) {
  const { message } = params;
  const configuration = sendConfiguration(params.configuration);
  const continued = message.taskId ? await findTask(c.var.db, workspaceId, message.taskId) : undefined;
  if (message.taskId && !continued) throw new RpcError(RPC.taskNotFound, `Task not found: ${message.taskId}.`);
  if (continued && message.contextId && message.contextId !== continued.contextId)
    throw new RpcError(RPC.invalidParams, 'Invalid params: the message’s contextId is not its task’s.');
  // The context is the conversation: a message without one starts a new one (not part of its fingerprint).
  const contextId = continued?.contextId ?? message.contextId ?? crypto.randomUUID();
  const generated = !continued && !message.contextId;
  const outcome = await executeForAssistant(c, requestOf(message, contextId), 'a2a', {
    ...(generated ? { unsent: ['session_id'] } : {}),
    recordWith: (db, answer) => {
      const taskId = continued?.id ?? answer.executionId;
      return [
        taskWrite(db, {
          taskId,
          workspaceId: answer.workspaceId,
          contextId,
          executionId: answer.executionId,
          user: storedMessage(message, contextId, taskId),
          reply: answer.reply,
          envelopeJson: answer.envelopeJson,
          now: answer.now,
        }),
      ];
    },
  });
  if (!outcome.ok) throw refusalOf(outcome.problem, version);
  // A new task's id is its first execution's, so a replay finds the first answer's task by its envelope.
  const task = await findTask(c.var.db, workspaceId, continued?.id ?? outcome.envelope.output.execution_id);
  if (!task) throw new RpcError(RPC.internalError, 'The task of this answer is missing.');
  const shown = taskFor(task, version, configuration);
  const choice = outcome.domainChoice;
  return { task: choice ? { ...shown, metadata: { domain: choice.domain, domain_chosen_by: choice.by } } : shown };
}

/** GetTask / tasks/get. */
export async function getTask(
  c: Context<AppEnv>,
  { id, historyLength }: ParamsOf<'get'>,
  version: A2aVersion,
  workspaceId: string | null,
) {
  const task = await findTask(c.var.db, workspaceId, id);
  if (!task) throw new RpcError(RPC.taskNotFound, `Task not found: ${id}.`);
  return taskFor(task, version, historyLength === undefined ? {} : { historyLength });
}

/** CancelTask / tasks/cancel: every task here is complete when answered, so none can be canceled. */
export async function cancelTask(c: Context<AppEnv>, { id }: ParamsOf<'cancel'>, workspaceId: string | null) {
  const task = await findTask(c.var.db, workspaceId, id);
  if (!task) throw new RpcError(RPC.taskNotFound, `Task not found: ${id}.`);
  throw new RpcError(RPC.taskNotCancelable, `Task ${id} is completed: it cannot be canceled.`);
}

/** ListTasks (1.0): this workspace's tasks, newest change first, filtered and paged. */
export async function listTaskPage(c: Context<AppEnv>, params: ParamsOf<'list'>, workspaceId: string | null) {
  const { pageSize, historyLength, contextId, status, statusTimestampAfter, pageToken } = params;
  const { rows, total } = await listTasks(c.var.db, workspaceId, {
    ...(contextId ? { contextId } : {}),
    ...(status && status !== 'TASK_STATE_UNSPECIFIED' ? { state: status } : {}),
    ...(statusTimestampAfter !== undefined ? { updatedAfter: statusTimestampAfter } : {}),
    pageSize,
    ...(pageToken ? { after: pageToken } : {}),
  });
  // A page holds at most LIST_PAGE_CHARS of tasks (at least one): "the service may return fewer".
  const tasks: TaskView[] = [];
  let chars = 0;
  for (const row of rows) {
    const task = taskFor(row, '1.0', {
      ...(historyLength === undefined ? {} : { historyLength }),
      artifacts: params.includeArtifacts === true,
    });
    chars += JSON.stringify(task).length;
    if (tasks.length > 0 && chars > LIST_PAGE_CHARS) break;
    tasks.push(task);
  }
  const last = rows[tasks.length - 1];
  const more = tasks.length < rows.length || rows.length === pageSize;
  return {
    tasks,
    nextPageToken: more && last ? `${last.updatedAt}.${last.id}` : '',
    pageSize: tasks.length,
    totalSize: total,
  };
}

/** What one ListTasks page may carry, in characters of JSON. */
export const LIST_PAGE_CHARS = 1024 * 1024;
