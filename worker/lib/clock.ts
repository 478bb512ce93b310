/**
 * The one clock. Every "now" of the platform is `clock.now()`: the services of a unit of work carry
 * it, and code below them reads it here. Tests move it forward instead of sleeping or rewriting
 * stored times (moveClockForTests); the Worker and the worker tests share one isolate, so the code
 * a test calls sees the moved time, Durable Objects and their alarms included (platformTime).
 * `Date.now()` appears in this file only (test/unit/one-clock.test.ts checks it).
 */

/** What tells the time, in milliseconds since the epoch. */
export interface Clock {
  now(): number;
}

/** How far tests have moved time ahead of the system's (0 outside tests). */
let offsetMs = 0;

export const clock: Clock = { now: () => Date.now() + offsetMs };

/**
 * The platform's own time for a moment of ours, for the APIs that schedule by the system's clock
 * (a Durable Object's alarm): the same moment, as far away from the system's now as it is from ours.
 */
export function platformTime(at: number): number {
  return at - offsetMs;
}

/** Tests only: moves every later `clock.now()` forward by `ms` (durations still pass as they do). */
export function moveClockForTests(ms: number): void {
  offsetMs += ms;
}

/** Tests only: the system's time again. */
export function resetClockForTests(): void {
  offsetMs = 0;
}
