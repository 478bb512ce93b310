/** /docs/boundaries: what is public, what each surface never does, and how access is provisioned. */
import { blocks, table } from '../text';
import type { DocsPageSource } from './context';

export const boundariesPage: DocsPageSource = {
  slug: 'boundaries',
  title: 'Boundaries',
  summary: 'What is public and what is not, what the docs, widget and gateway never do, and provisioning.',
  markdown: (context) =>
    blocks(
      'Each surface of the platform has one job, and the line between them is part of the product: you can ' +
        'verify it from outside.',
      '## Public, and what is not {#public}',
      table(
        ['Public: anyone may read or call', 'Not public: needs a credential'],
        [
          ['The base URL, `/healthz`, [openapi.yaml](/openapi.yaml) and these docs', '`POST /api/execute`: an API key'],
          [
            'A channel’s widget configuration and intake, from its allowed origins only',
            'Channels, intake lists and conversations: a key with `channels:*` or a member’s session',
          ],
          ['The hosted inbox page of an active channel', 'The workbench and a lead’s contact details: its claimer'],
          ['The front page and the provider sign-up entry', 'Provisioning (keys, workspaces, webhooks): admins'],
        ],
      ),
      'Public routes answer CORS for exact allowed origins only (never `*`); anything else is 403 ' +
        '`origin_not_allowed`. Across workspaces everything is 404: another tenant’s ids do not exist for you.',
      '## What the documentation never does {#docs}',
      'It explains the protocol, the integration levels and these boundaries. It takes no registration, billing, ' +
        'workspace or control-plane action: there is no form on any docs page. For those, it links to the ' +
        `[console](${context.consoleUrl}/console) and the [auth entry](${context.authUrl}/sign-in).`,
      '## What the widget never does {#widget}',
      [
        '- It captures demand (a message, a handoff, contact details) and may show the provider entry. Nothing more.',
        '- It never carries the control plane, the provider onboarding form, or pages about orders, bills or ' +
          'workspaces; "Become an expert" leaves the widget for the sign-up entry.',
        '- It never executes around the platform core: every message passes the same admission, limits and brain.',
        '- It renders visitor and expert text as text only, never as markup.',
      ].join('\n'),
      '## What the gateway never does {#gateway}',
      [
        '- It never answers asynchronously: one request, one completed envelope (or a problem).',
        '- It never acts beyond the scopes the request names, and never beyond the key’s own.',
        '- It never stores, charges or writes anything for a refused request.',
        '- It never puts a visitor’s contact details in an envelope, an event, a webhook, a log or an alert: only ' +
          'the claimer of a lead sees them.',
        '- It never calls a customer URL that fails the egress guard (https only, public addresses only, no ' +
          'redirects).',
      ].join('\n'),
      '## How provisioning works {#provisioning}',
      'API keys and production permissions are issued through provisioning only: a platform administrator creates ' +
        'the organisation and workspace, issues keys with the scopes and limits the use needs, and sets up webhook ' +
        'endpoints. A key is shown once and stored as a hash; it can be revoked at once. Site owners sign up ' +
        'themselves and create channels in the console; providers sign up, complete onboarding, and are reviewed ' +
        'before they receive any demand ([Providers and agents](/docs/providers)).',
    ),
};
