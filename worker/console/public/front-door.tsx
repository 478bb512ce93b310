/** @jsxImportSource hono/jsx */
/**
 * `/`: the platform's own front page (docs/design/README.md): what
 * it does for site owners, visitors, API callers and providers; the consultation entry (the
 * platform's own widget, provider entry on, and its hosted inbox); the provider sign-up entry;
 * sign-in. Server-rendered, no script of its own: the widget's loader is the only one.
 */
import { Document } from '../shared/document';

export interface FrontDoorProps {
  consoleUrl: string;
  authUrl: string;
  /** The platform's own channel (FRONT_DOOR_CHANNEL), when one is set and active. */
  channel: { key: string; hostedInboxUrl: string } | null;
}

const AUDIENCES = [
  {
    id: 'site-owners',
    title: 'Site owners',
    text:
      'Paste one script tag: visitors chat, agents answer what they can, and the rest reaches vetted experts. ' +
      'Or share a hosted inbox link and skip the code.',
    link: ['Start a workspace', 'sign-up'],
  },
  {
    id: 'visitors',
    title: 'Visitors',
    text:
      'Ask a question in plain words. An agent answers at once when it can; otherwise an expert picks it up, ' +
      'live, and by email if you have left.',
    link: ['Ask a question', 'consult'],
  },
  {
    id: 'api-callers',
    title: 'API callers',
    text:
      'One JSON request to POST /api/execute with a bearer key, one completed and audited envelope back: ' +
      'idempotent, rate-limited, with scopes. AI assistants call it as an MCP server, other agents over A2A.',
    link: ['Read the docs', 'docs'],
  },
  {
    id: 'providers',
    title: 'Experts, robots and agents',
    text:
      'Take the demand: experts claim leads in a workbench, robots answer signed calls, A2A agents answer ' +
      'executions. Reviewed before the first lead.',
    link: ['Become a provider', 'provider'],
  },
] as const;

/** The front page. */
export function FrontDoorPage({ consoleUrl, authUrl, channel }: FrontDoorProps) {
  const hrefs: Record<string, string> = {
    'sign-up': `${authUrl}/sign-up?role=business`,
    consult: channel ? '#consult' : '/docs',
    docs: '/docs',
    provider: `${authUrl}/sign-up?role=provider`,
  };
  return (
    <Document title="Edge Gateway: one request in, a completed execution out">
      <header class="front-nav">
        <a class="front-logo" href="/">
          Edge Gateway
        </a>
        <nav aria-label="Site">
          <a href="/docs">Docs</a>
          <a href={`${authUrl}/sign-in`}>Sign in</a>
        </nav>
      </header>
      <main id="main">
        <section class="front-hero" aria-labelledby="front-title">
          <h1 id="front-title">Every question answered: by an agent at once, or by an expert who follows up.</h1>
          <p class="lead">
            Edge Gateway routes each demand to the agent, robot or person who can answer it, keeps the conversation
            going after the handoff, and gives every caller the same audited result.
          </p>
          <p class="front-actions">
            <a class="button primary" href={hrefs['sign-up']}>
              Add it to your site
            </a>
            <a class="button" href={hrefs.provider}>
              Become an expert, connect a robot, register an agent
            </a>
          </p>
        </section>
        <section class="front-grid" aria-label="Who it is for">
          {AUDIENCES.map((audience) => (
            <article class="card" id={audience.id}>
              <h2>{audience.title}</h2>
              <p>{audience.text}</p>
              <a href={hrefs[audience.link[1]]}>{audience.link[0]}</a>
            </article>
          ))}
        </section>
        <section class="front-consult card" id="consult" aria-labelledby="consult-title">
          <h2 id="consult-title">Ask us something</h2>
          {channel ? (
            <p>
              Use the chat button at the bottom of this page, or open the{' '}
              <a href={channel.hostedInboxUrl}>conversation page</a> if you prefer a full window. An agent answers what
              it can; an expert follows up on the rest.
            </p>
          ) : (
            <p>
              Consultations open here once this platform's own channel is set (FRONT_DOOR_CHANNEL). Meanwhile, the{' '}
              <a href="/docs">docs</a> show how to call the gateway.
            </p>
          )}
        </section>
      </main>
      <footer class="front-footer">
        <a href="/docs">Documentation</a>
        <a href={`${authUrl}/sign-in`}>Sign in</a>
        <a href={hrefs.provider}>For providers</a>
      </footer>
      {channel ? (
        <script
          async
          src={`${consoleUrl}/embed/widget.js`}
          data-channel-id={channel.key}
          data-console-origin={consoleUrl}
        ></script>
      ) : null}
    </Document>
  );
}
