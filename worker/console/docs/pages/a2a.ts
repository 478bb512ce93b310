/** /docs/a2a: the gateway as an A2A agent, for other agents. */
import { blocks, fence, table } from '../text';
import { type DocsContext, type DocsPageSource, exampleDomain } from './context';

const sendMessage = (context: DocsContext) =>
  `curl -s ${context.baseUrl}/a2a \\
  -H "Authorization: Bearer $EGW_API_KEY" \\
  -H "Content-Type: application/json" \\
  -H "A2A-Version: 1.0" \\
  -d '${JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'SendMessage',
    params: {
      message: {
        messageId: 'msg-1',
        role: 'ROLE_USER',
        parts: [{ text: 'Our VAT return is due Friday.' }, { data: { domain: exampleDomain(context) } }],
      },
    },
  })}'`;

const nodeClient = (context: DocsContext) => `// npm install @a2a-js/sdk
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';

// Every call carries your API key.
const fetchWithKey = (input, init = {}) => {
  const headers = new Headers(init.headers);
  headers.set('Authorization', \`Bearer \${process.env.EGW_API_KEY}\`);
  return fetch(input, { ...init, headers });
};
const factory = new ClientFactory(
  ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl: fetchWithKey })],
  }),
);
const client = await factory.createFromUrl('${context.baseUrl}'); // reads /.well-known/agent-card.json

const part = (content, mediaType) => ({ content, mediaType, metadata: undefined, filename: '' });
const send = (text, contextId = '') =>
  client.sendMessage({
    tenant: '',
    message: {
      messageId: crypto.randomUUID(),
      contextId, // the conversation: empty starts one
      taskId: '',
      role: 1, // user
      parts: [
        part({ $case: 'text', value: text }, 'text/plain'),
        part({ $case: 'data', value: { domain: '${exampleDomain(context)}' } }, 'application/json'),
      ],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    configuration: undefined,
    metadata: undefined,
  });

const first = await send('We need help with our payroll.');
console.log(first.parts[0].content.value); // the reply
const envelope = first.parts[1].content.value; // the execution envelope
const second = await send('It is urgent: 40 people wait for their pay.', first.contextId); // same conversation
console.log(second.parts[1].content.value.output.result.demand_id === envelope.output.result.demand_id); // true`;

export const a2aPage: DocsPageSource = {
  slug: 'a2a',
  title: 'A2A agent',
  summary: 'Other agents call the gateway as an A2A 1.0 agent: an agent card, and JSON-RPC at /a2a.',
  markdown: (context) =>
    blocks(
      'The gateway is an [A2A](https://a2a-protocol.org) agent. Its card, public at ' +
        `\`${context.baseUrl}/.well-known/agent-card.json\`, lists one skill per domain of the catalog, the ` +
        `JSON-RPC interface at \`${context.baseUrl}/a2a\` (A2A 1.0, and 0.3 for older clients) and a bearer ` +
        'security scheme: your API key, as for [`POST /api/execute`](/docs/protocol).',
      fence('sh', `curl -s ${context.baseUrl}/.well-known/agent-card.json`),
      '## A message {#message}',
      table(
        ['Part', 'Carries'],
        [
          ['text', 'The request’s `text`: the demand in words'],
          [
            'data',
            '`{"domain": …}` (required), and `structured_input`, `idempotency_key` if you need them; `key_id` ' +
              'for administrator tokens',
          ],
          ['`contextId`', 'The conversation (the request’s `session_id`): send it again to continue; empty starts one'],
        ],
      ),
      'The answer is a message in the same context with two parts: the reply as text, and the execution envelope ' +
        'as data. `SendMessage` (1.0, with the `A2A-Version: 1.0` header) and `message/send` (0.3, without it) ' +
        'both work; streaming does not (the card says so).',
      fence('sh', sendMessage(context)),
      '## From Node {#node}',
      'The A2A SDK’s own client reads the card and speaks the version it prefers:',
      fence('js client', nodeClient(context)),
      '## Refusals {#refusals}',
      'Before JSON-RPC starts, a missing or bad key is a 401 and a key without `execute` a 403, as ' +
        '[problem details](/docs/protocol#errors). A message without a data part naming a domain of the catalog, ' +
        'or with invalid fields, is a JSON-RPC **invalid params** error (-32602). Other refusals, such as the ' +
        'key’s rate limit, are error -32000. Each error’s message is `code: detail`; with 1.0 its `data` holds an ' +
        '`ErrorInfo` whose `metadata` has the problem’s `code`, `detail` and `request_id`, with 0.3 the problem ' +
        'object itself. The HTTP response of a message that ran an execution carries the `RateLimit-*` headers ' +
        'of [limits](/docs/protocol#limits), and a rate-limited one `Retry-After`. The audit record of each ' +
        'execution says `via: "a2a"`.',
    ),
};
