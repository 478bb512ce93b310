/** @jsxImportSource hono/jsx */
import { Field } from '../shared/forms';

/**
 * The password typed again: for 5 minutes the session may add a passkey or an authenticator app
 * (a copied session cookie alone never can).
 */
export function ConfirmPassword(props: { id: string; fieldErrors?: Record<string, string> | undefined }) {
  return (
    <form method="post" action="/account/security/confirm" class="stack">
      <Field
        id={props.id}
        name="confirm_password"
        label="Your password"
        type="password"
        autocomplete="current-password"
        required
        errors={props.fieldErrors}
      />
      <p>
        <button type="submit" class="button">
          Confirm
        </button>
      </p>
    </form>
  );
}
