// The reference agent (docs/design/agents-and-robots.md): a small, rules-based FAQ agent for the demo company,
// Northwind Bookkeeping. It speaks A2A 1.0 (JSON-RPC) through @a2a-js/sdk's own server classes,
// serves its agent card, and checks the Standard Webhooks signature of every call with the npm
// `standardwebhooks` library, refusing anything unsigned or tampered with. It answers only what
// its rules cover; anything else it declines (task state REJECTED), so the platform hands the
// visitor to a human expert. Local development only: `npm run dev` starts it; it is never deployed.
//
// Run alone: node scripts/reference-agent.mjs   (REFERENCE_AGENT_PORT and _SECRET from .dev.vars)
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import express from 'express';
import { Webhook } from 'standardwebhooks';
import { ROOT, readVars } from './lib.mjs';

/** What the agent knows: each entry answers when enough of its words appear in the question. */
export const FAQ = [
  {
    id: 'about',
    words: ['who are you', 'are you a bot', 'are you human', 'are you real', 'what are you', 'ai', 'robot', 'bot'],
    answer:
      'I am Northwind’s FAQ agent: a small rules-based program (no AI model), running locally for this demo. I ' +
      'answer common questions about our services; for anything else I hand you to one of our bookkeeping experts.',
  },
  {
    id: 'hours',
    words: ['opening hours', 'hours', 'are you open', 'open on', 'office hours', 'weekend', 'saturday', 'sunday'],
    answer:
      'Our team works Monday to Friday, 9:00 to 17:00 (CET). You can write here at any time; an expert replies on ' +
      'the next working day.',
  },
  {
    id: 'pricing',
    words: ['price', 'prices', 'pricing', 'cost', 'costs', 'how much', 'fee', 'fees', 'plans'],
    answer:
      'Bookkeeping starts at €149 a month for up to 50 transactions, and payroll is €12 per employee a month. VAT ' +
      'returns are included in every plan. For anything larger an expert will quote for you.',
  },
  {
    id: 'services',
    words: ['services', 'what do you do', 'what do you offer', 'offer'],
    answer: 'We do bookkeeping, payroll, VAT returns and year-end accounts for small businesses and freelancers.',
  },
  {
    id: 'getting-started',
    words: [
      'get started',
      'sign up',
      'onboarding',
      'documents',
      'what do you need',
      'switch',
      'switching',
      'new client',
    ],
    answer:
      'To get started we need your last three months of bank statements, your open invoices and your VAT number. ' +
      'Switching from another accountant takes about two weeks, and we contact them for you.',
  },
  {
    id: 'security',
    words: ['secure', 'security', 'data security', 'my data', 'privacy', 'gdpr', 'confidential'],
    answer:
      'Your documents are stored encrypted in the EU, only your accountant sees them, and you can ask us to delete ' +
      'them at any time.',
  },
];

/** The best FAQ entry for a question, or undefined when none matches well enough. */
export function answerFor(question) {
  const text = ` ${question
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s'-]/gu, ' ')
    .replace(/\s+/g, ' ')} `;
  let best;
  for (const entry of FAQ) {
    const score = entry.words
      .filter((word) => text.includes(` ${word} `))
      .reduce((sum, word) => sum + word.split(' ').length, 0);
    if (score > 0 && (!best || score > best.score)) best = { entry, score };
  }
  return best?.entry;
}

