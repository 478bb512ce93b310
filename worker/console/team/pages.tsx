/** @jsxImportSource hono/jsx */
/** The team page (members, open invitations, invite form) and the invitee's invitations page. */
import { roleMay } from '../../platform/access';
import { WORKSPACE_ROLES, type WorkspaceRole } from '../../vocabulary';
import type { InvitationView } from '../../platform/identity';
import type { SessionUser } from '../../platform/identity';
import { Field, Select, type FieldErrors } from '../shared/forms';
import {
  ConsoleLayout,
  DataTable,
  when,
  WorkspaceLayout,
  wsQuery,
  type Column,
  type WorkspacePageProps,
} from '../shared/layout';

export interface TeamPageProps extends WorkspacePageProps {
  members: { userId: string; email: string; role: WorkspaceRole; since: number }[];
  invitations: InvitationView[];
  errors?: FieldErrors;
  notice?: string;
  error?: string;
}

const ROLE_OPTIONS: [string, string][] = WORKSPACE_ROLES.map((role) => [role, role[0]!.toUpperCase() + role.slice(1)]);

/** A workspace's members and open invitations; owners change them. */
export function TeamPage(props: TeamPageProps) {
  const { current } = props;
  const canManage = roleMay(current.role, 'team.manage');
  const ws = wsQuery(current.workspaceId);
  type Member = TeamPageProps['members'][number];
  const memberColumns: Column<Member>[] = [
    {
      header: 'Email',
      cell: (member) => (
        <>
          {member.email}
          {member.userId === props.user.id ? <span class="muted"> (you)</span> : null}
        </>
      ),
    },
    { header: 'Role', cell: (member) => <span class="pill">{member.role}</span> },
  ];
  // A workspace keeps at least one owner: the only one is offered neither a new role nor removal.
  const owners = props.members.filter((member) => member.role === 'owner').length;
  const isOnlyOwner = (member: Member) => member.role === 'owner' && owners === 1;
  if (canManage) {
    memberColumns.push({
      header: 'Change',
      cell: (member) =>
        isOnlyOwner(member) ? (
          <span class="muted">The only owner: make someone else an owner first.</span>
        ) : (
          <>
            <form method="post" action={`/integrations/team/${member.userId}/role${ws}`} class="inline">
              <label class="sr-only" for={`role-${member.userId}`}>
                Role for {member.email}
              </label>
              <select id={`role-${member.userId}`} name="role">
                {ROLE_OPTIONS.map(([value, label]) => (
                  <option value={value} selected={value === member.role}>
                    {label}
                  </option>
                ))}
              </select>
              <button type="submit" class="button small">
                Update
              </button>
            </form>{' '}
            <form method="post" action={`/integrations/team/${member.userId}/remove${ws}`} class="inline">
              <button type="submit" class="button small ghost">
                Remove
              </button>
            </form>
          </>
        ),
    });
  }
  const invitationColumns: Column<InvitationView>[] = [
    { header: 'Email', cell: (invitation) => invitation.email },
    { header: 'Role', cell: (invitation) => <span class="pill">{invitation.role}</span> },
    { header: 'Expires', class: 'nowrap', cell: (invitation) => when(invitation.expiresAt) },
  ];
  if (canManage) {
    invitationColumns.push({
      header: 'Change',
      cell: (invitation) => (
        <form
          method="post"
          action={`/integrations/team/invitations/${invitation.invitationId}/revoke${ws}`}
          class="inline"
        >
          <button type="submit" class="button small ghost">
            Withdraw
          </button>
        </form>
      ),
    });
  }
  return (
    <WorkspaceLayout page={props} title="Team" active="team">
      <p class="eyebrow">
        {current.organizationName} / {current.workspaceName}
      </p>
      <h1>Team</h1>
      <p class="lead">Owners manage the team; owners and admins manage channels; members can look.</p>
      <section class="card" aria-labelledby="members-title">
        <h2 id="members-title">Members</h2>
        <DataTable rows={props.members} columns={memberColumns} />
      </section>
      {props.invitations.length > 0 ? (
        <section class="card" aria-labelledby="invitations-title">
          <h2 id="invitations-title">Open invitations</h2>
          <DataTable rows={props.invitations} columns={invitationColumns} />
        </section>
      ) : null}
      {canManage ? (
        <section class="card narrow" aria-labelledby="invite-title">
          <h2 id="invite-title">Invite someone</h2>
          <p class="muted">
            They accept the invitation in the console after signing in with this address (or after signing up with it).
            It expires in 7 days.
          </p>
          <form method="post" action={`/integrations/team/invite${ws}`} class="stack">
            <Field name="email" label="Email" type="email" errors={props.errors} required />
            <Select name="role" label="Role" value="member" options={ROLE_OPTIONS} />
            <button type="submit" class="button primary">
              Send invitation
            </button>
          </form>
        </section>
      ) : null}
      <section class="card narrow" aria-labelledby="factor-policy-title">
        <h2 id="factor-policy-title">Two-step sign-in</h2>
        <p>
          {current.secondFactorRequired
            ? `${current.organizationName} requires it of every member: without an authenticator app or a ` +
              'passkey, its workspaces stay closed to them.'
            : `Optional in ${current.organizationName}. Owners may require it of every member.`}
        </p>
        {canManage ? (
          <form method="post" action={`/integrations/team/second-factor${ws}`}>
            <input type="hidden" name="required" value={current.secondFactorRequired ? 'off' : 'on'} />
            <button type="submit" class="button">
              {current.secondFactorRequired ? 'Stop requiring it' : 'Require it of every member'}
            </button>
          </form>
        ) : null}
      </section>
    </WorkspaceLayout>
  );
}

/** The invitations waiting for the signed-in user: accept or decline each. */
export function InvitationsPage({
  user,
  invitations,
  notice,
}: {
  user: SessionUser;
  invitations: InvitationView[];
  notice?: string;
}) {
  return (
    <ConsoleLayout title="Invitations" user={user} notice={notice}>
      <div class="narrow">
        <h1>Invitations</h1>
        {invitations.length === 0 ? (
          <p class="lead">No invitations are waiting for you.</p>
        ) : (
          <ul class="invitation-list">
            {invitations.map((invitation) => (
              <li class="card">
                <p>
                  Join{' '}
                  <strong>
                    {invitation.organizationName} / {invitation.workspaceName}
                  </strong>{' '}
                  as <span class="pill">{invitation.role}</span>
                </p>
                <p class="muted">Expires {when(invitation.expiresAt)}</p>
                <div class="row-actions">
                  <form method="post" action={`/invitations/${invitation.invitationId}/accept`} class="inline">
                    <button type="submit" class="button primary">
                      Accept
                    </button>
                  </form>
                  <form method="post" action={`/invitations/${invitation.invitationId}/decline`} class="inline">
                    <button type="submit" class="button ghost">
                      Decline
                    </button>
                  </form>
                </div>
              </li>
            ))}
          </ul>
        )}
        <p>
          <a href="/integrations">Back to the console</a>
        </p>
      </div>
    </ConsoleLayout>
  );
}
