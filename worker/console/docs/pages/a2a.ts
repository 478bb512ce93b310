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

const message = (text, contextId = '') => ({
  tenant: '',
  message: {
    messageId: crypto.randomUUID(), // a retry of the same message replays its answer
    contextId, // the conversation: empty starts one
    taskId: '',
    role: 1, // user
    parts: [{ content: { $case: 'text', value: text }, mediaType: 'text/plain', metadata: undefined, filename: '' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  },
  configuration: undefined,
  metadata: undefined,
});
const replyOf = (task) => task.status.message.parts[0].content.value;
const envelopeOf = (task) => task.artifacts[0].parts[1].content.value;

// Text only: the gateway picks the domain and says which in the task's metadata.
const first = await client.sendMessage(message('We need help with our payroll.'));
console.log(first.status.state, first.metadata, replyOf(first)); // TASK_STATE_COMPLETED (3), { domain, … }, the reply
const second = await client.sendMessage(message('It is urgent: 40 people wait for their pay.', first.contextId));
console.log(envelopeOf(second).output.result.demand_id === envelopeOf(first).output.result.demand_id); // true

// Read a task back, or follow one as it runs.
console.log((await client.getTask({ tenant: '', id: first.id, historyLength: 2 })).history.length); // 2
for await (const event of client.sendMessageStream(message('And the contractors?', first.contextId)))
  console.log(event.payload.$case); // task, artifactUpdate, statusUpdate`;

export const a2aPage: DocsPageSource = {
  slug: 'a2a',
  title: 'A2A agent',
  summary: 'Other agents call the gateway as an A2A 1.0 agent: an agent card, and JSON-RPC at /a2a.',
  markdown: (context) =>
    blocks(
      'The gateway is an [A2A](https://a2a-protocol.org) agent. Its card, public at ' +
        `\`${context.baseUrl}/.well-known/agent-card.json\` (and beside the endpoint, at ` +
        '`/a2a/.well-known/agent-card.json`), lists one skill per domain of the catalog, the JSON-RPC interface ' +
        `at \`${context.baseUrl}/a2a\` (A2A 1.0, and 0.3 for older clients), streaming, and a bearer ` +
        'security scheme: your API key, as for [`POST /api/execute`](/docs/protocol).',
      fence('sh', `curl -s ${context.baseUrl}/.well-known/agent-card.json`),
      '## A message {#message}',
      table(
        ['Part', 'Carries'],
        [
          ['text', 'The request’s `text`: the demand in words. A message of text alone is enough.'],
          [
            'data',
            'Optional: `{"domain": …}`, and `structured_input`, `idempotency_key` if you need them; `key_id` ' +
              'for administrator tokens',
          ],
          ['file', 'Kept with the message as an attachment (its name and type), by URL or inline'],
          ['`contextId`', 'The conversation (the request’s `session_id`): send it again to continue; empty starts one'],
          ['`taskId`', 'Continue a task of yours: the answer joins its history'],
          ['`messageId`', 'The retry key: the same message sent again replays its first answer and runs nothing'],
        ],
      ),
      'Without a domain, the gateway picks the catalog domain whose name and description best match the ' +
        'words; when none matches, the workspace’s default domain (set in the console, under Workspace ' +
        'settings); else the catalog’s first. The task’s `metadata` says which it chose and why ' +
        '(`domain_chosen_by`: `text`, `default` or `catalog`), as does the envelope’s `output.domain`.',
      '## The answer: a task {#task}',
      'Each message runs one execution, and the answer is a **completed task**: its status message is the ' +
        'reply, its artifact holds the reply as text and the execution envelope as data, and its history the ' +
        'messages. The id of a new task is its execution’s. A message with `acceptedOutputModes` of only ' +
        '`text/plain` or only `application/json` gets the artifact’s part of that kind; modes the gateway has ' +
        'none of are refused (-32005). The execution completes before the answer (the API’s synchronous ' +
        'contract), so `returnImmediately` changes nothing: the task comes back completed.',
      fence('sh', sendMessage(context)),
      table(
        ['Method (1.0)', '0.3', 'What it does'],
        [
          ['`SendMessage`', '`message/send`', 'Runs the message; answers its task (1.0: `{"task": …}`)'],
          [
            '`SendStreamingMessage`',
            '`message/stream`',
            'The same, as server-sent events: the task working, its artifact, then its completed status',
          ],
          ['`GetTask`', '`tasks/get`', 'A task of yours, with at most `historyLength` messages'],
          [
            '`ListTasks`',
            '',
            'Your tasks, newest first: filter by `contextId`, `status`, `statusTimestampAfter`; `pageSize` up ' +
              'to 100 (50 by default), `nextPageToken` to page; `includeArtifacts`',
          ],
          ['`CancelTask`', '`tasks/cancel`', 'Every task is complete when answered: TaskNotCancelable (-32002)'],
          ['`SubscribeToTask`', '`tasks/resubscribe`', 'Nothing left to follow: UnsupportedOperation (-32004)'],
        ],
      ),
      'Push notifications are not offered (the card says so): their methods answer -32003; read a task with ' +
        '`GetTask` instead. Another workspace’s task does not exist for you (TaskNotFound, -32001).',
      '## From Node {#node}',
      'The A2A SDK’s own client reads the card and speaks the version it prefers:',
      fence('js client', nodeClient(context)),
      '## Refusals {#refusals}',
      'Before JSON-RPC starts, a missing or bad key is a 401 and a key without `execute` a 403, as ' +
        '[problem details](/docs/protocol#errors). After that every refusal is a JSON-RPC error, with HTTP 200, ' +
        'and nothing runs on one: a body that is not JSON is -32700; a request that is not JSON-RPC 2.0 ' +
        '-32600; an unknown method -32601 (a method of the other version says which header to send); a ' +
        'message without `messageId`, `role` or parts, a domain not in the catalog, or invalid fields are ' +
        '**invalid params** (-32602); an `A2A-Version` other than 1.0 or 0.3 is -32009. Other refusals of the ' +
        'execution, such as the key’s rate limit, are error -32000. Each error’s message is `code: detail`; ' +
        'with 1.0 its `data` holds an `ErrorInfo` whose `metadata` has the problem’s `code`, `detail` and ' +
        '`request_id`, with 0.3 the problem object itself. A streaming method sends its refusal as one error ' +
        'event. The HTTP response of a message that ran an execution carries the `RateLimit-*` headers of ' +
        '[limits](/docs/protocol#limits), and a rate-limited one `Retry-After`. The audit record of each ' +
        'execution says `via: "a2a"`.',
      '## Conformance {#conformance}',
      'The A2A project’s test kit passes its mandatory tests against the gateway (A2A 1.0), but for three that ' +
        'the kit gets wrong: two expect a completed task to be canceled, and one fails inside the kit.',
    ),
};
