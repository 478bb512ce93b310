/**
 * The one CSV writer of every export (RFC 4180, CRLF lines). A text cell that a spreadsheet would
 * run as a formula (it starts with `=`, `+`, `-`, `@`, a tab or a carriage return) is prefixed
 * with `'`, as OWASP advises: names and labels come from tenants and providers, and an agent called
 * `=HYPERLINK(…)` must open as text. Numbers are written as numbers (a negative amount stays one).
 */

/** A cell: text, a number, or nothing (an empty cell). */
export type CsvCell = string | number | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;

/** One CSV field: defused when text starts like a formula, quoted when it holds a comma, a quote or a line break. */
export function csvField(value: CsvCell): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'number' ? String(value) : FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A whole CSV document: a header row, then each row, every cell through csvField. */
export function csvDocument(header: readonly string[], rows: ReadonlyArray<readonly CsvCell[]>): string {
  return `${[header, ...rows].map((row) => row.map(csvField).join(',')).join('\r\n')}\r\n`;
}

/** The headers every CSV download carries: a file name, no caching, and no sniffing it as anything else. */
export function csvHeaders(fileName: string): Record<string, string> {
  return {
    'Content-Type': 'text/csv; charset=utf-8',
    'Content-Disposition': `attachment; filename="${fileName.replace(/[^\w.-]/g, '_')}"`,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  };
}
