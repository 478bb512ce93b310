/** /docs/providers: onboarding and its states, the workbench, and connecting an A2A agent or a robot. */
import { blocks, fence, table } from '../text';
import type { DocsPageSource } from './context';

/** A minimal A2A 1.0 card the platform accepts: the test validates it as onboarding would. */
export const EXAMPLE_AGENT_CARD = {
  name: 'Acme FAQ agent',
  description: 'Answers questions about Acme’s opening hours, prices and services.',
  version: '1.0.0',
  supportedInterfaces: [
    { url: 'https://agent.example.com/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  ],
  capabilities: { streaming: false, pushNotifications: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain', 'application/json'],
  skills: [
    {
      id: 'acme-faq',
      name: 'Acme FAQ',
      description: 'Frequent questions about Acme; declines anything else.',
      tags: ['faq'],
      examples: ['What are your opening hours?'],
    },
  ],
};

const ROBOT_CALL = {
  execution_id: 'exe_01m82f7a9k2c4d6e8g0h2j4k6q',
  domain: 'faq',
  text: 'What are your opening hours?',
  request_id: 'req_01m82f7a9k2c4d6e8g0h2j4k6r',
  trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
  workspace_id: 'ws_demo',
  memory: [{ role: 'visitor', text: 'Hello', created_at: '2026-11-24T09:29:58.000Z' }],
};

const ROBOT_ANSWER = {
  output: { answer: 'opening_hours', confidence: 0.93 },
  reply: 'We are open Monday to Friday, 9:00 to 17:30.',
  usage: [{ meter: 'acme_lookups', quantity: 1, unit: 'lookup' }],
};

const ROBOT_RECEIVER = `// npm install express standardwebhooks
import express from 'express';
import { Webhook } from 'standardwebhooks';

const webhook = new Webhook(process.env.WEBHOOK_SECRET); // the whsec_ secret shown at approval

const app = express();
app.post('/execute', express.text({ type: 'application/json' }), (req, res) => {
  let call;
  try {
    call = webhook.verify(req.body, req.headers); // only the platform can sign; replays older than 5 min fail
  } catch {
    return res.status(401).end();
  }
  // Answer within your timeout (10 s by default): output for programs, reply for people.
  res.json({ output: { domain: call.domain }, reply: \`You asked: \${call.text ?? 'nothing'}\` });
});
app.listen(Number(process.env.PORT ?? 3000));`;

export const providersPage: DocsPageSource = {
  slug: 'providers',
  title: 'Providers and agents',
  summary: 'Onboarding and review, the workbench, and connecting an A2A agent or a signed robot.',
  markdown: (context) =>
    blocks(
      'Providers are the supply side: **experts** (people who claim leads and answer visitors), **agents** (A2A ' +
        'agents) and **robots** (signed HTTPS endpoints). Agents and robots answer executions at once; experts ' +
        'take what needs a person.',
      '## Onboarding and review {#onboarding}',
      `Sign up at [${context.authUrl}/sign-up?role=provider](${context.authUrl}/sign-up?role=provider), then ` +
        'complete the five onboarding steps (who you are, kind, accepted domains and topics, what is called, ' +
        'review) and submit. A platform administrator reviews every provider before any demand reaches them. ' +
        'The states, and the only ways between them:',
      table(
        ['From', 'Event', 'To'],
        [
          ['(sign-up as provider)', '', '`registered`'],
          ['`registered`', 'profile saved, not submitted', '`profile_incomplete`'],
          ['`registered`, `profile_incomplete`', 'complete profile submitted', '`pending_review`'],
          ['`pending_review`', 'admin approves', '`active`'],
          ['`pending_review`', 'admin rejects, with a note', '`profile_incomplete`'],
          ['`active`', 'admin suspends, with a note', '`suspended`'],
          ['`active`', 'kind, accepted scope or what is called changes', '`pending_review`'],
          ['`suspended`', 'provider resubmits', '`pending_review`'],
        ],
      ),
      '## The workbench {#workbench}',
      [
        '- **Available** lists the leads offered to you: first to the best few matching experts (topic, language, ' +
          'region, fewest open claims), then to all after the channel’s `widen_minutes`. New leads appear ' +
          'without a reload, and you can be alerted by email (instantly, an hourly digest, or not at all).',
        '- **Claim** a lead to see the visitor’s contact details and the whole conversation. One claimer per lead; ' +
          'the first claim wins.',
        '- **Reply** on the lead’s page: the visitor reads it live in the widget, or by email if they left.',
        '- **Move** it: contacted, qualified, won or lost, with a note; or release it to the others.',
        '- A claim that gets no reply within the channel’s claim SLA goes back to the others. Capacity (your ' +
          'open claims) and a cooldown after a release keep the pool fair.',
      ].join('\n'),
      '## Connecting an A2A agent {#a2a-agent}',
      'Any agent that speaks A2A (v1.0; 0.3 also accepted) can answer a domain. Give its agent card URL in ' +
        'onboarding: the platform fetches and validates the card, and shows you its name, skills and the endpoint ' +
        'it will call before you submit. A card it accepts:',
      fence('json agent-card', JSON.stringify(EXAMPLE_AGENT_CARD, null, 2)),
      'Each execution sends your agent one `SendMessage` (`message/send` on 0.3): a text part with the request’s ' +
        '`text`, and a data part with the rest of the call (the same object a robot receives, below). Answer with ' +
        'a message, or a task in state `completed`: text parts become `result.reply`, data parts `result.output`. ' +
        'A task in state `rejected` is a decline (the demand goes to experts); any other state is a failure. Every ' +
        'call carries the Standard Webhooks signature headers, so your agent can check that the platform sent it.',
      '## Connecting a robot {#robot}',
      'A robot is an HTTPS endpoint. Each execution is one signed `POST` with this body (`memory` only with the ' +
        'caller’s `memory:read`):',
      fence('json', JSON.stringify(ROBOT_CALL, null, 2)),
      'It answers `200` with `output` (an object), an optional `reply` for people, and optional `usage` lines ' +
        'under meters of your own (the platform’s meters, such as `executions`, are refused):',
      fence('json', JSON.stringify(ROBOT_ANSWER, null, 2)),
      'Verify the signature before anything else. With `standardwebhooks` in Node:',
      fence('js receiver', ROBOT_RECEIVER),
      'Calls must answer within your timeout (10 seconds by default, at most 25). After five failures in a row ' +
        'the platform skips you for a minute, then tries again. Your health (calls, success rate, p50 and p95, the ' +
        'last errors) is on the console’s Operations page, where you can also rotate your signing secret (both ' +
        'secrets sign for 24 hours).',
    ),
};
