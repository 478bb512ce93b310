/**
 * JSON request bodies, in the order docs/design/execution.md fixes: content type and size are
 * checked before authentication (readJsonBody), the JSON itself is parsed after it
 * (parseJsonBody), so an unauthenticated caller learns nothing about body validation. Every JSON
 * route reads its body here, so every one treats odd input alike: a byte-order mark (which
 * RFC 8259 forbids senders to add) is malformed JSON, and a string holding a lone UTF-16
 * surrogate (valid JSON syntax, but not text) is refused with a pointer to it.
 */
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env';
import { ApiError } from './errors';
import { jsonNestsDeeperThan, MAX_REQUEST_JSON_DEPTH } from './json-depth';

declare module 'hono' {
  interface ContextVariableMap {
    /** The parsed JSON request body (parseJsonBody), for error messages about it. */
    jsonBody: unknown;
  }
}

export const MAX_JSON_BODY_BYTES = 256 * 1024;

const JSON_CONTENT_TYPE = /^application\/json\s*(;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

async function readLimited(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<Uint8Array> {
  if (!body) return new Uint8Array();
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError('payload_too_large', `The request body may be at most ${maxBytes} bytes.`);
}

/** Step 1: content type and size; keeps the body as text for parseJsonBody and the validator. */
export function readJsonBody(maxBytes: number = MAX_JSON_BODY_BYTES) {
  return createMiddleware<AppEnv>(async (c, next) => {
    // A path that matches two routes (a literal `:user_id` segment matches the route's own
    // pattern as text too) runs this twice: the body was read and checked the first time.
    if ((c.req.bodyCache as { text?: Promise<string> }).text) return next();
    const contentType = c.req.header('Content-Type') ?? '';
    if (!JSON_CONTENT_TYPE.test(contentType.trim())) {
      throw new ApiError('unsupported_media_type', 'Send the body as Content-Type: application/json (UTF-8).');
    }
    const declaredLength = Number(c.req.header('Content-Length') ?? '0');
    if (declaredLength > maxBytes) throw tooLarge(maxBytes);
    const bytes = await readLimited(c.req.raw.body, maxBytes);
    let text: string;
    try {
      // ignoreBOM keeps a byte-order mark in the text, so that it is refused below, not skipped.
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      throw new ApiError('malformed_json', 'The request body is not valid UTF-8.', {
        errors: [{ pointer: '', detail: 'The body contains bytes that are not UTF-8.' }],
      });
    }
    // The zod validator reads the body through HonoRequest's cache; the stream is consumed.
    // Hono keeps promises in this cache although its type says otherwise.
    (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve(text);
    await next();
  });
}

/**
 * The body's JSON, or the refusal of a body that is not JSON (a byte-order mark, bad syntax, a
 * string that is not text): parseJsonBody throws it, a JSON-RPC endpoint answers it as -32700.
 */
export async function bodyJson(
  c: Context<AppEnv>,
): Promise<{ ok: true; value: unknown } | { ok: false; error: ApiError }> {
  const text = (await (c.req.bodyCache as { text?: Promise<string> }).text) ?? '';
  if (text.charCodeAt(0) === 0xfeff) {
    const error = new ApiError(
      'malformed_json',
      'The request body starts with a byte-order mark; send UTF-8 JSON without one (RFC 8259, section 8.1).',
      { errors: [{ pointer: '', detail: 'The body starts with U+FEFF.' }] },
    );
    return { ok: false, error };
  }
  if (jsonNestsDeeperThan(text, MAX_REQUEST_JSON_DEPTH)) {
    const error = new ApiError('validation_failed', 'The request body nests too deeply.', {
      errors: [{ pointer: '', detail: `Objects and arrays may nest at most ${MAX_REQUEST_JSON_DEPTH} levels deep.` }],
    });
    return { ok: false, error };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof SyntaxError ? error.message : 'unparseable';
    const refusal = new ApiError('malformed_json', `The request body is not valid JSON: ${reason}`, {
      errors: [{ pointer: '', detail: 'The body must be one JSON object.' }],
    });
    return { ok: false, error: refusal };
  }
  const notText = pointerToLoneSurrogate(value);
  if (notText !== undefined) {
    const error = new ApiError('validation_failed', 'The body holds a string that is not text.', {
      errors: [
        { pointer: notText, detail: 'Contains a lone UTF-16 surrogate (such as \\ud800), which is not a character.' },
      ],
    });
    return { ok: false, error };
  }
  return { ok: true, value };
}

/** Step 3 (after authentication): parse the JSON and hand it to the zod validator. */
export const parseJsonBody = createMiddleware<AppEnv>(async (c, next) => {
  const read = await bodyJson(c);
  if (!read.ok) throw read.error;
  c.set('jsonBody', read.value);
  await next();
});

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The JSON Pointer (RFC 6901) of the first key or string value holding a lone surrogate, if any. */
export function pointerToLoneSurrogate(value: unknown, pointer = ''): string | undefined {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? pointer : undefined;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = pointerToLoneSurrogate(value[index], `${pointer}/${index}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const at = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (LONE_SURROGATE.test(key)) return at;
      const found = pointerToLoneSurrogate(item, at);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
