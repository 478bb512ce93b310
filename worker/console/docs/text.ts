/** Small helpers that write the docs' Markdown. */

/**
 * A fenced code block. The info string is the language, then how the example runs in the docs
 * test (test/node/docs.test.ts): `sh` runs in bash, `json` parses, `receiver` is a webhook
 * receiver that is started and sent signed events, `browser` runs in a page, `config` is
 * checked by its own test.
 */
export const fence = (info: string, code: string) => `\`\`\`${info}\n${code}\n\`\`\``;

/** A table cell's text: one line, pipes escaped. */
export const cell = (text: string) => text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();

/** A Markdown pipe table. */
export function table(header: string[], rows: string[][]): string {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}

/** Lines joined into one Markdown source, so long pages read as a list of blocks. */
export const blocks = (...parts: (string | false | null | undefined)[]) =>
  parts.filter((part): part is string => typeof part === 'string' && part !== '').join('\n\n');
