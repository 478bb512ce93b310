import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../env';
import { newPageApp } from '../shared/app';
import { ApiError } from '../../lib/errors';
import {
  hasSecondFactor,
  listPasskeys,
  MAX_PASSKEYS,
  secondFactorKinds,
  secondFactorStatus,
  readResetLink,
  recordFailedSignIn,
  requestPasswordReset,
  resetPassword,
  signIn,
  signUp,
  verifySecondFactor,
} from '../../platform/identity';
import { clock } from '../../lib/clock';
import { clearSessionCookie, readSessionToken, revokeSession } from '../../platform/identity';
import { formList, readForm } from '../shared/form-input';
import { linkSecret, passkeysUnavailable, placeOf, requirePepper } from './settings';
import { registerVerificationRoutes } from './verify-routes';
import { registerPasskeySignIn } from './passkey-routes';
import { finishPendingSignIn, landingFor, pendingSignIn, startPendingSignIn, startSession } from './sign-in-steps';
import { loadSession, pageGuards, safeReturnTo } from '../shared/session';
import {
  ForgotPage,
  ResetPage,
  type ResetWays,
  SecondFactorPage,
  SignInPage,
  SignOutPage,
  SignUpPage,
  type SignUpValues,
} from './pages';

const roleSchema = z.enum(['business', 'provider']);

const signUpForm = z.object({
  email: z.string().trim().max(254).pipe(z.email('Enter a valid email address.')),
  password: z.string().max(1000),
  role: roleSchema,
  ref: z
    .string()
    .max(64)
    .regex(/^[A-Za-z0-9_]*$/)
    .optional()
    .catch(undefined),
  return_to: z.string().max(2000).optional(),
});

const signInForm = z.object({
  email: z.string().trim().max(254),
  password: z.string().max(1000),
  return_to: z.string().max(2000).optional(),
});

const forgotForm = z.object({ email: z.string().trim().max(254).pipe(z.email('Enter a valid email address.')) });
const resetForm = z.object({
  password: z.string().max(1000),
  remove_app: z.literal('on').optional(),
  remove_passkeys: z.array(z.string().max(64)).max(MAX_PASSKEYS).default([]),
});
/** A reset link's path segment: `atk_…` and its secret. */
const resetLinkParam = z
  .string()
  .max(120)
  .regex(/^atk_[0-9a-z]+\.[0-9a-f]+$/);

/** The account's second ways in, as the reset page offers to remove them. */
async function waysIn(c: Context<AppEnv>, userId: string): Promise<ResetWays> {
  const [factor, passkeys] = await Promise.all([secondFactorStatus(c.var.db, userId), listPasskeys(c.var.db, userId)]);
  return {
    appSince: factor.confirmedAt,
    passkeys: passkeys.map(({ id, name, createdAt }) => ({ id, name, createdAt })),
  };
}

