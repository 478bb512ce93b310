/** Fixtures for the webhook tests: a stubbed receiver of its own, an endpoint, the cron, and waiting. */
import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from 'cloudflare:test';
import { expect, vi } from 'vitest';
import worker from '../../worker/index';
import { connectionsTo, remotes } from './agent-helpers';
import { ADMIN_TOKEN, call, json } from './helpers';

let counter = 0;
/** A receiver of its own (a stubbed host), and what it was sent. */
export function receiver(
  answer: (attempt: number, request: Request) => Response | Promise<Response> = () =>
    new Response(null, { status: 204 }),
) {
  counter += 1;
  const url = `https://hooks-${counter}-${Date.now().toString(36)}.example.com/in`;
  let attempts = 0;
  remotes.set(url, (request) => answer(++attempts, request));
  return { url, sent: () => connectionsTo(url) };
}

/** An endpoint of a workspace, made through the admin API: its id and signing secret. */
export async function endpoint(
  workspaceId: string,
  url: string,
  eventTypes: string[],
): Promise<{ webhook_id: string; secret: string }> {
  const response = await call('/api/admin/webhooks', {
    token: ADMIN_TOKEN,
    body: { workspace_id: workspaceId, url, event_types: eventTypes },
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return json(response);
}

export const headersOf = (connection: { headers: Headers }) => Object.fromEntries(connection.headers);

export const waitFor = (condition: () => boolean | Promise<boolean>, timeout = 15_000) =>
  vi.waitUntil(condition, { timeout, interval: 50 });

/** Runs the cron handler as the platform would, `minutesLater` from now. */
export async function cron(schedule: string, minutesLater = 0) {
  const controller = createScheduledController({ scheduledTime: Date.now() + minutesLater * 60_000, cron: schedule });
  const context = createExecutionContext();
  await worker.scheduled!(controller, env, context);
  await waitOnExecutionContext(context);
}
