/** @jsxImportSource hono/jsx */
/** The account's passkeys on its security page: added with the browser, renamed, removed with the password. */
import { Field } from '../shared/forms';
import { DataTable, when } from '../shared/layout';
import { PasskeyForm } from '../shared/passkey-form';
import { ConfirmPassword } from './confirm-password';

/** A passkey as the page lists it. */
export interface PasskeyRow {
  id: string;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
}

/** The passkeys section. */
export function PasskeysSection(props: {
  passkeys: PasskeyRow[];
  fieldErrors?: Record<string, string> | undefined;
  /** The session proved its owner within 5 minutes: a passkey may be added without the password. */
  confirmed: boolean;
  /** Why passkeys cannot work on this page's address, when they cannot. */
  passkeyNote?: string | undefined;
}) {
  const path = (passkey: PasskeyRow, action: string) =>
    `/account/security/passkeys/${encodeURIComponent(passkey.id)}/${action}`;
  return (
    <section class="card" aria-labelledby="passkeys-title">
      <h2 id="passkeys-title">Passkeys</h2>
      <p>
        A passkey signs you in with your device's screen lock, without a password, and stands as the second step after
        one. Nothing secret leaves the device.
      </p>
      {props.passkeys.length > 0 ? (
        <DataTable
          rows={props.passkeys}
          rowId={(passkey) => `passkey-${passkey.id}`}
          columns={[
            { header: 'Name', rowHeader: true, cell: (passkey) => passkey.name },
            { header: 'Added', class: 'nowrap', cell: (passkey) => when(passkey.createdAt) },
            {
              header: 'Last used',
              class: 'nowrap',
              cell: (passkey) => (passkey.lastUsedAt ? when(passkey.lastUsedAt) : 'Not yet'),
            },
            {
              header: 'Change',
              cell: (passkey) => (
                <details>
                  <summary>
                    Rename or remove<span class="sr-only"> {passkey.name}</span>
                  </summary>
                  <form method="post" action={path(passkey, 'rename')} class="stack">
                    <Field id={`rename-${passkey.id}`} name="name" label="New name" required maxlength={60} />
                    <button type="submit" class="button small">
                      Rename
                    </button>
                  </form>
                  <form method="post" action={path(passkey, 'remove')} class="stack">
                    <Field
                      id={`remove-${passkey.id}`}
                      name="passkey_password"
                      label="Your password, to remove it"
                      type="password"
                      autocomplete="current-password"
                      required
                      errors={props.fieldErrors}
                    />
                    <button type="submit" class="button small danger">
                      Remove
                    </button>
                  </form>
                </details>
              ),
            },
          ]}
        />
      ) : null}
      {props.passkeyNote ? (
        <p class="hint passkey-unavailable" role="note">
          {props.passkeyNote}
        </p>
      ) : props.confirmed ? (
        <PasskeyForm
          action="/account/security/passkeys"
          options="/account/security/passkeys/options"
          ceremony="create"
          label="Add a passkey"
        >
          <Field
            id="passkey-name"
            name="name"
            label="A name for it"
            value="My device"
            required
            maxlength={60}
            hint="For example Laptop or Phone, so you can tell them apart."
          />
        </PasskeyForm>
      ) : (
        <>
          <p>To add a passkey, type your password first.</p>
          <ConfirmPassword id="confirm-passkey" fieldErrors={props.fieldErrors} />
        </>
      )}
      <noscript>
        <p>Adding a passkey needs JavaScript in this browser.</p>
      </noscript>
    </section>
  );
}
