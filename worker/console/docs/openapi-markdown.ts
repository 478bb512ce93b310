/**
 * The API reference as Markdown, generated from the public description (/openapi.json), so the
 * reference and the routes cannot drift. The protocol page reuses the field tables.
 */
import { cell, fence, table } from './text';

interface SchemaObject {
  $ref?: string;
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  const?: unknown;
  items?: SchemaObject;
  properties?: Record<string, SchemaObject>;
  required?: string[];
  anyOf?: SchemaObject[];
}

export interface Operation {
  summary?: string;
  description?: string;
  security?: Record<string, string[]>[];
  requestBody?: { content?: Record<string, { schema?: SchemaObject; example?: unknown }> };
  responses?: Record<string, { description?: string }>;
  [extension: `x-${string}`]: unknown;
}

/** The parts of the OpenAPI document the docs read. */
export interface DocsDocument {
  info: { title: string; version: string; description?: string };
  servers?: { url: string }[];
  paths?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, SchemaObject> };
}

function resolve(document: DocsDocument, schema: SchemaObject | undefined): SchemaObject | undefined {
  if (!schema?.$ref) return schema;
  return document.components?.schemas?.[schema.$ref.split('/').pop() ?? ''];
}

function typeLabel(document: DocsDocument, schema: SchemaObject | undefined): string {
  const resolved = resolve(document, schema);
  if (!resolved) return 'any';
  if (schema?.$ref) return schema.$ref.split('/').pop() ?? 'object';
  if (resolved.const !== undefined) return JSON.stringify(resolved.const);
  if (resolved.enum) return resolved.enum.map((value) => JSON.stringify(value)).join(' or ');
  if (resolved.anyOf) return resolved.anyOf.map((entry) => typeLabel(document, entry)).join(' or ');
  if (resolved.type === 'array') return `array of ${typeLabel(document, resolved.items)}`;
  return Array.isArray(resolved.type) ? resolved.type.join(' or ') : (resolved.type ?? 'object');
}

/** A Markdown table of a schema's fields: name, type, required, notes. */
export function fieldsTable(document: DocsDocument, schema: SchemaObject | undefined): string {
  const resolved = resolve(document, schema);
  const required = new Set(resolved?.required ?? []);
  return table(
    ['Field', 'Type', 'Required', 'Notes'],
    Object.entries(resolved?.properties ?? {}).map(([name, property]) => [
      `\`${name}\``,
      cell(typeLabel(document, property)),
      required.has(name) ? 'yes' : 'no',
      cell(resolve(document, property)?.description ?? ''),
    ]),
  );
}

/** A named component schema's fields, or one object property's fields, for pages that explain one object. */
export function componentFields(document: DocsDocument, name: string, property?: string): string {
  const component = { $ref: `#/components/schemas/${name}` };
  return fieldsTable(document, property ? resolve(document, component)?.properties?.[property] : component);
}

/** The demo channel of `npm run dev`, so examples with a channel key run as pasted. */
const EXAMPLE_CHANNEL_KEY = 'ch_demo';

/**
 * A curl command for the operation, from its own documented example: the method, the bearer
 * header when the operation is secured, and an Origin header for the public widget routes.
 */
export function curlExample(baseUrl: string, method: string, path: string, operation: Operation): string {
  const url = `${baseUrl}${path.replace(/\{(channelKey|channel_key)\}/g, EXAMPLE_CHANNEL_KEY)}`;
  const example = operation.requestBody?.content?.['application/json']?.example;
  const schemes = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
  const bearer = schemes.includes('bearerAuth');
  const sessionOnly = !bearer && schemes.includes('consoleSession');
  // GET, and a POST with a body (curl's default with -d), need no -X.
  const impliedMethod = method === 'get' || (method === 'post' && (example !== undefined || !sessionOnly));
  const lines = [`curl -s${impliedMethod ? '' : ` -X ${method.toUpperCase()}`} ${url}`];
  if (bearer) lines.push('  -H "Authorization: Bearer $EGW_API_KEY"');
  // Console-session routes take the session cookie, and changes must come from the console's origin.
  if (sessionOnly) lines.push('  -H "Cookie: egw_session=$EGW_SESSION"', `  -H "Origin: ${baseUrl}"`);
  if (example !== undefined) {
    if (schemes.length === 0) lines.push(`  -H "Origin: ${baseUrl}"`);
    lines.push('  -H "Content-Type: application/json"', `  -d '${JSON.stringify(example)}'`);
  }
  return lines.join(' \\\n');
}

/** The id of an operation's heading: `post-api-execute`. */
export const operationAnchor = (method: string, path: string) =>
  `${method}${path.replace(/[^a-z0-9]+/gi, '-')}`.replace(/-$/, '').toLowerCase();

function authenticationOf(operation: Operation): string {
  const requirements = operation.security ?? [];
  if (requirements.length === 0) return 'none (public)';
  if (requirements.some((requirement) => 'bearerAuth' in requirement)) return '`Authorization: Bearer <token>`';
  if (requirements.some((requirement) => 'visitorSession' in requirement))
    return "the visitor's `session_id` as bearer";
  return 'a signed-in console session (the cookie of the auth entry)';
}

/** The reference page's Markdown: every documented operation, its contract, body, responses and example. */
export function referenceMarkdown(document: DocsDocument): string {
  const baseUrl = document.servers?.[0]?.url ?? '';
  const operations = Object.entries(document.paths ?? {}).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
  );
  const parts = [
    document.info.description ?? '',
    `Base URL \`${baseUrl}\`, version \`${document.info.version}\`. The machine-readable description is ` +
      '[openapi.yaml](/openapi.yaml) ([JSON](/openapi.json)). Examples read your key from `$EGW_API_KEY`; console ' +
      'routes take the session cookie in `$EGW_SESSION`.',
    table(
      ['Operation', 'Summary'],
      operations.map(({ path, method, operation }) => [
        `[${method.toUpperCase()} ${path}](#${operationAnchor(method, path)})`,
        cell(operation.summary ?? ''),
      ]),
    ),
  ];
  for (const { path, method, operation } of operations) {
    parts.push(`## ${method.toUpperCase()} \`${path}\` {#${operationAnchor(method, path)}}`);
    if (operation.summary) parts.push(`**${operation.summary}**`);
    if (operation.description) parts.push(operation.description);
    parts.push(`Authentication: ${authenticationOf(operation)}.`);
    const contract = Object.entries(operation).filter(([name]) => name.startsWith('x-'));
    if (contract.length > 0) {
      parts.push(
        table(
          ['Contract', 'Value'],
          contract.map(([name, value]) => [name.slice(2), `\`${String(value)}\``]),
        ),
      );
    }
    const body = operation.requestBody?.content?.['application/json']?.schema;
    if (body) parts.push('### Request body', fieldsTable(document, body));
    parts.push(
      '### Responses',
      Object.entries(operation.responses ?? {})
        .map(([status, response]) => `- \`${status}\` ${(response.description ?? '').replace(/\s+/g, ' ')}`)
        .join('\n'),
      '### Example',
      fence('sh reference', curlExample(baseUrl, method, path, operation)),
    );
  }
  return parts.join('\n\n');
}
