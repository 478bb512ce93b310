/** @jsxImportSource hono/jsx */
/**
 * /integrations/email: a workspace's email log (owners and admins). /email/unsubscribe/{token}:
 * the way out of every email, without signing in (RFC 8058): GET shows a button, POST applies it,
 * including the one-click POST mail providers send (`List-Unsubscribe=One-Click`), which carries no
 * Origin header and no cookie. The signed token is its only authority, so it has no CSRF check.
 */
import type { Context } from 'hono';
import type { AppEnv } from '../../env';
import { applyUnsubscribe, emailLog, readUnsubscribeToken } from '../../platform/email';
import { newPageApp } from '../shared/app';
import { consolePageGuards, currentUser } from '../shared/session';
import { workspaceContext } from '../shared/workspace';
import { chooseLanguage } from '../../lib/i18n';
import { EmailLogPage, UnsubscribePage } from './pages';
import { clock } from '../../lib/clock';

function unsubscribeTarget(c: Context<AppEnv>) {
  const secret = c.var.services.secretsKey ?? c.var.settings.PASSWORD_PEPPER;
  return secret ? readUnsubscribeToken(secret, c.req.param('token') ?? '') : Promise.resolve(undefined);
}

/** The email pages. */
export function emailPageRoutes() {
  const app = newPageApp();
  app.use('/integrations/email', ...consolePageGuards);
  app.get('/integrations/email', async (c) => {
    const context = await workspaceContext(c, 'emails.read');
    const log = await emailLog(c.var.reads, context.current.workspaceId);
    return c.html(
      <EmailLogPage user={currentUser(c)} {...context} log={log} smtpConfigured={Boolean(c.var.settings.SMTP_HOST)} />,
    );
  });

  app.on(['GET', 'POST'], '/email/unsubscribe/:token', async (c) => {
    c.header('Cache-Control', 'no-store');
    const target = await unsubscribeTarget(c);
    const language = chooseLanguage({
      requested: c.req.query('lang'),
      acceptLanguage: c.req.header('Accept-Language'),
    });
    if (!target) return c.html(<UnsubscribePage what="alerts" invalid language={language} />, 404);
    if (c.req.method === 'GET') return c.html(<UnsubscribePage what={target.kind} language={language} />);
    await applyUnsubscribe(c.var.db, target, clock.now());
    return c.html(<UnsubscribePage what={target.kind} done language={language} />);
  });
  return app;
}
