/** Moving the test Worker's clock from a Node test (the route of test/worker-entry.ts). */
import { expect } from 'vitest';

/** Lets `ms` pass on the Worker's clock at once, instead of waiting for them. */
export async function advanceWorkerClock(workerUrl: string, ms: number): Promise<void> {
  const response = await fetch(`${workerUrl}/__test/clock?advance_ms=${ms}`, { method: 'POST' });
  expect(response.status, await response.clone().text()).toBe(200);
}
