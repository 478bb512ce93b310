/** Fixtures for the webhook tests: a stubbed receiver of its own, an endpoint, the cron, and waiting. */
import { schema } from '../../worker/lib/db';
import { enterWhereFound } from '../../worker/platform/shards';
import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from 'cloudflare:test';
import { expect, vi } from 'vitest';
import worker from '../../worker/index';
import { clock, moveClockForTests } from '../../worker/lib/clock';
import { buildServices } from '../../worker/lib/services';
import { connectionsTo, remotes } from './agent-helpers';
import { ADMIN_TOKEN, call, json } from './helpers';
import { platformDb } from './platform-db';

let counter = 0;
/** A receiver of its own (a stubbed host), and what it was sent. */
export function receiver(
  answer: (attempt: number, request: Request) => Response | Promise<Response> = () =>
    new Response(null, { status: 204 }),
) {
  counter += 1;
  const url = `https://hooks-${counter}-${clock.now().toString(36)}.example.com/in`;
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

/** Lets `minutesLater` pass (the test clock), then runs the cron handler as the platform would. */
export async function cron(schedule: string, minutesLater = 0) {
  moveClockForTests(minutesLater * 60_000);
  const controller = createScheduledController({ scheduledTime: clock.now(), cron: schedule });
  const context = createExecutionContext();
  await worker.scheduled!(controller, env, context);
  await waitOnExecutionContext(context);
}

/**
 * What an endpoint's outbox runs with (its Durable Object's: in the endpoint's organisation), to
 * run it directly and see what it did.
 */
export const deliveryEnvironment = async (endpointId: string) => {
  const services = buildServices(env, { kind: 'object' });
  const { webhookEndpoints } = schema;
  await enterWhereFound(services.db, webhookEndpoints, webhookEndpoints.id, webhookEndpoints.workspaceId, endpointId);
  return { db: services.db, egress: services.egress, secretsKey: services.secretsKey, retryBaseSeconds: 1 };
};

/** Lets time pass until the endpoint's next pending delivery falls due (the test clock). */
export async function untilNextDue(endpointId: string): Promise<void> {
  const next = await platformDb
    .prepare("SELECT MIN(next_attempt_at) AS at FROM webhook_deliveries WHERE endpoint_id = ? AND status = 'pending'")
    .bind(endpointId)
    .first<{ at: number | null }>();
  expect(next?.at, 'a pending delivery').not.toBeNull();
  moveClockForTests(Math.max(0, next!.at! - clock.now()));
}
