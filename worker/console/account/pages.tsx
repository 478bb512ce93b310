/** @jsxImportSource hono/jsx */
/**
 * The account's security page (`/account/security`, docs/design/identity-and-access.md): the
 * second factor, set up (the app's key and its link, then the first code, then the recovery codes
 * shown once) or removed with the password.
 */
import type { SecurityEventKind, SessionUser } from '../../platform/identity';
import { ConfirmPassword } from './confirm-password';
import { EmailSection } from './email-section';
import { type PasskeyRow, PasskeysSection } from './passkeys-section';
import { Field } from '../shared/forms';
import { ConsoleLayout, DataTable, when } from '../shared/layout';

/** An open session, as its owner's page lists it. */
export interface SessionRow {
  handle: string;
  device: string | null;
  place: string | null;
  createdAt: number;
  lastSeenAt: number;
  current: boolean;
}

/** A security event, as the page lists it. */
export interface EventRow {
  kind: SecurityEventKind;
  device: string | null;
  place: string | null;
  createdAt: number;
}

const EVENT_LABELS: Record<EventRow['kind'], string> = {
  signed_in: 'Signed in',
  sign_in_failed: 'A sign-in failed (wrong password)',
  password_reset: 'Password reset by email link',
  factor_on: 'Two-step sign-in turned on',
  factor_off: 'Two-step sign-in turned off',
  sessions_ended: 'Other sessions signed out',
  email_verified: 'Email address confirmed',
  email_changed: 'Sign-in email changed',
  passkey_added: 'Passkey added',
  passkey_removed: 'Passkey removed',
};

export interface SecurityPageProps {
  user: SessionUser;
  sessions: SessionRow[];
  events: EventRow[];
  passkeys: PasskeyRow[];
  status: { confirmedAt: number | null; pending: boolean; codesLeft: number };
  /** The session proved its owner within 5 minutes (a sign-in, or the password again): it may add credentials. */
  confirmed: boolean;
  /** Why passkeys cannot work on this page's address, when they cannot. */
  passkeyNote?: string | undefined;
  /** While setting up: the key to add to the app, and its otpauth URI. */
  enrolment?: { key: string; uri: string };
  /** Just confirmed: the recovery codes, shown this once. */
  codes?: string[];
  notice?: string;
  error?: string;
  fieldErrors?: Record<string, string>;
}

