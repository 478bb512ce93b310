/**
 * The gateway as an A2A agent (docs/design/callers.md): its card, public at
 * /.well-known/agent-card.json, and POST /a2a, JSON-RPC in A2A 1.0 (`A2A-Version: 1.0`) or 0.3
 * (no header), with the same API keys as /api/execute.
 *
 * A message runs one execution; its answer is a completed task (rpc.ts). A streaming message runs
 * the same execution and sends the task's life as server-sent events: the task working, its
 * artifact, and its completion. Every refusal is a JSON-RPC error, and nothing runs on one.
 */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { newApp } from '../../lib/app';
import { type AppEnv, resolvePlatformUrls } from '../../env';
import { bodyJson, readJsonBody } from '../../lib/body';
import { listDomainEntries } from '../../platform/domains';
import { requireActor, requireBearer } from '../../platform/identity';
import { postOnly, requireExecuteScope, withExecutionHeaders } from '../callers';
import { gatewayAgentCard } from './card';
import { type RpcRequest, idOf, readParams, readRpcRequest } from './requests';
import { actionOf, cancelTask, getTask, listTaskPage, sendMessage } from './rpc';
import { type A2aVersion, RPC, RpcError } from './wire';

/** The version a request asks for: its A2A-Version header, 0.3 when it has none (as the spec says). */
function versionOf(header: string | undefined): A2aVersion {
  const asked = (header ?? '0.3').trim();
  if (/^1(\.0)?(\.\d+)?$/.test(asked)) return '1.0';
  if (/^0\.3(\.\d+)?$/.test(asked)) return '0.3';
  throw new RpcError(RPC.versionNotSupported, `A2A version ${asked} is not supported: send A2A-Version 1.0 or 0.3.`);
}

/** A JSON-RPC error answer. A2A answers errors with HTTP 200, the error in the body. */
function errorAnswer(id: RpcRequest['id'], error: RpcError): Response {
  const data = error.data === undefined ? {} : { data: error.data };
  return Response.json({ jsonrpc: '2.0', id, error: { code: error.code, message: error.message, ...data } });
}

/** The caller's tasks: an API key's workspace's; the operator (an administrator) reads every workspace's. */
function workspaceOf(c: Context<AppEnv>): string | null {
  const actor = requireActor(c);
  return actor.kind === 'api_key' ? actor.key.workspaceId : null;
}

/**
 * A streaming method's answer: always server-sent events, its refusal too (as one error event), so
 * a streaming client reads every answer the same way. A comment goes out first, so a proxy sees the
 * stream open while an expert is still answering.
 */
function eventStream(
  c: Context<AppEnv>,
  id: RpcRequest['id'],
  produce: (send: (result: unknown) => Promise<void>) => Promise<void>,
) {
  return streamSSE(c, async (stream) => {
    const event = (body: Record<string, unknown>) =>
      stream.writeSSE({ data: JSON.stringify({ jsonrpc: '2.0', id, ...body }) });
    await stream.write(': running\n\n');
    try {
      await produce((result) => event({ result }));
    } catch (error) {
      if (!(error instanceof RpcError)) throw error;
      const data = error.data === undefined ? {} : { data: error.data };
      await event({ error: { code: error.code, message: error.message, ...data } });
    }
  });
}

/**
 * A streamed message: the execution runs, then its task is sent as it went, working, its answer
 * as an artifact, then completed (the last event, `final` in 0.3).
 */
function streamAnswer(c: Context<AppEnv>, request: RpcRequest, version: A2aVersion, workspaceId: string | null) {
  return eventStream(c, request.id, async (send) => {
    const { task } = await sendMessage(c, readParams('send', request.params), version, workspaceId);
    const { status, artifacts = [], history, ...rest } = task;
    const working = { state: version === '1.0' ? 'TASK_STATE_WORKING' : 'working', timestamp: status.timestamp };
    const asked = history.slice(0, -1);
    const base = { taskId: rest.id, contextId: rest.contextId };
    if (version === '1.0') {
      await send({ task: { ...rest, status: working, history: asked } });
      for (const artifact of artifacts) await send({ artifactUpdate: { ...base, artifact, lastChunk: true } });
      await send({ statusUpdate: { ...base, status } });
    } else {
      await send({ ...rest, status: working, history: asked });
      for (const artifact of artifacts)
        await send({ kind: 'artifact-update', ...base, artifact, lastChunk: true, append: false });
      await send({ kind: 'status-update', ...base, status, final: true });
    }
  });
}

/** Handles one JSON-RPC request to /a2a. */
async function handleA2a(c: Context<AppEnv>): Promise<Response> {
  const read = await bodyJson(c);
  if (!read.ok) return errorAnswer(null, new RpcError(RPC.parseError, `Parse error: ${read.error.message}`));
  const body = read.value;
  let id = idOf(body);
  try {
    const request = readRpcRequest(body);
    id = request.id;
    const version = versionOf(c.req.header('A2A-Version'));
    const action = actionOf(request, version);
    const workspaceId = workspaceOf(c);
    const answer = (result: unknown) => Response.json({ jsonrpc: '2.0', id: request.id, result });
    switch (action) {
      case 'send': {
        const { task } = await sendMessage(c, readParams('send', request.params), version, workspaceId);
        return answer(version === '1.0' ? { task } : task);
      }
      case 'stream':
        return streamAnswer(c, request, version, workspaceId);
      case 'get':
        return answer(await getTask(c, readParams('get', request.params), version, workspaceId));
      case 'list':
        return answer(await listTaskPage(c, readParams('list', request.params), workspaceId));
      case 'cancel':
        return answer(await cancelTask(c, readParams('cancel', request.params), workspaceId));
      case 'subscribe':
        // Every task is complete when its answer is sent, so there is nothing left to follow.
        return eventStream(c, request.id, async () => {
          const { id: taskId } = readParams('subscribe', request.params);
          await getTask(c, { id: taskId, historyLength: undefined }, version, workspaceId);
          throw new RpcError(RPC.unsupportedOperation, 'The task is completed: there are no more events to follow.');
        });
      case 'push':
        throw new RpcError(RPC.pushNotSupported, 'Push notifications are not supported: read the task with GetTask.');
      case 'extendedCard':
        throw new RpcError(RPC.extendedCardNotConfigured, 'This agent has no extended card: its public card is whole.');
    }
  } catch (error) {
    if (error instanceof RpcError) return errorAnswer(id, error);
    throw error;
  }
}

/** The A2A routes. */
export function a2aRoutes() {
  const app = newApp('problem');
  const card = async (c: Context<AppEnv>) => {
    const { baseUrl } = resolvePlatformUrls(c.var.settings, c.req.url);
    const body = gatewayAgentCard(baseUrl, await listDomainEntries(c.var.db));
    return c.json(body, 200, { 'Cache-Control': 'public, max-age=300', 'Access-Control-Allow-Origin': '*' });
  };
  app.get('/.well-known/agent-card.json', card);
  // Also beside the endpoint: clients given the endpoint's URL as the agent's look for the card there.
  app.get('/a2a/.well-known/agent-card.json', card);
  app.post('/a2a', readJsonBody(), requireBearer('admin_or_api_key'), requireExecuteScope, async (c) =>
    withExecutionHeaders(c, await handleA2a(c)),
  );
  app.on(['GET', 'DELETE'], '/a2a', postOnly);
  return app;
}
