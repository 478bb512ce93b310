/** /docs/protocol: the request and the envelope field by field, and every rule around them. */
import { errorCatalog, type ErrorCode } from '../../../lib/errors';
import { KNOWN_SCOPES, SCOPE_MEANINGS } from '../../../platform/access';
import { componentFields } from '../openapi-markdown';
import { blocks, cell, fence, table } from '../text';
import { type DocsContext, type DocsPageSource, exampleDomain, executeExample } from './context';

function idempotencyExample(context: DocsContext): string {
  return [
    'for attempt in 1 2; do',
    `  ${executeExample(context, { idempotency_key: 'docs-protocol-replay' })
      .replace('curl -s', 'curl -s -o /dev/null -D -')
      .replace(/\n/g, '\n  ')} \\`,
    "  | grep -iE '^(HTTP/|idempotent-replayed)'",
    'done',
  ].join('\n');
}

function problemExample(context: DocsContext): string {
  return executeExample(context, { domain: 'no-such-domain' });
}

export const protocolPage: DocsPageSource = {
  slug: 'protocol',
  title: 'The protocol',
  summary: 'The execution request and envelope field by field, correlation, idempotency, scopes, limits, errors.',
  markdown: (context) =>
    blocks(
      '`POST /api/execute` takes one JSON request with `Authorization: Bearer <key>` and ' +
        '`Content-Type: application/json`, and answers synchronously with a completed execution envelope. This ' +
        'is phase 1 of the gateway: the route contract is `phase1_gateway`, and `execution_mode` is `sync` only.',
      fence('sh', executeExample(context)),
      '## The request {#request}',
      componentFields(context.api, 'ExecuteRequest'),
      `\`domain\` must be in the catalog (today: ${context.domains.map((entry) => `\`${entry.domain}\``).join(', ')}` +
        '); anything else is 422 `unknown_domain`. Send `text`, `structured_input` or both.',
      'The checks run in this order, and the first failure answers: content type and size (256 KiB) → bearer → ' +
        'JSON and schema → `key_id` → admission (workspace active, `execute` scope, `required_scopes`) → rate ' +
        'limit and monthly quota → idempotency → execution. A failure before execution is never stored, never ' +
        'charged and writes nothing.',
      '## The envelope {#envelope}',
      componentFields(context.api, 'ExecuteResponse'),
      '### output',
      componentFields(context.api, 'ExecuteResponse', 'output'),
      '### usage_applications',
      componentFields(context.api, 'UsageApplication'),
      '### exact_bridge',
      componentFields(context.api, 'ExactBridge'),
      'On the lead path `result` is `{demand_id, reference, lead_id?, disposition, reasons, topic, urgency, ' +
        'matched_providers, reply}`; on the agent path it is `{demand_id, reference, disposition, topic, urgency, ' +
        'handled_by: {kind, provider_id, name}, output, reply}`. `reply` is what a person reads.',
      '## Correlation ids {#correlation}',
      [
        '- Every response carries `X-Request-Id`: always our own `req_…`, also in the logs. Quote it to support.',
        '- Your own `request_id` comes back in `output.request_id`; `trace_id` in `output.trace_id`. Without a ' +
          '`trace_id`, a W3C `traceparent` header sets it.',
        '- `project_id`, `user_id` and `session_id` are stored with the execution. One `session_id` makes several ' +
          'executions one conversation of your workspace: one demand, one lead, each call a turn.',
      ].join('\n'),
      '## Idempotency {#idempotency}',
      'Send `idempotency_key` to make a retry safe. The cases:',
      table(
        ['You send', 'You get'],
        [
          ['a new key', 'the execution, stored with the key for 24 hours'],
          ['the same key and the same body', 'the first answer, byte for byte, with `Idempotent-Replayed: true`'],
          [
            'the same key once the allowance, the escrow or the key’s quota is used up',
            'the first answer: a request answered once is never refused for what it was charged',
          ],
          ['the same key and another body', '422 `idempotency_key_reused`'],
          [
            'the same key through another door (`/api/execute`, MCP, A2A)',
            '422 `idempotency_key_reused`: a key belongs to the door that first used it',
          ],
          ['the same key over the rate limit', '429 `rate_limited`: a replay is a request, and counts as one'],
          ['the same key while the first is still running', '409 `idempotency_in_progress`: retry shortly'],
          ['the same key after a failure that was not charged (such as 502)', 'a fresh attempt: the key was freed'],
        ],
      ),
      fence('sh', idempotencyExample(context)),
      '## Scopes {#scopes}',
      'A key holds scopes; `required_scopes` names the ones this request needs (a subset of the key’s; `[]` ' +
        'means all of them). Asking for less than the key holds limits what the execution may do.',
      table(
        ['Scope', 'Allows'],
        KNOWN_SCOPES.map((scope) => [`\`${scope}\``, SCOPE_MEANINGS[scope]]),
      ),
      '## Limits and their headers {#limits}',
      [
        "- **Rate limit**: per key per minute, exact. The key's own limit, else 600. Over it: 429 `rate_limited` " +
          'with `Retry-After` (seconds).',
        '- **Monthly quota**: per key per UTC calendar month, exact. Over it: 429 `quota_exceeded`. With a quota, ' +
          'the charge in `usage_applications` shows `limit` and `remaining`.',
        '- Successes carry `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (seconds).',
        '- Bodies up to 256 KiB, `text` up to 100,000 characters, 20 attachments.',
      ].join('\n'),
      '## Errors {#errors}',
      'Every error is `application/problem+json` (RFC 9457) with `type`, `title`, `status`, `detail`, a stable ' +
        '`code` and the `request_id`. Validation errors add `errors: [{pointer, detail}]`. Branch on `code`, ' +
        'never on `detail`.',
      fence('sh problem', problemExample(context)),
      table(
        ['Code', 'Status', 'Meaning'],
        (Object.keys(errorCatalog) as ErrorCode[]).map((code) => [
          `{#error-${code}} \`${code}\``,
          String(errorCatalog[code].status),
          cell(errorCatalog[code].title),
        ]),
      ),
      '## Versioning {#versioning}',
      `This is the phase 1 gateway: the contract \`phase1_gateway\`, synchronous only, \`execution_mode: "sync"\`. ` +
        'Fields are added, never renamed or removed, within a phase; unknown fields in a request are refused ' +
        `(strict), so a typo is a 422, not a silent default. The description at [openapi.yaml](/openapi.yaml) ` +
        `has the version; \`GET /healthz\` answers it too. Examples here use the \`${exampleDomain(context)}\` domain.`,
    ),
};
