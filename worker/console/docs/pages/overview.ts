/** /docs: who the platform is for, its layers, and one request that works. */
import { blocks, fence } from '../text';
import { type DocsPageSource, executeExample } from './context';

export const overviewPage: DocsPageSource = {
  slug: '',
  title: 'Overview',
  summary: 'Who the gateway is for, how a demand flows through it, and a first request.',
  markdown: (context) =>
    blocks(
      'The edge execution gateway takes a demand (a question, a request for help, a task) from a website visitor or ' +
        'a program, admits it, and answers it synchronously: an agent or a robot answers at once, or the demand ' +
        'becomes a lead that the right experts claim and answer, live or by email.',
      '## Who uses it',
      [
        '- **Site owners** paste one `<script>` into their site, or link to a hosted inbox page, and read what comes ' +
          'in. See [Integration levels](/docs/integration).',
        '- **Visitors** chat through the widget or the hosted inbox, and hear back even after they left.',
        '- **API callers** send one JSON request to `POST /api/execute` with a bearer key and get a completed ' +
          'execution envelope back. See [The protocol](/docs/protocol).',
        '- **Experts, agents and robots** (the providers) sign up, are reviewed, and work the demand: experts claim ' +
          'leads in a workbench, agents and robots answer executions. See [Providers and agents](/docs/providers).',
      ].join('\n'),
      '## How a demand flows',
      '::layers',
      'Each layer has one job. The **platform core** decides who may do what (API keys, scopes, limits, channels ' +
        'and their allowed origins). The **brain** judges a demand (risk, topic, urgency) and routes it: to an ' +
        'agent or robot that accepts the domain, else to experts as a lead. Every change is written with its events, ' +
        'which go to your systems as signed [webhooks](/docs/webhooks). This documentation explains; it takes no ' +
        'action (see [Boundaries](/docs/boundaries)).',
      '## Your first request',
      'API keys are issued through provisioning by a platform administrator. Locally, `npm run dev` seeds one: ' +
        '`DEMO_API_KEY` in `.dev.vars`. Put yours in `EGW_API_KEY`, then:',
      fence('sh', executeExample(context)),
      'The answer is the envelope: `output` (with `status: "completed"`, the `execution_id` and the `result`), the ' +
        '`usage_applications` charged, and `exact_bridge` (the audit record). With `leads:write` the demand became ' +
        'a lead: `result.reference` (`D-…`) is what the experts and the visitor see. [The protocol](/docs/protocol) ' +
        'explains every field.',
      '## Next',
      [
        '- [Integration levels](/docs/integration): the hosted inbox, the widget, the API.',
        '- [The protocol](/docs/protocol): the request and the envelope, idempotency, scopes, limits, errors.',
        '- [Webhooks](/docs/webhooks): events and how to verify them.',
        '- [MCP server](/docs/mcp) and [A2A agent](/docs/a2a): the gateway from AI assistants and other agents.',
        '- [API reference](/docs/reference): every public route, generated from [openapi.yaml](/openapi.yaml).',
      ].join('\n'),
    ),
};
