/**
 * /embed/passkeys.js: the browser's passkey ceremonies for the sign-in, second-step and account
 * security pages. Each passkey form (data-passkey-options: where its options come from;
 * data-passkey-ceremony: `create` or `get`) is shown only where the browser has passkeys; on
 * submit, the options are fetched, the browser asks the person, and the form is posted with the
 * answer. The server checks everything; this only carries it.
 */
import { browserSupportsWebAuthn, startAuthentication, startRegistration } from '@simplewebauthn/browser';

const FORM_TYPE = { 'Content-Type': 'application/x-www-form-urlencoded' };

for (const form of document.querySelectorAll<HTMLFormElement>('form[data-passkey-options]')) {
  if (!browserSupportsWebAuthn()) continue;
  form.hidden = false;
  const error = form.querySelector<HTMLElement>('[data-passkey-error]');
  const answer = form.querySelector<HTMLInputElement>('input[name="answer"]');
  const button = form.querySelector<HTMLButtonElement>('button[type="submit"]');
  form.addEventListener('submit', async (event) => {
    if (answer?.value) return;
    event.preventDefault();
    if (error) error.textContent = '';
    if (button) button.disabled = true;
    try {
      const response = await fetch(form.dataset.passkeyOptions ?? '', { method: 'POST', headers: FORM_TYPE });
      const options = await response.json();
      if (!response.ok) throw new Error(options.error ?? options.detail ?? 'The passkey could not start.');
      const result =
        form.dataset.passkeyCeremony === 'create'
          ? await startRegistration({ optionsJSON: options })
          : await startAuthentication({ optionsJSON: options });
      if (answer) answer.value = JSON.stringify(result);
      form.submit();
    } catch (failure) {
      if (error)
        error.textContent =
          failure instanceof Error && failure.name === 'NotAllowedError'
            ? 'The passkey was not used (cancelled or timed out). Try again.'
            : failure instanceof Error
              ? failure.message
              : 'The passkey did not work. Try again.';
      if (button) button.disabled = false;
    }
  });
}
