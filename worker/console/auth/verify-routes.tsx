/** @jsxImportSource hono/jsx */
/**
 * Email verification's pages (docs/design/identity-and-access.md#email-verification): the link
 * opens a page whose button confirms (a mail scanner's GET confirms nothing), and the banner's
 * "send it again" asks for a new link.
 */
import type { Hono } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../env';
import { clock } from '../../lib/clock';
import { ApiError } from '../../lib/errors';
import { sendVerificationAgain, verifyEmail } from '../../platform/identity';
import { linkSecret } from './settings';
import { VerifyPage } from './pages';

/** A verification link's path segment: `atk_…` and its secret. */
const verifyLinkParam = z
  .string()
  .max(120)
  .regex(/^atk_[0-9a-z]+\.[0-9a-f]+$/);

/** Registers /auth/verify/… on the auth entry's app (its guards and session apply). */
export function registerVerificationRoutes(app: Hono<AppEnv>) {
  app.post('/auth/verify/send', async (c) => {
    const user = c.var.user;
    if (!user) return c.redirect('/auth/sign-in', 303);
    if (user.emailVerifiedAt !== null) return c.redirect('/account/security', 303);
    try {
      await sendVerificationAgain(c.var.db, user.id, c.var.services.mail.linkOrigin, clock.now());
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'rate_limited') throw error;
      for (const [name, value] of Object.entries(error.options.headers ?? {})) c.header(name, value);
      return c.html(<VerifyPage link="" email={user.email} error={error.detail} />, 429);
    }
    return c.redirect('/auth/verify/sent', 303);
  });

  // Where the posts end, so a reload sends nothing again.
  app.get('/auth/verify/sent', (c) => {
    const user = c.var.user;
    if (!user) return c.redirect('/auth/sign-in', 303);
    return c.html(<VerifyPage link="" email={user.email} sent />);
  });
  app.get('/auth/verify/done', (c) => c.html(<VerifyPage link="" done signedIn={c.var.user !== undefined} />));

  app.get('/auth/verify/:link', (c) => {
    const link = verifyLinkParam.safeParse(c.req.param('link'));
    if (!link.success) return c.html(<VerifyPage link="" invalid />, 404);
    return c.html(<VerifyPage link={link.data} />);
  });

  app.post('/auth/verify/:link', async (c) => {
    const link = verifyLinkParam.safeParse(c.req.param('link'));
    const outcome = link.success
      ? await verifyEmail(
          c.var.db,
          { secret: linkSecret(c), link: link.data, requestId: c.var.services.requestId },
          clock.now(),
        )
      : 'invalid';
    if (outcome === 'invalid') return c.html(<VerifyPage link="" invalid />, 404);
    return c.redirect('/auth/verify/done', 303);
  });
}
