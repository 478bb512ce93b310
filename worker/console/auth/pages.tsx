/** @jsxImportSource hono/jsx */
/** The auth entry's pages: sign-up, sign-in and sign-out. Plain HTML forms; no script needed. */
import type { Child } from 'hono/jsx';
import { type ResetWays, WaysToRemove } from './reset-ways';

export type { ResetWays } from './reset-ways';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../lib/passwords';
import type { AccountRole } from '../../platform/identity';
import { Document } from '../shared/document';
import { PasskeyForm } from '../shared/passkey-form';
import { Field } from '../shared/forms';

function AuthShell({
  title,
  children,
  noReferrer,
  passkeys,
}: {
  title: string;
  children: Child;
  noReferrer?: boolean;
  /** The page offers a passkey: its script runs the browser's ceremony. */
  passkeys?: boolean;
}) {
  return (
    <Document title={`${title} · Edge Gateway`} bodyClass="auth-body" noReferrer={noReferrer}>
      <main class="auth-card" aria-labelledby="auth-title">
        <p class="auth-brand">Edge Gateway</p>
        <h1 id="auth-title">{title}</h1>
        {children}
      </main>
      {passkeys ? <script src="/embed/passkeys.js" defer></script> : null}
    </Document>
  );
}

function ErrorSummary({ message }: { message?: string }) {
  return message ? (
    <div class="alert error" role="alert">
      {message}
    </div>
  ) : null;
}

export interface SignUpValues {
  email?: string;
  role?: AccountRole;
  ref?: string;
  returnTo?: string;
}

/** The sign-up form, for a business or a provider. */
export function SignUpPage({
  values,
  error,
  fieldErrors = {},
}: {
  values: SignUpValues;
  error?: string;
  fieldErrors?: Record<string, string>;
}) {
  const role = values.role ?? 'business';
  return (
    <AuthShell title="Create your account">
      <ErrorSummary message={error} />
      <form method="post" action="/auth/sign-up" class="stack" novalidate={false}>
        <fieldset class="choice">
          <legend>I am joining as</legend>
          <label class="option">
            <input type="radio" name="role" value="business" checked={role === 'business'} />
            <span>
              <strong>A business</strong>
              <span class="muted"> · add chat to my website and capture demand</span>
            </span>
          </label>
          <label class="option">
            <input type="radio" name="role" value="provider" checked={role === 'provider'} />
            <span>
              <strong>An expert or agent</strong>
              <span class="muted"> · receive and work on leads</span>
            </span>
          </label>
        </fieldset>
        <Field
          id="email"
          name="email"
          label="Email"
          type="email"
          autocomplete="email"
          required
          value={values.email}
          errors={fieldErrors}
        />
        <Field
          id="password"
          name="password"
          label="Password"
          type="password"
          autocomplete="new-password"
          required
          minlength={PASSWORD_MIN_LENGTH}
          maxlength={PASSWORD_MAX_LENGTH}
          errors={fieldErrors}
          hint={`At least ${PASSWORD_MIN_LENGTH} characters; a long passphrase is best. Common passwords are refused.`}
        />
        {values.ref ? <input type="hidden" name="ref" value={values.ref} /> : null}
        {values.returnTo ? <input type="hidden" name="return_to" value={values.returnTo} /> : null}
        <button type="submit" class="button primary">
          Create account
        </button>
      </form>
      <p class="muted">
        Already have an account?{' '}
        <a href={`/auth/sign-in${values.returnTo ? `?return_to=${encodeURIComponent(values.returnTo)}` : ''}`}>
          Sign in
        </a>
      </p>
    </AuthShell>
  );
}

/** The sign-in form. */
export function SignInPage({
  email,
  returnTo,
  error,
  notice,
  passkeyNote,
}: {
  email?: string;
  returnTo?: string;
  error?: string;
  notice?: string;
  /** Why passkeys cannot work on this page's address, when they cannot. */
  passkeyNote?: string | undefined;
}) {
  return (
    <AuthShell title="Sign in" passkeys>
      <ErrorSummary message={error} />
      {notice ? (
        <div class="alert" role="status">
          {notice}
        </div>
      ) : null}
      <form method="post" action="/auth/sign-in" class="stack">
        <Field id="email" name="email" label="Email" type="email" autocomplete="email" required value={email} />
        <Field
          id="password"
          name="password"
          label="Password"
          type="password"
          autocomplete="current-password"
          required
        />
        {returnTo ? <input type="hidden" name="return_to" value={returnTo} /> : null}
        <button type="submit" class="button primary">
          Sign in
        </button>
      </form>
      <PasskeyForm
        action="/auth/passkey"
        options="/auth/passkey/options"
        ceremony="get"
        label="Use a passkey"
        returnTo={returnTo}
        unavailable={passkeyNote}
      />
      <p class="muted">
        <a href="/auth/forgot">Forgot your password?</a>
      </p>
      <p class="muted">
        New here? <a href="/auth/sign-up">Create an account</a>
      </p>
    </AuthShell>
  );
}

/** Confirms a sign-out (a GET never signs anyone out). */
export function SignOutPage({ email }: { email?: string }) {
  return (
    <AuthShell title="Sign out">
      {email ? (
        <form method="post" action="/auth/sign-out" class="stack">
          <p>
            You are signed in as <strong>{email}</strong>.
          </p>
          <button type="submit" class="button primary">
            Sign out
          </button>
        </form>
      ) : (
        <p>
          You are signed out. <a href="/auth/sign-in">Sign in</a>
        </p>
      )}
    </AuthShell>
  );
}

