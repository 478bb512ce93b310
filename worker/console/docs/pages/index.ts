/** The docs' pages, in the order of the navigation. */
import { referenceMarkdown } from '../openapi-markdown';
import { billingPage } from './billing';
import { boundariesPage } from './boundaries';
import type { DocsPageSource } from './context';
import { a2aPage } from './a2a';
import { accountsPage } from './accounts';
import { integrationPage } from './integration';
import { knowledgePage } from './knowledge';
import { mcpPage } from './mcp';
import { overviewPage } from './overview';
import { protocolPage } from './protocol';
import { providersPage } from './providers';
import { retentionPage } from './retention';
import { webhooksPage } from './webhooks';

export type { DocsContext, DocsPageSource } from './context';
export { EXAMPLE_AGENT_CARD } from './providers';
export { EXAMPLE_EVENT } from './webhooks';
export { EXAMPLE_METER_EVENT, EXAMPLE_USAGE_APPLICATIONS } from './billing';
export { mcpClientConfig } from './mcp';

const referencePage: DocsPageSource = {
  slug: 'reference',
  title: 'API reference',
  summary: 'Every public route, generated from the OpenAPI description.',
  markdown: (context) => referenceMarkdown(context.api),
};

export const DOCS_PAGES: DocsPageSource[] = [
  overviewPage,
  integrationPage,
  knowledgePage,
  protocolPage,
  boundariesPage,
  providersPage,
  webhooksPage,
  billingPage,
  mcpPage,
  a2aPage,
  accountsPage,
  retentionPage,
  referencePage,
];

/** A page's path: /docs for the overview, /docs/{slug} for the others. */
export const pathOf = (page: DocsPageSource) => (page.slug ? `/docs/${page.slug}` : '/docs');
