/** @jsxImportSource hono/jsx */
/**
 * /docs: the human-readable rendering of the public description (/openapi.json), plus the
 * error code catalog. It explains and links; it takes no action (no forms).
 */
import type { FC } from 'hono/jsx';
import { errorCatalog, type ErrorCode } from '../../lib/errors';
import { EVENT_TYPES } from '../../platform/events';
import { Document } from '../shared/document';
import { DataTable } from '../shared/layout';

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
  maxLength?: number;
}

export interface Operation {
  summary?: string;
  description?: string;
  security?: Record<string, string[]>[];
  requestBody?: { content?: Record<string, { schema?: SchemaObject; example?: unknown }> };
  responses?: Record<string, { description?: string }>;
  [extension: `x-${string}`]: unknown;
}

export interface DocsDocument {
  info: { title: string; version: string; description?: string };
  servers?: { url: string }[];
  paths?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, SchemaObject> };
}

function resolve(document: DocsDocument, schema: SchemaObject | undefined): SchemaObject | undefined {
  if (!schema?.$ref) return schema;
  const name = schema.$ref.split('/').pop() ?? '';
  return document.components?.schemas?.[name];
}

function typeLabel(document: DocsDocument, schema: SchemaObject | undefined): string {
  const resolved = resolve(document, schema);
  if (!resolved) return 'any';
  if (schema?.$ref) return schema.$ref.split('/').pop() ?? 'object';
  if (resolved.const !== undefined) return JSON.stringify(resolved.const);
  if (resolved.enum) return resolved.enum.map((value) => JSON.stringify(value)).join(' | ');
  if (resolved.anyOf) return resolved.anyOf.map((entry) => typeLabel(document, entry)).join(' | ');
  if (resolved.type === 'array') return `array of ${typeLabel(document, resolved.items)}`;
  return Array.isArray(resolved.type) ? resolved.type.join(' | ') : (resolved.type ?? 'object');
}

const FieldsTable: FC<{ document: DocsDocument; schema: SchemaObject | undefined }> = ({ document, schema }) => {
  const resolved = resolve(document, schema);
  const properties = Object.entries(resolved?.properties ?? {});
  if (properties.length === 0) return null;
  const required = new Set(resolved?.required ?? []);
  return (
    <DataTable
      rows={properties}
      columns={[
        { header: 'Field', cell: ([name]) => <code>{name}</code> },
        { header: 'Type', cell: ([, property]) => typeLabel(document, property) },
        { header: 'Required', cell: ([name]) => (required.has(name) ? 'yes' : 'no') },
        { header: 'Notes', cell: ([, property]) => <Prose text={resolve(document, property)?.description} /> },
      ]}
    />
  );
};

/** Descriptions use `backticks` for code, as in Markdown; render those as <code>, the rest as text. */
const Prose: FC<{ text: string | undefined }> = ({ text }) => (
  <>{(text ?? '').split('`').map((part, index) => (index % 2 === 1 ? <code>{part}</code> : part))}</>
);

const anchorFor = (method: string, path: string) => `${method}-${path.replace(/[^a-z0-9]+/gi, '-')}`;

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

const VERIFY_EXAMPLE = `import express from 'express';
import { Webhook } from 'standardwebhooks';

const webhook = new Webhook(process.env.WEBHOOK_SECRET); // whsec_…
const seen = new Set(); // use your database: keep handled webhook-ids for a few days

const app = express();
app.post('/hooks/gateway', express.text({ type: 'application/json' }), (req, res) => {
  let event;
  try {
    event = webhook.verify(req.body, req.headers); // checks signature and timestamp (5 min)
  } catch {
    return res.status(401).end();
  }
  const id = req.headers['webhook-id'];
  if (seen.has(id)) return res.status(200).end(); // a retry of what you already handled
  seen.add(id);
  handle(event); // event.type, event.data: may arrive out of order
  res.status(204).end();
});`;

/** Events and webhooks (PRODUCT.md section 10): what is sent, how it is signed, and how to receive it. */
function WebhooksSection() {
  return (
    <section class="card" id="webhooks" aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhooks</h2>
      <p>
        Endpoints are set up per workspace by the platform team (provisioning), with the event types they want. Each
        event is <code>POST</code>ed as JSON: <code>{'{id, type, created_at, workspace_id, data}'}</code>, where{' '}
        <code>data</code> is the public shape of the record (never a visitor’s contact details).
      </p>
      <DataTable
        rows={[...EVENT_TYPES]}
        columns={[
          { header: 'type', cell: (type) => <code>{type}</code> },
          { header: 'sent when', cell: (type) => EVENT_MEANINGS[type] },
        ]}
      />
      <p>
        Every request carries the Standard Webhooks headers <code>webhook-id</code> (the event’s id, the same on every
        retry), <code>webhook-timestamp</code> and <code>webhook-signature</code> (<code>v1,</code> + base64 HMAC-SHA256
        of <code>{'{id}.{timestamp}.{body}'}</code> under your <code>whsec_</code> secret). During a secret rotation it
        holds two signatures, old and new, for 24 hours; either verifies.
      </p>
      <p>
        <strong>Delivery is at least once, and events may arrive out of order.</strong> Answer 2xx within 10 seconds.
        Any other answer, a timeout or a redirect is retried with exponential backoff and jitter for about 3 days, with
        the same <code>webhook-id</code>; <code>Retry-After</code> is honoured. <code>410 Gone</code> disables the
        endpoint at once, and so do 3 days without a success. De-duplicate on <code>webhook-id</code>, and order by the
        record’s own timestamps:
      </p>
      <pre>
        <code>{VERIFY_EXAMPLE}</code>
      </pre>
    </section>
  );
}

