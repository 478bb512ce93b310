/** /docs/mcp-a2a: the gateway for AI assistants (MCP) and other agents (A2A). */
import { blocks } from '../text';
import type { DocsPageSource } from './context';

export const mcpA2aPage: DocsPageSource = {
  slug: 'mcp-a2a',
  title: 'MCP and A2A',
  summary: 'The gateway as a tool for AI assistants (MCP) and as an agent for other agents (A2A).',
  markdown: () =>
    blocks(
      '**Coming.** The gateway will be reachable from any Model Context Protocol client (an IDE, a desktop ' +
        'assistant) at `POST /mcp`, and from any A2A agent through its agent card at ' +
        '`/.well-known/agent-card.json`, with your own API key and scopes, and the same audited envelope as ' +
        '[`POST /api/execute`](/docs/protocol).',
      'Until then, call [`POST /api/execute`](/docs/protocol) directly.',
    ),
};
