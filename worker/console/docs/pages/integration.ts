/** /docs/integration: the three integration levels, each with who it is for, the steps and an example. */
import { blocks, fence, table } from '../text';
import { type DocsContext, type DocsPageSource, exampleDomain, executeExample } from './context';

/** The channel examples name: the platform's own where set, else the local demo's. */
const channelOf = (context: DocsContext) => context.channelKey ?? 'ch_demo';

/** A channel with every widget option set: one request that checks them all against the API. */
function everyOptionExample(context: DocsContext): string {
  const body = {
    name: 'Every widget option',
    domain: exampleDomain(context),
    allowed_origins: ['https://www.example.com'],
    first_party_origins: ['https://example.com'],
    widget: {
      brand: { name: 'Acme', logo_url: 'https://www.example.com/logo.png' },
      colors: { primary: '#0b6e4f', on_primary: '#ffffff' },
      position: { side: 'bottom-left', offset_x: 24, offset_y: 24 },
      copy: {
        title: 'Talk to Acme',
        greeting: 'Hello! What can we do for you?',
        placeholder: 'Type your question',
        launcher_label: 'Chat with us',
        success_message: 'Thanks, we will be in touch.',
        privacy_note: 'We use your details only to answer you.',
      },
      lead_capture: { name: 'optional', email: 'required', phone: 'off' },
      provider_entry: { mode: 'on', label: 'Become an expert' },
    },
  };
  return [
    `curl -s ${context.baseUrl}/api/integrations/channels`,
    '  -H "Authorization: Bearer $EGW_API_KEY"',
    '  -H "Content-Type: application/json"',
    `  -d '${JSON.stringify(body)}'`,
  ].join(' \\\n');
}

