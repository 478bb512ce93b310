/** @jsxImportSource hono/jsx */
/** The team pages: members and invitations of a workspace, and the invitee's /invitations page. */
import type { Context } from 'hono';
import { z } from 'zod';
import { newPageApp } from '../shared/app';
import type { AppEnv } from '../../env';
import { ApiError } from '../../lib/errors';
import { WORKSPACE_ROLES, type WorkspaceRole } from '../../vocabulary';
import {
  answerInvitation,
  changeMembership,
  inviteMember,
  listMembers,
  listOpenInvitations,
  revokeInvitation,
  setSecondFactorRequirement,
  type MemberWorkspaces,
} from '../../platform/identity';
import { formErrors, readForm } from '../shared/form-input';
import type { FieldErrors } from '../shared/forms';
import { noticeOf } from '../shared/notices';
import { consolePageGuards, currentUser } from '../shared/session';
import { userAuditContext, workspaceContext } from '../shared/workspace';
import { InvitationsPage, TeamPage } from './pages';

const roleSchema = z.enum(WORKSPACE_ROLES);
const ws = (context: MemberWorkspaces) => `ws=${encodeURIComponent(context.current.workspaceId)}`;

async function renderTeam(
  c: Context<AppEnv>,
  context: MemberWorkspaces,
  extra: { errors?: FieldErrors; error?: string } = {},
  status: 200 | 404 | 409 | 422 = 200,
) {
  const [members, invitations] = await Promise.all([
    listMembers(c.var.reads, context.current.workspaceId),
    listOpenInvitations(c.var.reads, { workspaceId: context.current.workspaceId }),
  ]);
  return c.html(
    <TeamPage
      user={currentUser(c)}
      {...context}
      members={members}
      invitations={invitations}
      notice={noticeOf(c)}
      {...extra}
    />,
    status,
  );
}

/** The team and invitation pages. */
export function teamRoutes() {
  const app = newPageApp();
  for (const path of ['/integrations/team', '/integrations/team/*', '/invitations', '/invitations/*'])
    app.use(path, ...consolePageGuards);

  app.get('/integrations/team', async (c) => renderTeam(c, await workspaceContext(c, 'team.read')));

  app.post('/integrations/team/second-factor', async (c) => {
    const context = await workspaceContext(c, 'team.read');
    const required = (await readForm(c)).required === 'on';
    try {
      await setSecondFactorRequirement(c.var.db, context.current, userAuditContext(c), required);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'conflict')
        return renderTeam(c, context, { error: error.detail }, 409);
      throw error;
    }
    return c.redirect(`/integrations/team?${ws(context)}&notice=saved`, 303);
  });

  app.post('/integrations/team/invite', async (c) => {
    const context = await workspaceContext(c, 'team.read');
    const parsed = z
      .object({ email: z.email('Enter a valid email address.'), role: roleSchema })
      .safeParse(await readForm(c));
    if (!parsed.success)
      return renderTeam(c, context, { errors: formErrors(parsed.error), error: 'Please check the form.' }, 422);
    try {
      await inviteMember(c.var.db, context.current, currentUser(c).id, parsed.data, c.var.requestId);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'conflict')
        return renderTeam(c, context, { error: error.detail }, 409);
      throw error;
    }
    return c.redirect(`/integrations/team?${ws(context)}&notice=invited`, 303);
  });

  app.post('/integrations/team/invitations/:invitationId/revoke', async (c) => {
    const context = await workspaceContext(c, 'team.read');
    await revokeInvitation(c.var.db, context.current, currentUser(c).id, c.req.param('invitationId'), c.var.requestId);
    return c.redirect(`/integrations/team?${ws(context)}&notice=revoked`, 303);
  });

  for (const action of ['role', 'remove'] as const) {
    app.post(`/integrations/team/:userId/${action}`, async (c) => {
      const context = await workspaceContext(c, 'team.read');
      let role: WorkspaceRole | null = null;
      if (action === 'role') {
        const parsed = roleSchema.safeParse((await readForm(c)).role);
        if (!parsed.success) return renderTeam(c, context, { error: 'Choose owner, admin or member.' }, 422);
        role = parsed.data;
      }
      try {
        await changeMembership(
          c.var.db,
          context.current,
          currentUser(c).id,
          c.req.param('userId'),
          role,
          c.var.requestId,
        );
      } catch (error) {
        if (error instanceof ApiError && error.code === 'last_owner')
          return renderTeam(c, context, { error: error.detail }, 409);
        throw error;
      }
      // Removing yourself leaves the workspace: go wherever you still belong.
      if (action === 'remove' && c.req.param('userId') === currentUser(c).id) return c.redirect('/integrations', 303);
      return c.redirect(`/integrations/team?${ws(context)}&notice=${action === 'remove' ? 'removed' : 'changed'}`, 303);
    });
  }

  app.get('/invitations', async (c) => {
    const user = currentUser(c);
    return c.html(
      <InvitationsPage
        user={user}
        invitations={await listOpenInvitations(c.var.db, { email: user.email })}
        notice={noticeOf(c)}
      />,
    );
  });

  for (const answer of ['accept', 'decline'] as const) {
    app.post(`/invitations/:invitationId/${answer}`, async (c) => {
      const user = currentUser(c);
      const { workspaceId } = await answerInvitation(
        c.var.db,
        user,
        c.req.param('invitationId'),
        answer === 'accept' ? 'accepted' : 'declined',
        c.var.requestId,
      );
      if (answer === 'accept' && user.role === 'business')
        return c.redirect(`/integrations?ws=${encodeURIComponent(workspaceId)}&notice=accepted`, 303);
      return c.redirect(`/invitations?notice=${answer === 'accept' ? 'accepted' : 'declined'}`, 303);
    });
  }

  return app;
}
