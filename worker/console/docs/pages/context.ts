/** What a docs page is, and what it may read to write itself. */
import type { DocsDocument } from '../openapi-markdown';

/** The deployment a page describes: its URLs, the catalog's domains and the public description. */
export interface DocsContext {
  baseUrl: string;
  consoleUrl: string;
  authUrl: string;
  /** The platform's own channel (`FRONT_DOOR_CHANNEL`), for live examples; null when unset. */
  channelKey: string | null;
  /** The snippet and the hosted inbox link of a channel. */
  snippet: (channelKey: string) => string;
  hostedInbox: (channelKey: string) => string;
  /** The catalog's domains; examples use `consultation` or the first. */
  domains: { domain: string; name: string; description: string | null }[];
  api: DocsDocument;
}

/** One page of the docs: its path under /docs ('' is /docs itself), title, summary and Markdown. */
export interface DocsPageSource {
  slug: string;
  title: string;
  summary: string;
  markdown: (context: DocsContext) => string;
}

/** The domain examples use: `consultation` where the catalog has it (the demo's lead path). */
export function exampleDomain(context: DocsContext): string {
  const domains = context.domains.map((entry) => entry.domain);
  return domains.includes('consultation') ? 'consultation' : (domains[0] ?? 'consultation');
}

/** The execute call every quick start shows: one request that makes a lead for experts. */
export function executeExample(context: DocsContext, extra: Record<string, unknown> = {}) {
  const body = {
    domain: exampleDomain(context),
    execution_mode: 'sync',
    required_scopes: ['execute', 'leads:write'],
    text: 'I need help choosing a CRM for 20 sales reps.',
    ...extra,
  };
  return [
    `curl -s ${context.baseUrl}/api/execute`,
    '  -H "Authorization: Bearer $EGW_API_KEY"',
    '  -H "Content-Type: application/json"',
    `  -d '${JSON.stringify(body)}'`,
  ].join(' \\\n');
}
