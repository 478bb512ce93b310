/**
 * Form posts on the console and auth pages. A form route takes a form and nothing else, and a
 * body it cannot read is a 4xx page, never a 500: handlers only ever see string fields.
 */
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../../env';
import type { z } from 'zod';
import { ApiError, fieldErrorsFromZod } from '../../lib/errors';

const FORM_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data']);

/** Refuses unsafe requests whose body is not a form (JSON, say) with a 415 page. */
export const requireFormBody = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.method === 'POST') {
    const type = (c.req.header('Content-Type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (!FORM_TYPES.has(type)) {
      throw new ApiError('unsupported_media_type', 'This page takes a form (application/x-www-form-urlencoded). Use the API for JSON.');
    }
  }
  await next();
});

/** The posted form's text fields (file parts are dropped). A form that cannot be read is a 400. */
export async function readForm(c: Context<AppEnv>): Promise<Record<string, string>> {
  let body: Record<string, unknown>;
  try {
    body = await c.req.parseBody();
  } catch {
    throw new ApiError('malformed_form', 'The form could not be read. Reload the page and try again.');
  }
  return Object.fromEntries(Object.entries(body).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

/** zod's pointers (/allowed_origins/0, /colors/primary) become form field names (allowed_origins, colors.primary). */
export function formErrors(error: z.ZodError): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const entry of fieldErrorsFromZod(error)) {
    const [first, second] = entry.pointer.split('/').filter(Boolean);
    const name = second && !/^\d+$/.test(second) ? `${first}.${second}` : (first ?? '');
    errors[name] ??= entry.detail;
  }
  return errors;
}
