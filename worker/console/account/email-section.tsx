/** @jsxImportSource hono/jsx */
/** The account's sign-in address on its security page: confirmed or not, and changed with the password. */
import type { SessionUser } from '../../platform/identity';
import { Field } from '../shared/forms';
import { when } from '../shared/layout';

/** The address, whether it is confirmed, and the form that changes it. */
export function EmailSection(props: { user: SessionUser; fieldErrors?: Record<string, string> | undefined }) {
  const { user } = props;
  return (
    <section class="card" aria-labelledby="email-title">
      <h2 id="email-title">Sign-in email</h2>
      <p>
        {user.email}:{' '}
        {user.emailVerifiedAt === null
          ? 'not confirmed yet. Follow the link we sent, or send it again from the banner above.'
          : `confirmed ${when(user.emailVerifiedAt)}.`}
      </p>
      <details open={Boolean(props.fieldErrors?.email ?? props.fieldErrors?.email_password)}>
        <summary>Change the address</summary>
        <form method="post" action="/account/security/email" class="stack">
          <p>The new address is confirmed by a link sent to it; the old one is told of the change.</p>
          <Field
            id="new-email"
            name="email"
            label="New email"
            type="email"
            autocomplete="email"
            required
            errors={props.fieldErrors}
          />
          <Field
            id="email-password"
            name="email_password"
            label="Your password"
            type="password"
            autocomplete="current-password"
            required
            errors={props.fieldErrors}
          />
          <p>
            <button type="submit" class="button">
              Change the email
            </button>
          </p>
        </form>
      </details>
    </section>
  );
}
