/**
 * How deep a JSON text nests, read without parsing it. Parsers and every walk over a parsed value
 * (our own checks, zod, D1's JSON functions, an agent that receives it) recurse per level, and a
 * 12 KB body of 6,000 brackets overflows the stack of some of them; SQLite refuses JSON deeper
 * than 1,000 levels. So a depth is bounded on the text, before anything parses or stores it.
 */

/** The deepest nesting a request body may have (an object in an array in an object… counts each level). */
export const MAX_REQUEST_JSON_DEPTH = 32;
/** The deepest an agent's or robot's answer may nest (its protocol's wrapping takes a few levels). */
export const MAX_ANSWER_JSON_DEPTH = 64;

/** Whether a JSON text nests deeper than `limit` (brackets inside strings do not count); stops at the first excess. */
export function jsonNestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c)
        index++; // a backslash escapes the next character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) {
      if (++depth > limit) return true;
    } else if (code === 0x7d || code === 0x5d) depth--;
  }
  return false;
}
