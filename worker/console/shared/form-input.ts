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
      throw new ApiError(
        'unsupported_media_type',
        'This page takes a form (application/x-www-form-urlencoded). Use the API for JSON.',
      );
    }
  }
  await next();
});

/**
 * The posted form's text fields (file parts are dropped). A field sent several times (checkboxes)
 * comes back as its values joined by newlines; `formList` splits them. A form that cannot be read
 * is a 400.
 */
export async function readForm(c: Context<AppEnv>): Promise<Record<string, string>> {
  let body: Record<string, unknown>;
  try {
    body = await c.req.parseBody({ all: true });
  } catch {
    throw new ApiError('malformed_form', 'The form could not be read. Reload the page and try again.');
  }
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(body)) {
    const texts = (Array.isArray(value) ? value : [value]).filter((item): item is string => typeof item === 'string');
    if (texts.length > 0) fields[name] = texts.join('\n');
  }
  return fields;
}

/** The values of a repeated field (checkboxes), or of a list typed one per line or comma-separated. */
export function formList(form: Record<string, string>, name: string): string[] {
  return (form[name] ?? '')
    .split(/[\n,]/)
    .map((item) => item.trim())
    .filter(Boolean);
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