/** The account's security page. */
export function SecurityPage(props: SecurityPageProps) {
  const { status } = props;
  return (
    <ConsoleLayout
      title="Account security"
      user={props.user}
      notice={props.notice}
      error={props.error}
      scripts={['/embed/passkeys.js']}
    >
      <h1>Account security</h1>
      <EmailSection user={props.user} fieldErrors={props.fieldErrors} />
      <section class="card" aria-labelledby="factor-title">
        <h2 id="factor-title">Two-step sign-in</h2>
        {props.codes ? (
          <div class="alert success" role="status">
            <p>
              <strong>Two-step sign-in is on.</strong> Keep these recovery codes somewhere safe: each signs you in once
              if you lose the app. They are shown only now.
            </p>
            <ul class="recovery-codes">
              {props.codes.map((code) => (
                <li>
                  <code>{code}</code>
                </li>
              ))}
            </ul>
          </div>
        ) : null}
        {status.confirmedAt ? (
          <>
            <p>
              On since {when(status.confirmedAt)}: signing in asks for a code from your authenticator app.
              {` ${status.codesLeft} recovery code${status.codesLeft === 1 ? '' : 's'} left.`}
            </p>
            <form method="post" action="/account/security/totp/remove" class="stack">
              <Field
                id="remove-password"
                name="password"
                label="Your password, to turn it off"
                type="password"
                autocomplete="current-password"
                required
                errors={props.fieldErrors}
              />
              <p>
                <button type="submit" class="button danger">
                  Turn two-step sign-in off
                </button>
              </p>
            </form>
          </>
        ) : props.enrolment ? (
          <>
            <p>
              Add this key to your authenticator app (or open the link on the device that has the app), then type the
              6-digit code it shows. The key stays the same until a code is right or you cancel.
            </p>
            <p>
              Key: <code id="totp-key">{props.enrolment.key}</code>
            </p>
            <p>
              <a href={props.enrolment.uri}>Open in the authenticator app</a>
            </p>
            <form method="post" action="/account/security/totp/confirm" class="stack">
              <Field
                id="totp-code"
                name="code"
                label="Code from the app"
                autocomplete="one-time-code"
                required
                errors={props.fieldErrors}
              />
              <p>
                <button type="submit" class="button primary">
                  Turn two-step sign-in on
                </button>
              </p>
            </form>
            <CancelEnrolment />
          </>
        ) : status.pending ? (
          <>
            <p>You started setting up an authenticator app. Type your password to see its key again and finish.</p>
            <ConfirmPassword id="confirm-app" fieldErrors={props.fieldErrors} />
            <CancelEnrolment />
          </>
        ) : (
          <>
            <p>
              {props.passkeys.length > 0
                ? 'No authenticator app: after your password, signing in asks for your passkey. An app adds a ' +
                  'second way in, with recovery codes.'
                : 'Off. With it on, signing in also asks for a code from an authenticator app on your phone.'}
            </p>
            <form method="post" action="/account/security/totp" class="stack">
              {props.confirmed ? null : (
                <Field
                  id="totp-password"
                  name="password"
                  label="Your password, to set it up"
                  type="password"
                  autocomplete="current-password"
                  required
                  errors={props.fieldErrors}
                />
              )}
              <p>
                <button type="submit" class="button primary">
                  Set up an authenticator app
                </button>
              </p>
            </form>
          </>
        )}
      </section>
      <PasskeysSection
        passkeys={props.passkeys}
        fieldErrors={props.fieldErrors}
        confirmed={props.confirmed}
        passkeyNote={props.passkeyNote}
      />
      <Sessions sessions={props.sessions} />
      <section class="card" aria-labelledby="events-title">
        <h2 id="events-title">Recent security events</h2>
        {props.events.length === 0 ? (
          <p>None yet.</p>
        ) : (
          <DataTable
            rows={props.events}
            columns={[
              { header: 'What', rowHeader: true, cell: (event) => EVENT_LABELS[event.kind] },
              { header: 'Device', cell: (event) => event.device ?? 'Unknown' },
              { header: 'Country', cell: (event) => event.place ?? 'Unknown' },
              { header: 'When', class: 'nowrap', cell: (event) => when(event.createdAt) },
            ]}
          />
        )}
      </section>
    </ConsoleLayout>
  );
}

/** Stops setting up an app: its key no longer works. */
function CancelEnrolment() {
  return (
    <form method="post" action="/account/security/totp/cancel">
      <button type="submit" class="button small">
        Cancel setting up the app
      </button>
    </form>
  );
}

/** Where the account is signed in, with a way to end each other session, or all of them. */
function Sessions({ sessions }: { sessions: SessionRow[] }) {
  const others = sessions.filter((session) => !session.current).length;
  return (
    <section class="card" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Where you are signed in</h2>
      <DataTable
        rows={sessions}
        rowId={(session) => `session-${session.handle}`}
        columns={[
          {
            header: 'Device',
            rowHeader: true,
            cell: (session) => (
              <>
                {session.device ?? 'Unknown device'}
                {session.current ? <span class="pill"> this device</span> : null}
              </>
            ),
          },
          { header: 'Country', cell: (session) => session.place ?? 'Unknown' },
          { header: 'Signed in', class: 'nowrap', cell: (session) => when(session.createdAt) },
          { header: 'Last seen', class: 'nowrap', cell: (session) => when(session.lastSeenAt) },
          {
            header: 'Actions',
            headerHidden: true,
            cell: (session) =>
              session.current ? null : (
                <form method="post" action={`/account/security/sessions/${session.handle}/end`}>
                  <button type="submit" class="button small">
                    Sign out<span class="sr-only"> {session.device ?? 'this session'}</span>
                  </button>
                </form>
              ),
          },
        ]}
      />
      {others > 0 ? (
        <form method="post" action="/account/security/sessions/others/end">
          <p>
            <button type="submit" class="button danger">
              Sign out every other session ({others})
            </button>
          </p>
        </form>
      ) : null}
    </section>
  );
}
