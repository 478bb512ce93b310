/**
 * Pieces every route description shares: the problem schema and its responses, and small
 * helpers for JSON request and response entries. The same zod objects validate requests and
 * generate the OpenAPI description, so the two cannot drift.
 */
import { z } from '@hono/zod-openapi';
import { errorCatalog, type ErrorCode } from './errors';
import { isSaneDate, SANE_YEARS } from './periods';
import { CONTROLS } from './display-text';

export const problemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.enum(Object.keys(errorCatalog) as [ErrorCode, ...ErrorCode[]]),
    request_id: z.string(),
    errors: z.array(z.object({ pointer: z.string(), detail: z.string() })).optional(),
  })
  .openapi('Problem', { description: 'RFC 9457 problem details.' });

/**
 * Text people read as a name, a label or a line of copy, wherever it is shown (pages, email
 * headers, alerts, the widget): trimmed, within its length, and free of control characters, which
 * would corrupt a header or a page title and can disguise one name as another. `multiline` lets a
 * paragraph (a bio, a note, a greeting) keep its line breaks.
 */
export function displayText(options: { min?: number; max: number; multiline?: boolean; minMessage?: string }) {
  const base = z.string().trim();
  const sized = options.min ? base.min(options.min, options.minMessage) : base;
  return sized
    .max(options.max)
    .refine((value) => !CONTROLS.test(options.multiline ? value.replace(/[\n\r\t]/g, '') : value), {
      message: options.multiline
        ? 'Control characters are not allowed (line breaks are).'
        : 'Control characters and line breaks are not allowed.',
    });
}

const SANE_RANGE = `Between ${SANE_YEARS.first} and ${SANE_YEARS.last}.`;

/** A calendar date `YYYY-MM-DD`, within the years the platform takes (periods.ts: SANE_YEARS). */
export const calendarDate = () => z.iso.date().refine(isSaneDate, { message: SANE_RANGE });

/** An ISO 8601 time with its offset, within the years the platform takes. */
export const calendarTime = () => z.iso.datetime({ offset: true }).refine(isSaneDate, { message: SANE_RANGE });

/** Response entries for the error statuses a route can return. */
export function problemResponses<const S extends readonly number[]>(statuses: S) {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        description: Object.values(errorCatalog)
          .filter((entry) => entry.status === status)
          .map((entry) => entry.title)
          .join('; '),
        content: { 'application/problem+json': { schema: problemSchema } },
      },
    ]),
  ) as {
    [K in S[number]]: {
      description: string;
      content: { 'application/problem+json': { schema: typeof problemSchema } };
    };
  };
}

/** A JSON response entry. */
export function jsonContent<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { 'application/json': { schema } } };
}

/** A required JSON request body, with the example the docs turn into a runnable curl command. */
export function jsonBody<T extends z.ZodType>(schema: T, example?: unknown) {
  return { required: true, content: { 'application/json': { schema, ...(example === undefined ? {} : { example }) } } };
}

/**
 * A JSON array used as a set (scopes, event types, origins, domains…): at most `max` items as
 * sent, duplicates counted, so a body of 10,000 copies is refused like any over-long list; each
 * kept once, in the order first sent.
 */
export function setOf<T extends z.ZodType>(item: T, max: number) {
  return z
    .array(item)
    .max(max)
    .transform((items) => [...new Set(items)]);
}
