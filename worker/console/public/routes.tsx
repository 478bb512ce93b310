/** @jsxImportSource hono/jsx */
/**
 * Public pages that need no sign-in: the front page (/), the documentation site (/docs), the hosted
 * inbox (/widget/{channel_key}), the local /demo site, and the shared stylesheet.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { newPageApp } from '../shared/app';
import { consoleOrigin, resolvePlatformUrls, urlsFollowHost, type AppEnv } from '../../env';
import { chooseLanguage } from '../../lib/i18n';
import {
  findActiveChannel,
  hostedInboxUrl,
  publicWidgetConfig,
  snippetFor,
  visitorLanguage,
} from '../../platform/channels';
import { docsRoutes } from '../docs/routes';
import { docsCss } from '../docs/styles';
import { allowHttpsImages } from '../shared/security';
import { siteCss } from '../shared/styles';
import { DemoSitePage } from './demo';
import { FrontDoorPage } from './front-door';
import { ChannelNotFoundPage, HostedInboxPage } from './hosted-inbox';

/** Only the local seed creates this channel, so a deployment has no demo page. */
export const DEMO_CHANNEL_KEY = 'ch_demo';

/** The public pages; `root` is the app whose routes /docs describes. */
export function publicPageRoutes(root: OpenAPIHono<AppEnv>) {
  const app = newPageApp();
  app.get('/assets/site.css', (c) =>
    c.body(siteCss + docsCss, 200, {
      'Content-Type': 'text/css; charset=utf-8',
      'Cache-Control': 'public, max-age=3600',
    }),
  );

  app.route('/', docsRoutes(root));

  app.get('/widget/:channelKey', async (c) => {
    const channel = await findActiveChannel(c.var.db, c.req.param('channelKey'));
    // Channel logos may live on any https host.
    allowHttpsImages(c);
    const asked = { lang: c.req.query('lang'), acceptLanguage: c.req.header('Accept-Language') };
    if (!channel)
      return c.html(
        <ChannelNotFoundPage
          language={chooseLanguage({ requested: asked.lang, acceptLanguage: asked.acceptLanguage })}
        />,
        404,
      );
    const urls = resolvePlatformUrls(c.var.settings, c.req.url);
    c.header('Cache-Control', 'no-store');
    const language = visitorLanguage(channel, asked);
    return c.html(<HostedInboxPage config={publicWidgetConfig(channel, urls, consoleOrigin(urls), language)} />);
  });

  app.get('/demo', async (c) => {
    const channel = await findActiveChannel(c.var.db, DEMO_CHANNEL_KEY);
    if (!channel) return c.notFound();
    const urls = resolvePlatformUrls(c.var.settings, c.req.url);
    return c.html(
      <DemoSitePage
        snippet={snippetFor(urls, DEMO_CHANNEL_KEY)}
        consoleUrl={urls.consoleUrl}
        channelKey={DEMO_CHANNEL_KEY}
      />,
    );
  });

  app.get('/', async (c) => {
    const urls = resolvePlatformUrls(c.var.settings, c.req.url);
    const key = c.var.settings.FRONT_DOOR_CHANNEL;
    const channel = key ? await findActiveChannel(c.var.db, key) : undefined;
    if (urlsFollowHost(c.var.settings)) c.header('Vary', 'Host');
    return c.html(
      <FrontDoorPage
        consoleUrl={urls.consoleUrl}
        authUrl={urls.authUrl}
        channel={channel ? { key: channel.channelKey, hostedInboxUrl: hostedInboxUrl(urls, channel.channelKey) } : null}
      />,
    );
  });
  return app;
}
