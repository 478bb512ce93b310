/** /docs/accounts: signing in and keeping an account safe: passwords, two-step sign-in, passkeys, sessions. */
import { blocks, table } from '../text';
import type { DocsPageSource } from './context';

export const accountsPage: DocsPageSource = {
  slug: 'accounts',
  title: 'Account security',
  summary: 'Passwords, email confirmation, two-step sign-in with an app or a passkey, sessions and security events.',
  markdown: (context) =>
    blocks(
      'Site owners, their teams and experts sign in to the console with an email address and a password, and ' +
        'may add a second step: an authenticator app or a passkey. Everything below is on your account’s ' +
        `[security page](${context.consoleUrl}/account/security), linked from your email in the console’s top bar.`,
      '## Passwords and your address {#passwords}',
      table(
        ['What', 'How it works'],
        [
          [
            'Password',
            '8 to 128 characters; common passwords, your email address and repeated characters are refused. ' +
              'Stored only as a salted, peppered PBKDF2 hash.',
          ],
          [
            'Confirming your address',
            'Sign-up emails a link; until it is followed, the console works but you cannot create an ' +
              'organisation, accept an invitation, send a provider profile to review or claim a lead.',
          ],
          [
            'Forgot your password',
            'The sign-in page’s link emails a reset link, valid an hour and once. Setting the new password signs ' +
              'out every session, and the page lets you remove passkeys and an app you do not recognise.',
          ],
          [
            'Too many tries',
            '5 wrong passwords for an account, or 20 from one place, in 15 minutes: sign-in waits until the ' +
              'window closes, and says how long.',
          ],
        ],
      ),
      '## Two-step sign-in {#two-step}',
      'With an **authenticator app** (any TOTP app: 6 digits every 30 seconds), the password alone no longer ' +
        'signs you in: the app’s code, or one of the 10 recovery codes shown once when you turn it on, is asked ' +
        'next. A wrong first code while setting it up keeps the same key (your app already holds it). Turning it ' +
        'off asks for your password. An organisation’s owners may require two-step sign-in of every member on ' +
        'the Team page; platform administrators always need it.',
      '**Passkeys** sign you in with your device’s lock (a fingerprint, a face, a PIN), alone or as the second ' +
        'step after the password; add up to 10, each named. Adding a passkey or an app asks for your password ' +
        'again when you signed in more than 5 minutes ago, so a borrowed session cannot add one. Browsers take ' +
        'passkeys only on a site’s name: running the platform yourself, open it at `http://localhost:8787`, ' +
        'not at an IP address (the pages say so where passkeys are unavailable).',
      '## Sessions and security events {#sessions}',
      'The security page lists where you are signed in (the device in a few words, the country, when it signed ' +
        'in and was last seen): sign out one, or every other. Below, your latest 20 security events: sign-ins, ' +
        'failed sign-ins, a reset, two-step sign-in turned on or off, passkeys added or removed, your address ' +
        'changed. You are emailed for each change to the account and for a sign-in from a new device. A session ' +
        'lasts 30 days while used.',
      '## API keys {#keys}',
      'API keys are not tied to a person: a platform administrator issues them for a workspace with the scopes ' +
        'a use needs; each is shown once, stored as a hash, and can be revoked at once ' +
        '([Boundaries](/docs/boundaries#provisioning)).',
    ),
};
