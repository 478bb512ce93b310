/** @jsxImportSource hono/jsx */
/**
 * Signing in with a passkey (docs/design/identity-and-access.md#passkeys): on the sign-in page,
 * without a password (the passkey verified its user: both factors), or as the second step after
 * one. The page's script (/embed/passkeys.js) asks for the options, runs the browser's ceremony
 * and posts its answer in a plain form; a browser without passkeys never sees the buttons.
 */
import type { Hono } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../env';
import { clock } from '../../lib/clock';
import { ApiError } from '../../lib/errors';
import { sha256Hex } from '../../lib/crypto';
import { takeSlotOrRefuse } from '../../lib/rate-limit';
import { passkeySignInOptions, pendingSignInUser, verifyPasskeySignIn } from '../../platform/identity';
import { readForm } from '../shared/form-input';
import { safeReturnTo } from '../shared/session';
import { SecondFactorPage, SignInPage } from './pages';
import { passkeysUnavailable, relyingParty } from './settings';
import { finishPendingSignIn, landingFor, pendingSignIn, startSession } from './sign-in-steps';

/** Options asked for per client in 15 minutes: each keeps a challenge for five. */
const OPTIONS_PER_CLIENT = 60;

const answerForm = z.object({ answer: z.string().min(2).max(40_000), return_to: z.string().max(2000).optional() });

/** Registers the passkey sign-in routes on the auth entry's app. */
export function registerPasskeySignIn(app: Hono<AppEnv>) {
  app.post('/auth/passkey/options', async (c) => {
    const client = (await sha256Hex(c.req.header('CF-Connecting-IP') ?? 'unknown')).slice(0, 32);
    await takeSlotOrRefuse(c.var.db, `passkey:ip:${client}`, clock.now(), {
      windowMs: 15 * 60 * 1000,
      max: OPTIONS_PER_CLIENT,
      detail: 'Too many passkey attempts. Try again in a few minutes.',
    });
    return c.json(await passkeySignInOptions(c.var.db, relyingParty(c), clock.now()));
  });

  app.post('/auth/passkey', async (c) => {
    const form = answerForm.safeParse(await readForm(c));
    const returnTo = safeReturnTo(form.data?.return_to, '') || undefined;
    try {
      if (!form.success) throw new ApiError('invalid_credentials', 'That passkey could not be checked. Try again.');
      const userId = await verifyPasskeySignIn(c.var.db, form.data.answer, relyingParty(c), clock.now());
      const user = await pendingSignInUser(c.var.db, userId);
      if (!user) throw new ApiError('invalid_credentials', 'That passkey could not be checked. Try again.');
      await startSession(c, user);
      return c.redirect(returnTo ?? (await landingFor(c, user)), 303);
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'invalid_credentials') throw error;
      return c.html(<SignInPage passkeyNote={passkeysUnavailable(c)} returnTo={returnTo} error={error.detail} />, 401);
    }
  });

  app.post('/auth/second-factor/passkey/options', async (c) => {
    const userId = await pendingSignIn(c);
    if (!userId) throw new ApiError('session_required', 'Sign in with your password first.');
    return c.json(await passkeySignInOptions(c.var.db, relyingParty(c), clock.now(), userId));
  });

  app.post('/auth/second-factor/passkey', async (c) => {
    const userId = await pendingSignIn(c);
    if (!userId) return c.redirect('/auth/sign-in', 303);
    const form = answerForm.safeParse(await readForm(c));
    const returnTo = safeReturnTo(form.data?.return_to, '') || undefined;
    try {
      if (!form.success) throw new ApiError('invalid_credentials', 'That passkey could not be checked. Try again.');
      await verifyPasskeySignIn(c.var.db, form.data.answer, relyingParty(c), clock.now(), userId);
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'invalid_credentials') throw error;
      return c.html(
        <SecondFactorPage
          passkeyNote={passkeysUnavailable(c)}
          returnTo={returnTo}
          totp={false}
          passkey
          error={error.detail}
        />,
        401,
      );
    }
    const user = await finishPendingSignIn(c, userId);
    if (!user) return c.redirect('/auth/sign-in', 303);
    return c.redirect(returnTo ?? (await landingFor(c, user)), 303);
  });
}
