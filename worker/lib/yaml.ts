/**
 * JSON values as block-style YAML 1.2, for /openapi.yaml: objects and arrays as indented blocks,
 * strings plain when YAML reads them back as the same string and double-quoted (JSON's own
 * escaping, which YAML shares) otherwise. A few dozen lines instead of a YAML library in the
 * Worker (about 15 KiB gzip); a unit test parses the output back with one.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Words YAML 1.1 or 1.2 reads as something other than a string. */
const RESERVED = /^(?:~|null|true|false|yes|no|on|off|y|n)$/i;
/** A plain scalar: no leading indicator, no `: ` or ` #`, no trailing space, not a number. */
const PLAIN = /^[A-Za-z_/(][^\n\r\t:#]*$/;
const VERSION = /^\d+\.\d+\.\d+$/;

function scalar(value: string | number | boolean | null): string {
  if (typeof value !== 'string') return JSON.stringify(value);
  const plain = PLAIN.test(value) && !RESERVED.test(value) && !/\s$/.test(value) && !/[{}[\],&*!|>'"%@`]/.test(value);
  // A version (`3.1.0`) is no number in YAML: it stays plain, as people write it.
  return plain || VERSION.test(value) ? value : JSON.stringify(value);
}

const isBlock = (value: Json): value is Json[] | { [key: string]: Json } =>
  value !== null && typeof value === 'object' && Object.keys(value).length > 0;

function emit(value: Json, indent: string, lines: string[], prefix: string): void {
  if (!isBlock(value)) {
    const empty = Array.isArray(value) ? '[]' : value !== null && typeof value === 'object' ? '{}' : null;
    lines.push(`${prefix}${empty ?? scalar(value as string | number | boolean | null)}`);
    return;
  }
  if (Array.isArray(value)) {
    if (prefix) lines.push(prefix.trimEnd());
    for (const item of value) {
      if (isBlock(item) && !Array.isArray(item)) {
        // The first key sits on the dash's line.
        const nested: string[] = [];
        emit(item, `${indent}  `, nested, '');
        lines.push(`${indent}- ${nested[0]!.trimStart()}`, ...nested.slice(1));
      } else emit(item, `${indent}  `, lines, `${indent}- `);
    }
    return;
  }
  if (prefix) lines.push(prefix.trimEnd());
  for (const [key, item] of Object.entries(value)) {
    const label = `${indent}${scalar(key)}:`;
    if (isBlock(item)) emit(item, `${indent}  `, lines, `${label} `);
    else emit(item, indent, lines, `${label} `);
  }
}

/** A JSON value as a YAML document. */
export function toYaml(value: unknown): string {
  const lines: string[] = [];
  emit(JSON.parse(JSON.stringify(value)) as Json, '', lines, '');
  return `${lines.join('\n')}\n`;
}
