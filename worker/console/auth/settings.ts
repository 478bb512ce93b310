/** What the auth pages need of the deployment's settings, and of the request. */
import type { Context } from 'hono';
import { type AppEnv, emailLinkOrigin } from '../../env';
import { ApiError } from '../../lib/errors';
import { deviceOf, type RelyingParty } from '../../platform/identity';

/** The password pepper; without it nobody signs in (503). */
export function requirePepper(c: Context<AppEnv>): string {
  const pepper = c.var.settings.PASSWORD_PEPPER;
  if (!pepper)
    throw new ApiError('service_unavailable', 'Sign-in is not configured on this deployment (PASSWORD_PEPPER).');
  return pepper;
}

/** What signs account links: the secrets key, else the pepper (as the emails that carry them are signed). */
export function linkSecret(c: Context<AppEnv>): string {
  return c.var.settings.SECRETS_KEY ?? requirePepper(c);
}

/** Where a request comes from, as an account's sessions and events show it. */
export function placeOf(c: Context<AppEnv>) {
  return { device: deviceOf(c.req.header('User-Agent')), place: c.req.header('CF-IPCountry')?.slice(0, 2) ?? null };
}

/**
 * The relying party of passkeys: the console's configured origin (CONSOLE_URL, else BASE_URL;
 * locally, the loopback origin), never a request's Host, so a relaying look-alike gets nothing.
 */
export function relyingParty(c: Context<AppEnv>): RelyingParty {
  const origin = emailLinkOrigin(c.var.settings, c.req.url);
  if (!origin) throw new ApiError('service_unavailable', 'Passkeys need CONSOLE_URL (or BASE_URL) on this deployment.');
  return { id: new URL(origin).hostname, origin, name: 'Edge Gateway' };
}

/** Whether a host is an IP address (v4, or v6 in brackets): WebAuthn takes none as a relying party. */
const isIpAddress = (host: string) => /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.startsWith('[');

/**
 * Why passkeys cannot work on this page, when they cannot: its relying party would be an IP
 * address (browsers refuse one), with the address to open instead when it is the loopback.
 */
export function passkeysUnavailable(c: Context<AppEnv>): string | undefined {
  let id: string;
  try {
    id = relyingParty(c).id;
  } catch {
    return undefined;
  }
  if (!isIpAddress(id)) return undefined;
  const here = new URL(c.req.url);
  const loopback = id === '127.0.0.1' || id === '[::1]';
  const instead = loopback ? `${here.protocol}//localhost${here.port ? `:${here.port}` : ''}${here.pathname}` : null;
  return (
    `Passkeys need the page's address to be a name: this page is at ${id}, an IP address, which browsers ` +
    `refuse for passkeys.${instead ? ` Open ${instead} to use one.` : ''}`
  );
}
