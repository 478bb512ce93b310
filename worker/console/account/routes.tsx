/** @jsxImportSource hono/jsx */
/**
 * `/account/security`: the signed-in account's second factor (docs/design/identity-and-access.md).
 * Plain forms with the console's CSRF check; turning the factor off asks for the password again.
 */
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../env';
import { clock } from '../../lib/clock';
import { ApiError } from '../../lib/errors';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { decryptSecret, encryptSecret } from '../../lib/secrets';
import {
  cancelTotpEnrolment,
  changeEmail,
  markSessionConfirmed,
  pendingEnrolment,
  sessionRecentlyConfirmed,
  listPasskeys,
  type SecurityEventKind,
  confirmTotp,
  deviceOf,
  listSessions,
  recentSecurityEvents,
  recordSecurityEvent,
  readSessionToken,
  removeSecondFactor,
  revokeOtherSessions,
  revokeSessionByHandle,
  secondFactorStatus,
  signIn,
  startTotpEnrolment,
} from '../../platform/identity';
import { newPageApp } from '../shared/app';
import { readForm } from '../shared/form-input';
import { noticeOf } from '../shared/notices';
import { passkeysUnavailable, placeOf } from '../auth/settings';
import { consolePageGuards, currentUser } from '../shared/session';
import { SecurityPage, type SecurityPageProps } from './pages';
import { registerPasskeyRoutes } from './passkey-routes';

/** The key that encrypts factors at rest. */
function secretsKey(c: Context<AppEnv>): string {
  const key = c.var.settings.SECRETS_KEY;
  if (!key) throw new ApiError('service_unavailable', 'Two-step sign-in needs SECRETS_KEY on this deployment.');
  return key;
}

/** Whether this session may add a credential now: signed in, or the password typed again, within 5 minutes. */
const confirmedRecently = (c: Context<AppEnv>) => sessionRecentlyConfirmed(c.var.db, readSessionToken(c), clock.now());

async function page(c: Context<AppEnv>, extra: Partial<SecurityPageProps> = {}, status: 200 | 401 | 409 | 422 = 200) {
  const user = currentUser(c);
  const [factor, sessions, events, passkeys, confirmed] = await Promise.all([
    secondFactorStatus(c.var.db, user.id),
    listSessions(c.var.db, user.id, readSessionToken(c)),
    recentSecurityEvents(c.var.db, user.id),
    listPasskeys(c.var.db, user.id),
    confirmedRecently(c),
  ]);
  // The key of an app being set up is shown again until a code is right, to its confirmed owner only.
  const enrolment = factor.pending && confirmed ? await pendingEnrolment(c.var.db, secretsKey(c), user) : undefined;
  return c.html(
    <SecurityPage
      user={user}
      status={factor}
      sessions={sessions}
      events={events}
      passkeys={passkeys}
      confirmed={confirmed}
      passkeyNote={passkeysUnavailable(c)}
      {...(enrolment ? { enrolment } : {})}
      {...extra}
    />,
    status,
  );
}

/** Recovery codes between the POST that made them and the page that shows them once (encrypted, 5 minutes). */
const CODES_COOKIE = 'egw_codes';
const codesCookieOptions = (c: Context<AppEnv>) => ({
  httpOnly: true,
  secure: new URL(c.req.url).protocol === 'https:',
  sameSite: 'Strict' as const,
  path: '/account/security',
  maxAge: 300,
});

/** The recovery codes just made, if this browser holds them; they are shown once and forgotten. */
async function takeShownCodes(c: Context<AppEnv>): Promise<string[] | undefined> {
  const sealed = getCookie(c, CODES_COOKIE);
  if (!sealed) return undefined;
  deleteCookie(c, CODES_COOKIE, { path: '/account/security' });
  try {
    const codes = JSON.parse(await decryptSecret(sealed, secretsKey(c))) as unknown;
    return Array.isArray(codes) ? codes.filter((code): code is string => typeof code === 'string') : undefined;
  } catch {
    return undefined;
  }
}

const needsConfirmation = 'Type your password first: adding a way to sign in asks for it.';

/**
 * The signed-in person typed the account's password again (to turn a factor off, change the
 * email, remove a passkey): checked as a sign-in is, so its failures count against the account.
 */
async function passwordConfirmed(c: Context<AppEnv>, password: string | undefined): Promise<boolean> {
  const pepper = c.var.settings.PASSWORD_PEPPER;
  if (!pepper || !password || password.length > 1000) return false;
  try {
    await signIn(c.var.db, pepper, {
      email: currentUser(c).email,
      password,
      clientIp: c.req.header('CF-Connecting-IP') ?? 'unknown',
    });
    // The owner proved who they are in this session just now: a credential may be added for 5 minutes.
    await markSessionConfirmed(c.var.db, readSessionToken(c), clock.now());
    return true;
  } catch (error) {
    if (error instanceof ApiError && (error.code === 'invalid_credentials' || error.code === 'too_many_attempts'))
      return false;
    throw error;
  }
}

/** Records what the page just did, where from, and emails the account when it is worth telling. */
async function record(c: Context<AppEnv>, kind: SecurityEventKind) {
  await recordSecurityEvent(
    c.var.db,
    {
      userId: currentUser(c).id,
      kind,
      where: { device: deviceOf(c.req.header('User-Agent')), place: c.req.header('CF-IPCountry')?.slice(0, 2) ?? null },
      linkOrigin: c.var.services.mail.linkOrigin,
    },
    clock.now(),
  );
}

