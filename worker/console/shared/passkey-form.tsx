/** @jsxImportSource hono/jsx */
import type { Child } from 'hono/jsx';

/**
 * A passkey's button: a plain form whose answer the page's script fills in after the browser's
 * ceremony. Hidden until the script finds the browser can use passkeys.
 */
export function PasskeyForm(props: {
  action: string;
  options: string;
  ceremony: 'get' | 'create';
  label: string;
  returnTo?: string | undefined;
  /** Why passkeys cannot work here (an IP address): said instead of a button that would fail. */
  unavailable?: string | undefined;
  children?: Child;
}) {
  if (props.unavailable)
    return (
      <p class="hint passkey-unavailable" role="note">
        {props.unavailable}
      </p>
    );
  return (
    <form
      method="post"
      action={props.action}
      class="stack passkey-form"
      data-passkey-options={props.options}
      data-passkey-ceremony={props.ceremony}
      hidden
    >
      {props.children}
      <input type="hidden" name="answer" value="" />
      {props.returnTo ? <input type="hidden" name="return_to" value={props.returnTo} /> : null}
      <button type="submit" class="button">
        {props.label}
      </button>
      <p class="field-error" role="alert" data-passkey-error></p>
    </form>
  );
}
