/**
 * Calendar periods in UTC, as the ledger and the meters count them: a month is `2026-11`, a day
 * `2026-11-26`. Pure functions of a time in milliseconds.
 */

/** The calendar month (UTC) a time falls in, as `YYYY-MM`. */
export function monthOf(now: number): string {
  return new Date(now).toISOString().slice(0, 7);
}

/** The calendar day (UTC) a time falls in, as `YYYY-MM-DD`. */
export function dayOf(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}

/**
 * The years a date sent to the platform may name. Far dates overflow the calendar arithmetic
 * (the month after 9999-12 is "+010000") and mean nothing to a ledger or a chart.
 */
export const SANE_YEARS = { first: 2000, last: 2100 } as const;

/** Whether a `YYYY-MM-DD…` text (a date or an ISO time) falls within SANE_YEARS. */
export function isSaneDate(text: string): boolean {
  const year = Number(text.slice(0, 4));
  return /^\d{4}-/.test(text) && year >= SANE_YEARS.first && year <= SANE_YEARS.last;
}

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** Whether a text is a month as `YYYY-MM`. */
export function isMonth(text: string): boolean {
  return MONTH.test(text);
}

/** The first and the last millisecond + 1 of a month: `[start, end)`. */
export function monthBounds(month: string): { start: number; end: number } {
  const match = MONTH.exec(month);
  if (!match) throw new Error(`Not a month: ${month}`);
  const year = Number(match[1]);
  const index = Number(match[2]) - 1;
  return { start: Date.UTC(year, index, 1), end: Date.UTC(year, index + 1, 1) };
}

/** The month before this one. */
export function previousMonth(month: string): string {
  return monthOf(monthBounds(month).start - 1);
}

/** The days of `[from, to]` (both `YYYY-MM-DD`, `to` included), in order. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  const end = Date.parse(`${to}T00:00:00Z`);
  for (let at = Date.parse(`${from}T00:00:00Z`); at <= end; at += 86_400_000) days.push(dayOf(at));
  return days;
}

/** A moment as the APIs write it: ISO 8601 in UTC. */
export function iso(milliseconds: number): string;
/** A moment as the APIs write it, or null for none. */
export function iso(milliseconds: number | null): string | null;
/** One implementation for both. */
export function iso(milliseconds: number | null): string | null {
  return milliseconds === null ? null : new Date(milliseconds).toISOString();
}
