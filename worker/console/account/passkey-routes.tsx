/** @jsxImportSource hono/jsx */
/**
 * The account's passkeys (docs/design/identity-and-access.md#passkeys): the security page's
 * script asks for the options and posts the browser's answer with the passkey's name; renaming
 * is a form, and removing one asks for the password again.
 */
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../env';
import { clock } from '../../lib/clock';
import { ApiError } from '../../lib/errors';
import {
  addPasskey,
  passkeyRegistrationOptions,
  removePasskey,
  renamePasskey,
  type SecurityEventKind,
} from '../../platform/identity';
import { relyingParty } from '../auth/settings';
import { readForm } from '../shared/form-input';
import { currentUser } from '../shared/session';
import type { SecurityPageProps } from './pages';

/** What the security page's routes share with these. */
export interface SecurityPageTools {
  page(c: Context<AppEnv>, extra?: Partial<SecurityPageProps>, status?: 200 | 401 | 409 | 422): Promise<Response>;
  passwordConfirmed(c: Context<AppEnv>, password: string | undefined): Promise<boolean>;
  record(c: Context<AppEnv>, kind: SecurityEventKind): Promise<void>;
  /** Whether the session proved its owner within 5 minutes: adding a passkey asks for it. */
  confirmedRecently(c: Context<AppEnv>): Promise<boolean>;
}

const NEEDS_PASSWORD = 'Type your password first: adding a way to sign in asks for it.';

const passkeyName = z.string().trim().min(1, 'Give it a name.').max(60, 'At most 60 characters.');
const addForm = z.object({ name: passkeyName, answer: z.string().min(2).max(40_000) });

/** Registers the passkey routes of /account/security. */
export function registerPasskeyRoutes(app: Hono<AppEnv>, tools: SecurityPageTools) {
  app.post('/account/security/passkeys/options', async (c) => {
    const user = currentUser(c);
    if (!(await tools.confirmedRecently(c))) return c.json({ error: NEEDS_PASSWORD }, 401);
    try {
      return c.json(await passkeyRegistrationOptions(c.var.db, user, relyingParty(c), clock.now()));
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'conflict') throw error;
      return c.json({ error: error.detail }, 409);
    }
  });

  app.post('/account/security/passkeys', async (c) => {
    const user = currentUser(c);
    const form = addForm.safeParse(await readForm(c));
    if (!form.success)
      return tools.page(c, { fieldErrors: { name: form.error.issues[0]?.message ?? 'Give it a name.' } }, 422);
    if (!(await tools.confirmedRecently(c)))
      return tools.page(c, { fieldErrors: { confirm_password: NEEDS_PASSWORD } }, 401);
    try {
      await addPasskey(c.var.db, user.id, form.data, relyingParty(c), clock.now());
    } catch (error) {
      if (!(error instanceof ApiError) || (error.code !== 'invalid_credentials' && error.code !== 'conflict'))
        throw error;
      return tools.page(c, { error: error.detail }, error.status as 401 | 409);
    }
    await tools.record(c, 'passkey_added');
    return c.redirect('/account/security?notice=passkey_added', 303);
  });

  app.post('/account/security/passkeys/:id/rename', async (c) => {
    const name = passkeyName.safeParse((await readForm(c)).name);
    if (!name.success) return tools.page(c, { error: name.error.issues[0]?.message ?? 'Give it a name.' }, 422);
    if (!(await renamePasskey(c.var.db, currentUser(c).id, c.req.param('id'), name.data)))
      throw new ApiError('not_found', 'No such passkey on this account.');
    return c.redirect('/account/security?notice=saved', 303);
  });

  app.post('/account/security/passkeys/:id/remove', async (c) => {
    if (!(await tools.passwordConfirmed(c, (await readForm(c)).passkey_password)))
      return tools.page(c, { fieldErrors: { passkey_password: 'That is not your password.' } }, 401);
    // Another account's passkey is never matched: it is looked for among this account's only.
    if (!(await removePasskey(c.var.db, currentUser(c).id, c.req.param('id'))))
      throw new ApiError('not_found', 'No such passkey on this account.');
    await tools.record(c, 'passkey_removed');
    return c.redirect('/account/security?notice=passkey_removed', 303);
  });
}
