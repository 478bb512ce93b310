/** @jsxImportSource hono/jsx */
/** The reset page's offer: the account's passkeys and app, each with a box to remove it with the new password. */

/** The account's second ways in, which the reset page offers to remove with the new password. */
export interface ResetWays {
  /** When the authenticator app was turned on, if it is. */
  appSince: number | null;
  passkeys: { id: string; name: string; createdAt: number }[];
}

/** The boxes, when the account has a way in beyond its password. */
export function WaysToRemove({ ways }: { ways: ResetWays }) {
  if (ways.appSince === null && ways.passkeys.length === 0) return null;
  return (
    <fieldset class="stack">
      <legend>Also remove the ways in you do not recognise</legend>
      <p class="hint">
        A new password does not remove a passkey or an authenticator app. If someone else may have used your account,
        remove the ones you did not add.
      </p>
      {ways.appSince !== null ? (
        <label class="check">
          <input type="checkbox" name="remove_app" /> The authenticator app (on since{' '}
          {new Date(ways.appSince).toISOString().slice(0, 10)}) and its recovery codes
        </label>
      ) : null}
      {ways.passkeys.map((passkey) => {
        const added = new Date(passkey.createdAt).toISOString().slice(0, 10);
        return (
          <label class="check">
            <input type="checkbox" name="remove_passkeys" value={passkey.id} />
            {` The passkey “${passkey.name}” (added ${added})`}
          </label>
        );
      })}
    </fieldset>
  );
}