export const integrationPage: DocsPageSource = {
  slug: 'integration',
  title: 'Integration levels',
  summary: 'The hosted inbox, the embedded widget and the full API: who each is for, the steps, an example.',
  markdown: (context) =>
    blocks(
      'There are three ways to take demand, from no code at all to a direct API integration. All three reach the ' +
        'same platform core and brain: the same admission, routing, leads and webhooks.',
      table(
        ['Level', 'For', 'You need'],
        [
          ['[Hosted inbox](#hosted-inbox)', 'anyone with a link to share', 'a channel'],
          ['[Embedded widget](#embedded-widget)', 'site owners', 'a channel and one `<script>` tag'],
          ['[Full API](#full-api)', 'developers, back ends, assistants', 'an API key'],
        ],
      ),
      '## Hosted inbox',
      'A page of its own for each channel, at `{console_url}/widget/{channel_key}`: link to it from an email, a QR ' +
        'code or a "Contact us" button. It needs no code on your side and works on any phone.',
      [
        `1. In the [console](${context.consoleUrl}/integrations), create a channel (a name and a domain).`,
        '2. Copy its hosted inbox link and publish it:',
      ].join('\n'),
      fence('html link', `<a href="${context.hostedInbox(channelOf(context))}">Ask us anything</a>`),
      'A visitor who leaves before an expert answers gets the answer by email, with a link back into the same ' +
        'conversation (if they left an address).',
      '## Embedded widget',
      'A chat launcher on your own site, from one tag. The loader is under 2 KB gzip and makes one request (the ' +
        'configuration) before a visitor opens it; the panel loads on the first click. It runs in a shadow root, so ' +
        'no CSS crosses either way.',
      [
        "1. Create a channel and list your site's origins in `allowed_origins` (exact origins: scheme, host, port).",
        '2. Paste the snippet before `</body>`:',
      ].join('\n'),
      fence('html browser', context.snippet(channelOf(context))),
      '3. Open your page: the launcher is at the bottom corner. Nothing else to deploy.',
      '### Every configuration option {#widget-options}',
      'Set them in the console (with a live preview) or through the API. This request creates a channel with every ' +
        'option set:',
      fence('sh', everyOptionExample(context)),
      table(
        ['Option', 'What it does'],
        [
          ['`brand.name`, `brand.logo_url`', 'The name in the panel header; an https logo.'],
          [
            '`colors.primary`, `colors.on_primary`',
            'The launcher and buttons. When the pair is hard to read, text falls back to black or white.',
          ],
          ['`position.side`, `offset_x`, `offset_y`', '`bottom-right` or `bottom-left`, and pixels from the edges.'],
          [
            '`copy.*`',
            'Title, greeting, placeholder, launcher label, success message and privacy note, in your words.',
          ],
          [
            '`copy_by_language.{lang}.*`',
            'The same per language (`de`, `ar`, …). In a visitor’s language: yours for that language, else your ' +
              '`copy` if you changed it, else the default in that language.',
          ],
          [
            '`language` (the channel’s)',
            '`auto` (the visitor’s browser language among `en`, `de`, `fr`, `es`, `pt`, `nl`, `it`, `pl`, `ar`, ' +
              '`he`; else English) or one of them. The widget, the hosted inbox, the replies and the emails speak ' +
              'it; `ar` and `he` read right to left. A conversation keeps the language it started in.',
          ],
          ['`lead_capture.name`, `.email`, `.phone`', '`off`, `optional` or `required` in the contact form.'],
          [
            '`provider_entry.mode`, `.label`',
            '`auto` (on first-party origins only), `on` or `off`: the "Become an expert" link to the provider sign-up.',
          ],
          ['`allowed_origins`', 'Third-party sites that may embed the channel.'],
          ['`first_party_origins`', 'Your own sites: the provider entry shows there under `auto`.'],
        ],
      ),
      'The public form of the configuration must fit in 1.5 KB in each language; a change past that is refused with ' +
        'a 422.',
      context.channelKey
        ? 'This page runs the widget of the platform’s own channel. Try the calls below on it:\n\n::live-widget'
        : '',
      '### Opening it from your code {#egw-queue}',
      'Calls made before the loader arrives are queued, so you may call `egw()` anywhere:',
      fence(
        'js browser',
        [
          'window.egw = window.egw || function () { (egw.q = egw.q || []).push(arguments) };',
          "egw('open'); // and egw('close')",
        ].join('\n'),
      ),
      '### A strict Content-Security-Policy {#csp}',
      'The widget uses no inline script or style. A host page with a strict policy needs the console origin for ' +
        'scripts, and for connections with its `wss://` twin (the live socket; without it the widget polls):',
      fence(
        'text csp',
        `Content-Security-Policy: default-src 'self'; script-src 'self' ${context.consoleUrl}; ` +
          `connect-src 'self' ${context.consoleUrl} ${context.consoleUrl.replace(/^http/, 'ws')}`,
      ),
      '### Attribution, fallback and the provider entry {#widget-behaviour}',
      [
        '- **Attribution.** The loader records the landing page, referrer and `utm_*` parameters of the visit; the ' +
          'conversation keeps its first touch, and the console and webhooks show it.',
        '- **Fallback.** If the configuration cannot load, or the panel fails, the launcher opens the hosted inbox ' +
          'in a new tab: a visitor is never left with a dead button.',
        '- **Provider entry.** "Become an expert, connect a robot, register an agent" leaves the widget for ' +
          `\`${context.authUrl}/sign-up?role=provider\`. It is on by default on first-party origins only.`,
        '- **Sessions.** The conversation survives page loads; a visitor who comes back reads the whole thread.',
      ].join('\n'),
      '## Full API',
      'For back ends, apps and assistants: one JSON request to `POST /api/execute` with a bearer key, one completed ' +
        'envelope back. Ask an administrator for a key with the scopes you need (provisioning), put it in ' +
        '`EGW_API_KEY`, and send:',
      fence('sh', executeExample(context, { session_id: 'order-4711', idempotency_key: 'order-4711-question-1' })),
      'Executions with the same `session_id` are one conversation: one demand, one lead, each call a turn of it. ' +
        'Retries with the same idempotency key replay the first answer. [The protocol](/docs/protocol) has every ' +
        'field; [MCP](/docs/mcp) and [A2A](/docs/a2a) reach the same pipeline from assistants and agents.',
    ),
};
