/**
 * When a webhook delivery is tried again (docs/design/webhooks.md): exponential backoff with jitter,
 * honouring `Retry-After`, for about three days; and how many attempts one endpoint may have in
 * flight, so that a slow receiver holds only its own slots.
 */
import { backoffDelayMs } from '../../lib/backoff';

/** Retries stop, and a failing endpoint is disabled, after this long. */
export const RETRY_WINDOW_MS = 3 * 24 * 60 * 60 * 1000;
/** No single wait is longer than this. */
const MAX_STEP_MS = 6 * 60 * 60 * 1000;
/** At most this many attempts in flight per endpoint (per consumer invocation). */
const PER_ENDPOINT_CONCURRENCY = 4;

/**
 * Bounds the attempts in flight per endpoint, shared by every message of one queue batch: one
 * endpoint's slow or hanging receiver holds only its own slots, never another endpoint's.
 */
export class EndpointLimiter {
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, Array<() => void>>();

  constructor(private readonly perEndpoint = PER_ENDPOINT_CONCURRENCY) {}

  /** Runs `task` when the endpoint has a free slot. */
  async run<T>(endpointId: string, task: () => Promise<T>): Promise<T> {
    if ((this.running.get(endpointId) ?? 0) >= this.perEndpoint) {
      await new Promise<void>((resolve) =>
        this.waiting.set(endpointId, [...(this.waiting.get(endpointId) ?? []), resolve]),
      );
    }
    this.running.set(endpointId, (this.running.get(endpointId) ?? 0) + 1);
    try {
      return await task();
    } finally {
      this.running.set(endpointId, (this.running.get(endpointId) ?? 1) - 1);
      this.waiting.get(endpointId)?.shift()?.();
    }
  }
}

/**
 * The wait before attempt `attempt + 1`, after `attempt` failures: the base doubled each time,
 * at most 6 hours, with "equal jitter" (half fixed, half random) so retries spread out.
 */
export function retryDelayMs(failures: number, baseSeconds: number, random: () => number = Math.random): number {
  return backoffDelayMs(failures, baseSeconds * 1000, MAX_STEP_MS, random);
}

/** A `Retry-After` header (seconds, or an HTTP date) as milliseconds from now, if it says anything. */
export function retryAfterMs(header: string | null, now: number): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