/** Asks for a reset link; after a request, says what happens, never whether the address has an account. */
export function ForgotPage({ email, sent, error }: { email?: string; sent?: boolean; error?: string }) {
  return (
    <AuthShell title="Reset your password">
      <ErrorSummary message={error} />
      {sent ? (
        <div class="alert success" role="status">
          If an account uses that address, a link to set a new password is on its way. It works once, for an hour.
          Nothing arrived? Check the spam folder, or ask again in a few minutes.
        </div>
      ) : null}
      <form method="post" action="/auth/forgot" class="stack">
        <Field id="email" name="email" label="Email" type="email" autocomplete="email" required value={email} />
        <button type="submit" class="button primary">
          Send the link
        </button>
      </form>
      <p class="muted">
        Remembered it? <a href="/auth/sign-in">Sign in</a>
      </p>
    </AuthShell>
  );
}

/** Sets a new password from a reset link, or says the link no longer works. */
/** The reset link's page: a new password, and the ways in its owner may remove with it. */
export function ResetPage({
  link,
  email,
  invalid,
  fieldErrors,
  ways,
}: {
  link: string;
  email?: string;
  invalid?: boolean;
  fieldErrors?: Record<string, string>;
  ways?: ResetWays;
}) {
  if (invalid)
    return (
      <AuthShell title="This link no longer works">
        <p>
          A reset link works once, for an hour, and the newest one only. <a href="/auth/forgot">Ask for a new link</a>.
        </p>
      </AuthShell>
    );
  return (
    <AuthShell title="Set a new password" noReferrer>
      <ErrorSummary message={fieldErrors ? 'Please check the form.' : undefined} />
      {email ? <p>For {email}. Every session of the account will be signed out.</p> : null}
      <form method="post" action={`/auth/reset/${link}`} class="stack">
        <Field
          id="password"
          name="password"
          label="New password"
          type="password"
          autocomplete="new-password"
          required
          minlength={PASSWORD_MIN_LENGTH}
          maxlength={PASSWORD_MAX_LENGTH}
          errors={fieldErrors}
          hint={`At least ${PASSWORD_MIN_LENGTH} characters; a long passphrase is best. Common passwords are refused.`}
        />
        {ways ? <WaysToRemove ways={ways} /> : null}
        <button type="submit" class="button primary">
          Set the password
        </button>
      </form>
    </AuthShell>
  );
}

/** Email verification: the link's page (a button confirms), its outcome, or "sent again". */
export function VerifyPage(props: {
  link: string;
  email?: string;
  invalid?: boolean;
  done?: boolean;
  signedIn?: boolean;
  sent?: boolean;
  error?: string;
}) {
  if (props.invalid)
    return (
      <AuthShell title="This link no longer works">
        <p>
          A confirmation link works once, for a day, and only for the address the account has now. Sign in and send a
          new one from the banner.
        </p>
        <p>
          <a href="/console">Open the console</a>
        </p>
      </AuthShell>
    );
  if (props.done)
    return (
      <AuthShell title="Your email is confirmed">
        <p>Thank you. You can create organisations, accept invitations, submit a profile and claim leads now.</p>
        <p>
          <a class="button primary" href={props.signedIn ? '/console' : '/auth/sign-in'}>
            {props.signedIn ? 'Open the console' : 'Sign in'}
          </a>
        </p>
      </AuthShell>
    );
  if (props.sent || props.error)
    return (
      <AuthShell title="Confirm your email address">
        <ErrorSummary message={props.error} />
        {props.sent ? (
          <p role="status">
            We sent a new link to {props.email}. It works for a day; look in the spam folder if it does not arrive.
          </p>
        ) : null}
        <p>
          <a href="/console">Back to the console</a>
        </p>
      </AuthShell>
    );
  return (
    <AuthShell title="Confirm your email address" noReferrer>
      <p>One click confirms the address this link was sent to.</p>
      <form method="post" action={`/auth/verify/${props.link}`}>
        <button type="submit" class="button primary">
          Confirm my email
        </button>
      </form>
    </AuthShell>
  );
}

/** The second step of signing in: a code from the authenticator app, or a recovery code. */
export function SecondFactorPage({
  returnTo,
  error,
  totp = true,
  passkey = false,
  passkeyNote,
}: {
  returnTo?: string | undefined;
  error?: string;
  totp?: boolean;
  passkey?: boolean;
  /** Why passkeys cannot work on this page's address, when they cannot. */
  passkeyNote?: string | undefined;
}) {
  return (
    <AuthShell title={totp ? 'Enter your code' : 'Use your passkey'} passkeys={passkey}>
      <ErrorSummary message={error} />
      {totp ? (
        <form method="post" action="/auth/second-factor" class="stack">
          <Field
            id="code"
            name="code"
            label="Code from your authenticator app"
            autocomplete="one-time-code"
            required
            hint="Lost the app? Type one of your recovery codes instead."
          />
          {returnTo ? <input type="hidden" name="return_to" value={returnTo} /> : null}
          <button type="submit" class="button primary">
            Sign in
          </button>
        </form>
      ) : null}
      {passkey ? (
        <PasskeyForm
          action="/auth/second-factor/passkey"
          options="/auth/second-factor/passkey/options"
          ceremony="get"
          label={totp ? 'Use a passkey instead' : 'Use your passkey'}
          returnTo={returnTo}
          unavailable={passkeyNote}
        />
      ) : null}
      {!totp ? <noscript>A passkey needs JavaScript in this browser.</noscript> : null}
      <p class="muted">
        <a href="/auth/sign-in">Start again</a>
      </p>
    </AuthShell>
  );
}
