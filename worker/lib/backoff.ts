/**
 * Exponential backoff with "equal jitter" (half fixed, half random), shared by everything that
 * retries: webhook deliveries and emails.
 */

/** The wait after `failures` failures: the base doubled each time, capped at `maxStepMs`. */
export function backoffDelayMs(
  failures: number,
  baseMs: number,
  maxStepMs: number,
  random: () => number = Math.random,
): number {
  const step = Math.min(baseMs * 2 ** Math.max(0, failures - 1), maxStepMs);
  return Math.round(step / 2 + (random() * step) / 2);
}