/** The agent card (A2A 1.0) for an agent reachable at `baseUrl`. */
export function referenceAgentCard(baseUrl) {
  return {
    name: 'Northwind FAQ agent',
    description:
      'Answers common questions about Northwind Bookkeeping (hours, prices, services, getting started, data ' +
      'security). Rules-based, no AI model; local demo only.',
    version: '1.0.0',
    supportedInterfaces: [
      { url: `${baseUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
    ],
    capabilities: { streaming: false, pushNotifications: false, extensions: [] },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [
      {
        id: 'northwind-faq',
        name: 'Northwind FAQ',
        description: 'Answers frequent questions about Northwind Bookkeeping; declines anything else.',
        tags: ['faq', 'bookkeeping'],
        examples: ['What are your opening hours?', 'How much does bookkeeping cost?'],
        inputModes: ['text/plain'],
        outputModes: ['text/plain', 'application/json'],
      },
    ],
    securitySchemes: {},
    securityRequirements: [],
    signatures: [],
  };
}

const textPart = (value) => ({
  content: { $case: 'text', value },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});
const dataPart = (value) => ({
  content: { $case: 'data', value },
  metadata: undefined,
  filename: '',
  mediaType: 'application/json',
});

/** The executor: a message for a question it knows, a declined task for anything else. */
const executor = {
  async execute(context, bus) {
    const question = context.userMessage.parts
      .filter((part) => part.content?.$case === 'text')
      .map((part) => part.content.value)
      .join(' ');
    const entry = answerFor(question);
    if (entry) {
      bus.publish(
        AgentEvent.message({
          messageId: randomUUID(),
          contextId: context.contextId,
          taskId: '',
          role: 2,
          parts: [textPart(entry.answer), dataPart({ faq_id: entry.id, source: 'northwind-faq' })],
          metadata: undefined,
          extensions: [],
          referenceTaskIds: [],
        }),
      );
    } else {
      // Honest about its limits: it declines, and the platform brings in a person.
      bus.publish(
        AgentEvent.task({
          id: context.taskId,
          contextId: context.contextId,
          status: {
            state: 7, // TASK_STATE_REJECTED
            message: {
              messageId: randomUUID(),
              contextId: context.contextId,
              taskId: context.taskId,
              role: 2,
              parts: [textPart('I can only answer common questions; an expert will take this one.')],
              metadata: undefined,
              extensions: [],
              referenceTaskIds: [],
            },
            timestamp: new Date().toISOString(),
          },
          artifacts: [],
          history: [],
          metadata: {},
        }),
      );
    }
    bus.finished();
  },
  async cancelTask() {},
};

/**
 * Starts the agent on 127.0.0.1:`port` (0: any free port). Every JSON-RPC call must carry a valid
 * Standard Webhooks signature under `secret`; `onCall` sees each verified call (for tests).
 */
export function startReferenceAgent({ port = 0, secret, onCall } = {}) {
  if (!secret) throw new Error('The reference agent needs its signing secret (REFERENCE_AGENT_SECRET).');
  const verifier = new Webhook(secret);
  const app = express();
  let baseUrl = '';
  const handler = () => requestHandler;
  let requestHandler;
  app.use(
    express.json({ limit: '1mb', verify: (request, _response, buffer) => (request.rawBody = buffer.toString('utf8')) }),
  );
  app.use('/.well-known/agent-card.json', (request, response, next) =>
    agentCardHandler({ agentCardProvider: handler() })(request, response, next),
  );
  app.use(
    '/a2a/jsonrpc',
    (request, response, next) => {
      try {
        verifier.verify(request.rawBody ?? '', request.headers);
      } catch {
        response.status(401).json({ error: 'The Standard Webhooks signature is missing or does not match this body.' });
        return;
      }
      onCall?.({ headers: request.headers, body: request.body });
      next();
    },
    (request, response, next) =>
      jsonRpcHandler({ requestHandler: handler(), userBuilder: UserBuilder.noAuthentication })(request, response, next),
  );
  return new Promise((resolve, reject) => {
    // Express 5 calls back on a failed listen too, with the error (a taken port).
    const server = app.listen(port, '127.0.0.1', (error) => {
      if (error) return reject(error);
      baseUrl = `http://127.0.0.1:${server.address().port}`;
      requestHandler = new DefaultRequestHandler(referenceAgentCard(baseUrl), new InMemoryTaskStore(), executor);
      resolve({
        url: baseUrl,
        cardUrl: `${baseUrl}/.well-known/agent-card.json`,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
    server.on('error', reject);
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const vars = readVars(join(ROOT, '.dev.vars'));
  const agent = await startReferenceAgent({
    port: Number(vars.REFERENCE_AGENT_PORT ?? 8788),
    secret: vars.REFERENCE_AGENT_SECRET,
  });
  console.log(`Reference agent (A2A 1.0) on ${agent.url}; card at ${agent.cardUrl}`);
}
