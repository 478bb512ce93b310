/**
 * Text people read as a name, a title or a label: what is refused in what callers send
 * (lib/openapi.ts's displayText), and cleaned in what the platform reads from elsewhere (a crawled
 * page's title and headings), so both reach pages, the API and MCP in the same shape.
 */

/**
 * Control characters (C0, DEL, C1), line and paragraph separators, bidirectional overrides,
 * isolates and marks (LRM, RLM, ALM), and the invisible characters that make a name look empty
 * or like another (zero-width space, word joiner and invisible operators, the byte-order mark,
 * the Hangul and Mongolian fillers, the soft hyphen). The zero-width joiner and non-joiner stay:
 * emoji sequences and Persian and Indic words need them.
 */
export const CONTROLS = new RegExp(
  [
    '[\\p{Cc}\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069', // controls, separators, overrides, isolates
    '\\u200e\\u200f\\u061c', // direction marks
    '\\u200b\\u2060-\\u2064\\ufeff\\u00ad', // zero-width and invisible
    '\\u115f\\u1160\\u3164\\uffa0\\u180e]', // fillers
  ].join(''),
  'u',
);

const ALL_CONTROLS = new RegExp(CONTROLS.source, 'gu');

/** A display string from text the platform did not write: no markup, no control characters, spaces single, bounded. */
export function cleanDisplayString(text: string, max: number): string {
  return text
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .replace(ALL_CONTROLS, '')
    .trim()
    .slice(0, max);
}