/** The auth entry ({auth_url}, default /auth). */
export function authRoutes() {
  const app = newPageApp();
  app.use('/auth/*', async (c, next) => {
    c.header('Cache-Control', 'no-store');
    await next();
  });
  app.use('/auth/*', ...pageGuards, loadSession);

  app.get('/auth', (c) => c.redirect('/auth/sign-in', 303));

  // Each role's home (the console's brand link): the workbench, operations, the workspace, review.
  app.use('/console', ...pageGuards, loadSession);
  app.get('/console', async (c) => {
    c.header('Cache-Control', 'no-store');
    return c.redirect(c.var.user ? await landingFor(c, c.var.user) : '/auth/sign-in', 303);
  });

  app.get('/auth/sign-up', async (c) => {
    const returnTo = safeReturnTo(c.req.query('return_to'), '') || undefined;
    if (c.var.user) return c.redirect(returnTo ?? (await landingFor(c, c.var.user)), 303);
    const role = roleSchema.safeParse(c.req.query('role'));
    const ref = c.req.query('ref');
    return c.html(
      <SignUpPage
        values={{
          role: role.success ? role.data : undefined,
          ref: ref && /^[A-Za-z0-9_]{1,64}$/.test(ref) ? ref : undefined,
          returnTo,
        }}
      />,
    );
  });

  app.post('/auth/sign-up', async (c) => {
    const form = await readForm(c);
    const parsed = signUpForm.safeParse(form);
    const values: SignUpValues = {
      email: form.email?.slice(0, 254),
      role: roleSchema.safeParse(form.role).data,
      ref: parsed.data?.ref,
      returnTo: safeReturnTo(form.return_to, '') || undefined,
    };
    if (!parsed.success) {
      const fieldErrors = Object.fromEntries(
        parsed.error.issues.map((issue) => [String(issue.path[0]), issue.message]),
      );
      return c.html(<SignUpPage values={values} error="Please check the form." fieldErrors={fieldErrors} />, 422);
    }
    try {
      const user = await signUp(c.var.db, requirePepper(c), {
        email: parsed.data.email,
        password: parsed.data.password,
        role: parsed.data.role,
        referredByChannelKey: parsed.data.ref,
        linkOrigin: c.var.services.mail.linkOrigin,
        clientIp: c.req.header('CF-Connecting-IP') ?? 'unknown',
      });
      await startSession(c, user);
      return c.redirect(values.returnTo ?? (await landingFor(c, user)), 303);
    } catch (error) {
      if (
        !(error instanceof ApiError) ||
        (error.code !== 'validation_failed' && error.code !== 'email_taken' && error.code !== 'rate_limited')
      )
        throw error;
      for (const [name, value] of Object.entries(error.options.headers ?? {})) c.header(name, value);
      const field = error.code === 'validation_failed' ? 'password' : 'email';
      return c.html(
        // The reason is said once, next to its field; the summary only points there.
        <SignUpPage values={values} error="Please check the form." fieldErrors={{ [field]: error.detail }} />,
        error.status as 409 | 422 | 429,
      );
    }
  });

  app.get('/auth/sign-in', async (c) => {
    const returnTo = safeReturnTo(c.req.query('return_to'), '') || undefined;
    if (c.var.user) return c.redirect(returnTo ?? (await landingFor(c, c.var.user)), 303);
    const notice = c.req.query('signed_out')
      ? 'You are signed out.'
      : c.req.query('password_reset')
        ? 'Your password is set, and every session of the account was signed out. Sign in with the new password.'
        : undefined;
    return c.html(<SignInPage passkeyNote={passkeysUnavailable(c)} returnTo={returnTo} notice={notice} />);
  });

  app.post('/auth/sign-in', async (c) => {
    const form = await readForm(c);
    const parsed = signInForm.safeParse(form);
    const returnTo = safeReturnTo(form.return_to, '') || undefined;
    const email = form.email?.slice(0, 254);
    if (!parsed.success)
      return c.html(
        <SignInPage
          passkeyNote={passkeysUnavailable(c)}
          email={email}
          returnTo={returnTo}
          error="Email or password is incorrect."
        />,
        401,
      );
    try {
      const user = await signIn(c.var.db, requirePepper(c), {
        email: parsed.data.email,
        password: parsed.data.password,
        clientIp: c.req.header('CF-Connecting-IP') ?? 'unknown',
      });
      // With a second factor, the password opens only a 5-minute pending sign-in: the code finishes it.
      if (await hasSecondFactor(c.var.db, user.id)) {
        await startPendingSignIn(c, user.id);
        return c.redirect(`/auth/second-factor${returnTo ? `?return_to=${encodeURIComponent(returnTo)}` : ''}`, 303);
      }
      await startSession(c, user);
      return c.redirect(returnTo ?? (await landingFor(c, user)), 303);
    } catch (error) {
      if (!(error instanceof ApiError) || (error.code !== 'invalid_credentials' && error.code !== 'too_many_attempts'))
        throw error;
      // The account's owner sees the failed attempt (nothing is written for an unknown address).
      if (error.code === 'invalid_credentials')
        await recordFailedSignIn(c.var.db, parsed.data.email, placeOf(c), clock.now());
      for (const [name, value] of Object.entries(error.options.headers ?? {})) c.header(name, value);
      return c.html(
        <SignInPage passkeyNote={passkeysUnavailable(c)} email={email} returnTo={returnTo} error={error.detail} />,
        error.status as 401 | 429,
      );
    }
  });

  app.get('/auth/second-factor', async (c) => {
    const userId = await pendingSignIn(c);
    if (!userId) return c.redirect('/auth/sign-in', 303);
    return c.html(
      <SecondFactorPage
        passkeyNote={passkeysUnavailable(c)}
        returnTo={safeReturnTo(c.req.query('return_to'), '') || undefined}
        {...(await secondFactorKinds(c.var.db, userId))}
      />,
    );
  });

  app.post('/auth/second-factor', async (c) => {
    const form = await readForm(c);
    const returnTo = safeReturnTo(form.return_to, '') || undefined;
    const userId = await pendingSignIn(c);
    if (!userId) return c.redirect('/auth/sign-in', 303);
    const kinds = await secondFactorKinds(c.var.db, userId);
    const key = c.var.settings.SECRETS_KEY;
    if (!key) throw new ApiError('service_unavailable', 'Two-step sign-in needs SECRETS_KEY on this deployment.');
    const code = z.string().trim().max(40).safeParse(form.code);
    try {
      if (!(await verifySecondFactor(c.var.db, key, userId, code.data ?? '', clock.now())))
        return c.html(
          <SecondFactorPage
            passkeyNote={passkeysUnavailable(c)}
            returnTo={returnTo}
            {...kinds}
            error="That code is not right. Try the next one."
          />,
          401,
        );
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'too_many_attempts') throw error;
      for (const [name, value] of Object.entries(error.options.headers ?? {})) c.header(name, value);
      return c.html(
        <SecondFactorPage passkeyNote={passkeysUnavailable(c)} returnTo={returnTo} {...kinds} error={error.detail} />,
        429,
      );
    }
    const user = await finishPendingSignIn(c, userId);
    if (!user) return c.redirect('/auth/sign-in', 303);
    return c.redirect(returnTo ?? (await landingFor(c, user)), 303);
  });

  app.get('/auth/forgot', (c) => c.html(<ForgotPage sent={c.req.query('sent') === '1'} />));

  app.post('/auth/forgot', async (c) => {
    const form = await readForm(c);
    const parsed = forgotForm.safeParse(form);
    const email = form.email?.slice(0, 254);
    if (!parsed.success)
      return c.html(<ForgotPage email={email} error={parsed.error.issues[0]?.message ?? 'Enter your email.'} />, 422);
    try {
      await requestPasswordReset(
        c.var.db,
        {
          email: parsed.data.email,
          clientIp: c.req.header('CF-Connecting-IP') ?? 'unknown',
          linkOrigin: c.var.services.mail.linkOrigin,
        },
        clock.now(),
      );
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'rate_limited') throw error;
      for (const [name, value] of Object.entries(error.options.headers ?? {})) c.header(name, value);
      return c.html(<ForgotPage email={email} error={error.detail} />, 429);
    }
    // The same answer whether or not the address has an account; a page of its own, so a reload asks nothing again.
    return c.redirect('/auth/forgot?sent=1', 303);
  });

  app.get('/auth/reset/:link', async (c) => {
    const link = resetLinkParam.safeParse(c.req.param('link'));
    const account = link.success ? await readResetLink(c.var.db, linkSecret(c), link.data, clock.now()) : undefined;
    if (!account) return c.html(<ResetPage link="" invalid />, 404);
    return c.html(<ResetPage link={link.data!} email={account.email} ways={await waysIn(c, account.userId)} />);
  });

  app.post('/auth/reset/:link', async (c) => {
    const link = resetLinkParam.safeParse(c.req.param('link'));
    const raw = await readForm(c);
    const form = resetForm.safeParse({ ...raw, remove_passkeys: formList(raw, 'remove_passkeys') });
    if (!link.success) return c.html(<ResetPage link="" invalid />, 404);
    const account = await readResetLink(c.var.db, linkSecret(c), link.data, clock.now());
    if (!account) return c.html(<ResetPage link="" invalid />, 404);
    const ways = await waysIn(c, account.userId);
    if (!form.success)
      return c.html(<ResetPage link={link.data} ways={ways} fieldErrors={{ password: 'Enter a password.' }} />, 422);
    try {
      const outcome = await resetPassword(
        c.var.db,
        {
          secret: linkSecret(c),
          pepper: requirePepper(c),
          link: link.data,
          password: form.data.password,
          requestId: c.var.services.requestId,
          linkOrigin: c.var.services.mail.linkOrigin,
          remove: { app: form.data.remove_app === 'on', passkeyIds: form.data.remove_passkeys },
        },
        clock.now(),
      );
      if (outcome === 'invalid') return c.html(<ResetPage link="" invalid />, 404);
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'validation_failed') throw error;
      return c.html(<ResetPage link={link.data} ways={ways} fieldErrors={{ password: error.detail }} />, 422);
    }
    // Every session of the account ended, this browser's too.
    clearSessionCookie(c);
    return c.redirect('/auth/sign-in?password_reset=1', 303);
  });

  registerVerificationRoutes(app);
  registerPasskeySignIn(app);

  app.get('/auth/sign-out', (c) => c.html(<SignOutPage email={c.var.user?.email} />));

  app.post('/auth/sign-out', async (c) => {
    const token = readSessionToken(c);
    if (token) await revokeSession(c.var.db, token);
    clearSessionCookie(c);
    return c.redirect('/auth/sign-in?signed_out=1', 303);
  });
  return app;
}