const EVENT_MEANINGS: Record<(typeof EVENT_TYPES)[number], string> = {
  'lead.created': 'A demand became a lead for experts.',
  'lead.claimed': 'An expert claimed a lead.',
  'lead.status_changed': 'The claimer moved a lead (contacted, qualified, won, lost, or released).',
  'lead.released': 'A claimed lead went back to the experts: its claimer released it, or the claim SLA lapsed.',
  'lead.unclaimed': 'Nobody claimed a lead within the channel’s escalate_minutes: its owners were emailed.',
  'execution.completed': 'An execution completed (API or channel), on the agent or the lead path.',
  'provider.status_changed': 'A provider who is a member of the workspace changed state (approved, suspended…).',
  'intake.received': 'A visitor’s message, handoff or contact form reached a channel.',
  'conversation.message_created': 'A message was added to a conversation (visitor, agent, expert or platform).',
};

/** The API reference page. */
export const DocsPage: FC<{ document: DocsDocument }> = ({ document }) => {
  const baseUrl = document.servers?.[0]?.url ?? '';
  const operations = Object.entries(document.paths ?? {}).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
  );
  return (
    <Document title={`${document.info.title} API reference`}>
      <header class="topbar">
        <div class="inner">
          <a class="brand" href="/docs">
            {document.info.title}
          </a>
          <a href="/openapi.yaml">openapi.yaml</a>
          <a href="/openapi.json">openapi.json</a>
        </div>
      </header>
      <main class="page">
        <h1>API reference</h1>
        <p class="lead">
          <Prose text={document.info.description} />
        </p>
        <p>
          Base URL <code>{baseUrl}</code> · version <span class="pill">{document.info.version}</span>
        </p>
        <nav aria-label="Operations">
          <ul class="toc">
            {operations.map(({ path, method, operation }) => (
              <li>
                <a href={`#${anchorFor(method, path)}`}>
                  {method.toUpperCase()} {path}
                </a>{' '}
                <span class="muted">{operation.summary}</span>
              </li>
            ))}
            <li>
              <a href="#webhooks">Webhooks</a> <span class="muted">Events written back to your systems</span>
            </li>
            <li>
              <a href="#errors">Error codes</a>
            </li>
          </ul>
        </nav>
        {operations.map(({ path, method, operation }) => {
          const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
          const contract = Object.entries(operation).filter(([name]) => name.startsWith('x-'));
          const secured = (operation.security ?? []).length > 0;
          return (
            <section class="card" id={anchorFor(method, path)} aria-labelledby={`${anchorFor(method, path)}-title`}>
              <h2 id={`${anchorFor(method, path)}-title`}>
                <span class={`method ${method}`}>{method.toUpperCase()}</span>
                <code>{path}</code>
              </h2>
              <p>
                <strong>{operation.summary}</strong>
              </p>
              {operation.description ? (
                <p>
                  <Prose text={operation.description} />
                </p>
              ) : null}
              <p>
                Authentication:{' '}
                {secured ? (
                  (operation.security ?? []).some((requirement) => 'bearerAuth' in requirement) ? (
                    <code>Authorization: Bearer &lt;token&gt;</code>
                  ) : (
                    'a signed-in console session (the cookie of the auth entry)'
                  )
                ) : (
                  'none (public)'
                )}
              </p>
              {contract.length > 0 ? (
                <>
                  <h3>Route contract</h3>
                  <DataTable
                    headless
                    rows={contract}
                    columns={[
                      { header: 'Attribute', rowHeader: true, cell: ([name]) => name.slice(2) },
                      { header: 'Value', cell: ([, value]) => <code>{String(value)}</code> },
                    ]}
                  />
                </>
              ) : null}
              {bodySchema ? (
                <>
                  <h3>Request body</h3>
                  <FieldsTable document={document} schema={bodySchema} />
                </>
              ) : null}
              <h3>Responses</h3>
              <ul>
                {Object.entries(operation.responses ?? {}).map(([status, response]) => (
                  <li>
                    <code>{status}</code> <Prose text={response.description} />
                  </li>
                ))}
              </ul>
              <h3>Example</h3>
              <pre>
                <code>{curlExample(baseUrl, method, path, operation)}</code>
              </pre>
            </section>
          );
        })}
        <WebhooksSection />
        <section class="card" id="errors" aria-labelledby="errors-title">
          <h2 id="errors-title">Error codes</h2>
          <p>
            Every error is <code>application/problem+json</code> with <code>type</code>, <code>title</code>,{' '}
            <code>status</code>, <code>detail</code>, <code>code</code> and <code>request_id</code>. Validation errors
            add{' '}
            <code>
              errors: [{'{'}pointer, detail{'}'}]
            </code>
            .
          </p>
          <DataTable
            rows={Object.keys(errorCatalog) as ErrorCode[]}
            rowId={(code) => `error-${code}`}
            columns={[
              { header: 'code', cell: (code) => <code>{code}</code> },
              { header: 'status', cell: (code) => errorCatalog[code].status },
              { header: 'meaning', cell: (code) => errorCatalog[code].title },
            ]}
          />
        </section>
      </main>
    </Document>
  );
};
