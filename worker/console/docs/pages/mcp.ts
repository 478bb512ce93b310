/** /docs/mcp: the gateway as a Model Context Protocol server, for AI assistants and IDEs. */
import { blocks, fence, table } from '../text';
import { type DocsContext, type DocsPageSource, exampleDomain } from './context';

/** A client configuration, as MCP clients that speak Streamable HTTP take it (the docs test connects with it). */
// biome-ignore lint/suspicious/noTemplateCurlyInString: the MCP client expands ${EGW_API_KEY} from its environment.
export function mcpClientConfig(baseUrl: string, key = '${EGW_API_KEY}') {
  return {
    mcpServers: {
      'edge-gateway': { type: 'http', url: `${baseUrl}/mcp`, headers: { Authorization: `Bearer ${key}` } },
    },
  };
}

const curlTools = (context: DocsContext, body: Record<string, unknown>) =>
  `curl -s ${context.baseUrl}/mcp \\
  -H "Authorization: Bearer $EGW_API_KEY" \\
  -H "Content-Type: application/json" \\
  -H "Accept: application/json, text/event-stream" \\
  -d '${JSON.stringify(body)}'`;

const nodeClient = (context: DocsContext) => `// npm install @modelcontextprotocol/sdk
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const client = new Client({ name: 'my-assistant', version: '1.0.0' });
await client.connect(
  new StreamableHTTPClientTransport(new URL('${context.baseUrl}/mcp'), {
    requestInit: { headers: { Authorization: \`Bearer \${process.env.EGW_API_KEY}\` } },
  }),
);
const { tools } = await client.listTools();
console.log(tools.map((tool) => tool.name)); // [ 'execute', 'list_domains' ]

const result = await client.callTool({
  name: 'execute',
  arguments: { domain: '${exampleDomain(context)}', text: 'Our payroll run failed. Can someone help today?' },
});
if (result.isError) throw new Error(result.content[0].text); // e.g. "rate_limited: …"
console.log(result.content[0].text); // the reply
console.log(result.structuredContent.output.execution_id); // the envelope, as /api/execute answers
await client.close();`;

export const mcpPage: DocsPageSource = {
  slug: 'mcp',
  title: 'MCP server',
  summary: 'Any MCP client (an IDE, a desktop assistant) hands demands to the platform with your API key.',
  markdown: (context) =>
    blocks(
      'The gateway is a [Model Context Protocol](https://modelcontextprotocol.io) server at ' +
        `\`POST ${context.baseUrl}/mcp\`, over Streamable HTTP and stateless: every call completes in its request. ` +
        'An assistant that connects can hand a demand to the platform’s agents, robots and human experts, and ' +
        'gets the same audited envelope as [`POST /api/execute`](/docs/protocol).',
      '## Connect a client {#connect}',
      'Give the client the URL and your API key (a key with `execute`; add `leads:write` so a demand nobody ' +
        'answers becomes a lead for experts). The console’s **Channels** page shows this configuration with your ' +
        'workspace’s URL. Clients that read an `mcpServers` file take it as is; others ask for the same URL and ' +
        'header in their settings.',
      fence('json mcp-config', JSON.stringify(mcpClientConfig(context.baseUrl), null, 2)),
      '## Tools {#tools}',
      table(
        ['Tool', 'Input', 'Answer'],
        [
          [
            '`execute`',
            '`domain` (an enum of the catalog; optional), `text`, `structured_input`, `session_id`, ' +
              '`idempotency_key`; `key_id` for administrator tokens only',
            'The reply as text content; the whole envelope as `structuredContent`',
          ],
          ['`list_domains`', 'none', 'The catalog: each domain’s slug, name and description'],
        ],
      ),
      'A call runs with all of the key’s scopes (`required_scopes: []`), synchronously. Pass the same ' +
        '`session_id` to continue a conversation, and an `idempotency_key` to make a retry safe: a replay ' +
        'answers the first result, with `_meta.idempotent_replayed`. Without a `domain`, the gateway picks the ' +
        'catalog domain the words match best, else the workspace’s default, and says which in `_meta.domain` ' +
        'and `_meta.domain_chosen_by` (`text`, `default` or `catalog`). The server declares ' +
        '`tools.listChanged: false`: the tools are the same for the whole session.',
      '## From Node {#node}',
      fence('js client', nodeClient(context)),
      '## With curl {#curl}',
      'The protocol is JSON-RPC over one POST. Listing the tools needs no session:',
      fence('sh', curlTools(context, { jsonrpc: '2.0', id: 1, method: 'tools/list' })),
      'A call to `execute`:',
      fence(
        'sh',
        curlTools(context, {
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'execute', arguments: { domain: exampleDomain(context), text: 'I need a bookkeeper.' } },
        }),
      ),
      '## Refusals and limits {#refusals}',
      'Authentication, scopes, rate limits, quotas, idempotency and audit are those of `/api/execute` (the audit ' +
        'record says `via: "mcp"`). Before the protocol starts, a missing or bad key is a 401 and a key without ' +
        '`execute` a 403, as [problem details](/docs/protocol#errors). Inside it, a refusal is a tool result with ' +
        '`isError: true`: its text is `code: detail`, and its `structuredContent` is the problem object, such as ' +
        '`{"code": "rate_limited", "status": 429, …}`; a missing or wrongly typed argument is `validation_failed`, ' +
        'with the field of each error in `errors[].pointer`. A response that ran an execution carries the key’s ' +
        '`RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` headers, and a rate-limited one ' +
        '`Retry-After`, as [limits](/docs/protocol#limits) describes. `GET` and `DELETE` on `/mcp` are 405: there ' +
        'is no stream and no session to end. A body that is not JSON is JSON-RPC error -32700 (HTTP 400). A ' +
        'browser page of another origin, or one reaching the server under a name that is not the platform’s ' +
        '(DNS rebinding), is refused with 403 before anything runs; clients that are not browsers send no ' +
        '`Origin` and are not affected.',
    ),
};
