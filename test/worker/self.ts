/**
 * The Worker's own fetch, called in the test's isolate as `SELF.fetch` would be. The pool's
 * `SELF.fetch` grows slower with every request a test file makes (cloudflare/workers-sdk#15446:
 * ~2 ms at first, ~50 ms after 500), which made the long files quadratic; this stays flat. As with
 * `SELF`, `waitUntil` work goes on after the response, and redirects are followed unless
 * `redirect: 'manual'`.
 */
import { createExecutionContext, env } from 'cloudflare:test';
import worker from '../../worker/index';

const FOLLOWED = new Set([301, 302, 303, 307, 308]);

/** `SELF.fetch`, without the pool's slowdown. */
export async function workerFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  let request = new Request(input, init);
  for (let hop = 0; ; hop++) {
    const response = await worker.fetch!(request as never, env as never, createExecutionContext());
    const location = response.headers.get('Location');
    if (init?.redirect === 'manual' || !FOLLOWED.has(response.status) || !location || hop >= 10) return response;
    const keepsMethod = response.status === 307 || response.status === 308;
    request = new Request(new URL(location, request.url), {
      method: keepsMethod ? request.method : 'GET',
      headers: request.headers,
      ...(keepsMethod && init?.body !== undefined ? { body: init.body } : {}),
    });
  }
}
