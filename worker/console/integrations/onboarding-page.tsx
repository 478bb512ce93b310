/** @jsxImportSource hono/jsx */
/**
 * A business user's first step: name the organisation and its first workspace.
 */
import type { InvitationView } from '../../platform/identity';
import type { SessionUser } from '../../platform/identity';
import { Field, type FieldErrors } from '../shared/forms';
import { ConsoleLayout, InvitationsBanner } from '../shared/layout';

/** A business user's first step: name the organisation and its first workspace. */
export function OnboardingPage({
  user,
  errors = {},
  values = {},
  invitations = [],
  unverified = false,
}: {
  user: SessionUser;
  errors?: FieldErrors;
  values?: Record<string, string>;
  invitations?: InvitationView[];
  /** The form was sent before the address was confirmed: said beside it, with the link's button. */
  unverified?: boolean;
}) {
  return (
    <ConsoleLayout title="Set up your organisation" user={user}>
      <div class="narrow">
        <InvitationsBanner count={invitations.length} />
        <h1>Set up your organisation</h1>
        <p class="lead">
          Your organisation holds workspaces; a workspace holds your channels, keys and team. You will be its owner.
        </p>
        <form method="post" action="/onboarding/workspace" class="card stack">
          <Field
            name="organization_name"
            label="Organisation name"
            value={values.organization_name}
            errors={errors}
            required
            maxlength={120}
          />
          <Field
            name="workspace_name"
            label="First workspace"
            value={values.workspace_name ?? 'Production'}
            errors={errors}
            required
            maxlength={120}
            hint="For example Production, or the name of a brand."
          />
          {unverified ? (
            <p class="field-error" id="unverified-error" role="alert">
              Confirm your email address first: follow the link we sent to {user.email}, then create the organisation.
              Your names stay here.
            </p>
          ) : null}
          <button type="submit" class="button primary" aria-describedby={unverified ? 'unverified-error' : undefined}>
            Create organisation
          </button>
        </form>
        {unverified ? (
          <form method="post" action="/auth/verify/send" class="inline">
            <button type="submit" class="button">
              Send the link again
            </button>
          </form>
        ) : null}
      </div>
    </ConsoleLayout>
  );
}