const changeEmailForm = z.object({
  email: z.string().trim().max(254).pipe(z.email('Enter a valid email address.')),
  email_password: z.string().min(1).max(1000),
});

/** The account's security routes. */
export function accountRoutes() {
  const app = newPageApp();
  app.use('/account/*', ...consolePageGuards);

  app.get('/account/security', async (c) => {
    const codes = await takeShownCodes(c);
    return page(c, { notice: noticeOf(c), ...(codes ? { codes } : {}) });
  });

  // The password typed again: for 5 minutes this session may add a passkey or an authenticator app.
  app.post('/account/security/confirm', async (c) => {
    if (!(await passwordConfirmed(c, (await readForm(c)).confirm_password)))
      return page(c, { fieldErrors: { confirm_password: 'That is not your password.' } }, 401);
    return c.redirect('/account/security?notice=confirmed', 303);
  });

  app.post('/account/security/totp', async (c) => {
    const user = currentUser(c);
    const password = (await readForm(c)).password;
    if (!(await confirmedRecently(c)) && !(await passwordConfirmed(c, password)))
      return page(c, { fieldErrors: { password: password ? 'That is not your password.' : needsConfirmation } }, 401);
    try {
      await startTotpEnrolment(c.var.db, secretsKey(c), user, clock.now());
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'conflict') throw error;
      return page(c, { error: error.detail }, 409);
    }
    return c.redirect('/account/security?notice=totp_started#factor-title', 303);
  });

  app.post('/account/security/totp/cancel', async (c) => {
    await cancelTotpEnrolment(c.var.db, currentUser(c).id);
    return c.redirect('/account/security?notice=totp_cancelled', 303);
  });

  app.post('/account/security/totp/confirm', async (c) => {
    const user = currentUser(c);
    const code = z
      .string()
      .trim()
      .max(20)
      .safeParse((await readForm(c)).code);
    if (!(await confirmedRecently(c))) return page(c, { fieldErrors: { confirm_password: needsConfirmation } }, 401);
    try {
      const codes = await confirmTotp(c.var.db, secretsKey(c), user.id, code.data ?? '', clock.now());
      await record(c, 'factor_on');
      setCookie(c, CODES_COOKIE, await encryptSecret(JSON.stringify(codes), secretsKey(c)), codesCookieOptions(c));
      // The recovery codes' box says it is on: no notice above it.
      return c.redirect('/account/security#factor-title', 303);
    } catch (error) {
      if (!(error instanceof ApiError) || (error.code !== 'validation_failed' && error.code !== 'conflict'))
        throw error;
      // The same key and the code box stay, with the reason beside the field.
      return page(
        c,
        error.code === 'conflict' ? { error: error.detail } : { fieldErrors: { code: error.detail } },
        error.status as 409 | 422,
      );
    }
  });

  app.post('/account/security/totp/remove', async (c) => {
    const user = currentUser(c);
    if (!(await passwordConfirmed(c, (await readForm(c)).password)))
      return page(c, { fieldErrors: { password: 'That is not your password.' } }, 401);
    await removeSecondFactor(c.var.db, user.id);
    await record(c, 'factor_off');
    return c.redirect('/account/security?notice=factor_off', 303);
  });

  registerPasskeyRoutes(app, { page, passwordConfirmed, record, confirmedRecently });

  app.post('/account/security/email', async (c) => {
    const user = currentUser(c);
    const form = await readForm(c);
    const fields = changeEmailForm.safeParse(form);
    if (!fields.success)
      return page(c, { fieldErrors: { email: fields.error.issues[0]?.message ?? 'Enter an address.' } }, 422);
    if (!(await passwordConfirmed(c, fields.data.email_password)))
      return page(c, { fieldErrors: { email_password: 'That is not your password.' } }, 401);
    try {
      await changeEmail(
        c.var.db,
        {
          userId: user.id,
          newEmail: fields.data.email,
          linkOrigin: c.var.services.mail.linkOrigin,
          where: placeOf(c),
        },
        clock.now(),
      );
    } catch (error) {
      if (!(error instanceof ApiError) || (error.code !== 'validation_failed' && error.code !== 'email_taken'))
        throw error;
      return page(c, { fieldErrors: { email: error.detail } }, error.status as 409 | 422);
    }
    return c.redirect('/account/security?notice=email_changed', 303);
  });

  app.post('/account/security/sessions/others/end', async (c) => {
    const user = currentUser(c);
    const token = readSessionToken(c);
    const ended = token ? await revokeOtherSessions(c.var.db, user.id, token) : 0;
    if (ended > 0) await record(c, 'sessions_ended');
    return c.redirect(`/account/security?notice=${ended > 0 ? 'sessions_ended' : 'no_other_sessions'}`, 303);
  });

  app.post('/account/security/sessions/:handle/end', async (c) => {
    const user = currentUser(c);
    // Another account's session is never matched: the handle is looked for among this account's only.
    const ended = await revokeSessionByHandle(c.var.db, user.id, c.req.param('handle'));
    return c.redirect(`/account/security?notice=${ended ? 'session_ended' : 'session_gone'}`, 303);
  });

  return app;
}
