/** @jsxImportSource hono/jsx */
/**
 * Console routes: /onboarding/workspace, /integrations (channels, widget, intake, keys),
 * /integrations/team and /provider/onboarding. They use the same platform services as the API;
 * every page checks the membership of the workspace it touches (another tenant's is 404).
 */
import type { Context, Hono } from 'hono';
import { csrf } from 'hono/csrf';
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import { knownDomains } from '../brain/executors';
import { resolvePlatformUrls, type AppEnv } from '../env';
import { ApiError, fieldErrorsFromZod } from '../lib/errors';
import {
  answerInvitation,
  canManageChannels,
  changeMembership,
  createOrganizationForUser,
  inviteMember,
  listMembers,
  listMemberships,
  listOpenInvitations,
  providerOf,
  revokeInvitation,
  type MembershipView,
  type WorkspaceRole,
} from '../platform/accounts';
import { createChannelSchema, updateChannelSchema, widgetConfigPatchSchema } from '../platform/channels/schemas';
import {
  consoleOrigin,
  createChannel,
  describeChannel,
  getChannel,
  listChannelIntake,
  listChannels,
  publicWidgetConfig,
  updateChannel,
} from '../platform/channels/service';
import { listApiKeys, type AuditContext } from '../platform/identity';
import { landingFor } from './auth';
import { readForm, requireFormBody } from './form-input';
import { ChannelPage, IntegrationsPage, InvitationsPage, OnboardingPage, ProviderOnboardingPage, TeamPage, type FieldErrors } from './pages';
import { setPageSecurityHeaders } from './security';
import { currentUser, loadSession, requireUser } from './session';

/** Fixed notices chosen by a code in the URL, so no user text is ever reflected. */
const NOTICES: Record<string, string> = {
  created: 'Channel created. Paste the snippet into your site to go live.',
  saved: 'Saved.',
  enabled: 'Channel enabled.',
  disabled: 'Channel disabled: the widget and hosted inbox are off.',
  invited: 'Invitation sent. They accept it in the console after signing in (or once they sign up with that address); it expires in 7 days.',
  revoked: 'Invitation withdrawn.',
  accepted: 'Invitation accepted: welcome to the workspace.',
  declined: 'Invitation declined.',
  changed: 'Role updated.',
  removed: 'Member removed.',
};

const lines = (value: string | undefined) =>
  (value ?? '')
    .split(/\s+/)
    .map((line) => line.trim())
    .filter(Boolean);

/** The channel settings fields of a console form, in the shape the channel schemas take. */
const channelFieldsFromForm = (form: Record<string, string>) => ({
  name: form.name,
  domain: form.domain,
  allowed_origins: lines(form.allowed_origins),
  first_party_origins: lines(form.first_party_origins),
});

/** zod's pointers (/allowed_origins/0) become form field names (allowed_origins). */
function formErrors(error: z.ZodError, prefix = ''): FieldErrors {
  const errors: FieldErrors = {};
  for (const entry of fieldErrorsFromZod(error)) {
    const [first, second] = entry.pointer.split('/').filter(Boolean);
    const name = second && !/^\d+$/.test(second) ? `${first}.${second}` : (first ?? '');
    errors[prefix + name] ??= entry.detail;
  }
  return errors;
}

interface WorkspaceContext {
  memberships: MembershipView[];
  current: MembershipView;
}

/** The workspace named by ?ws= (which must be one of the user's), else the user's first. */
async function findWorkspaceContext(c: Context<AppEnv>): Promise<WorkspaceContext | undefined> {
  const memberships = await listMemberships(c.var.db, currentUser(c).id);
  const wanted = c.req.query('ws');
  // A named workspace the user does not belong to does not exist for them, as any other tenant's record.
  if (wanted && !memberships.some((membership) => membership.workspaceId === wanted)) throw new ApiError('not_found', 'No such workspace.');
  const current = memberships.find((membership) => membership.workspaceId === wanted) ?? memberships[0];
  return current ? { memberships, current } : undefined;
}

/** The current workspace; a user who has none is sent to create one. */
async function workspaceContext(c: Context<AppEnv>, need: 'member' | 'manager' = 'member'): Promise<WorkspaceContext> {
  const context = await findWorkspaceContext(c);
  if (!context) throw new HTTPException(303, { res: c.redirect('/onboarding/workspace', 303) });
  if (need === 'manager' && !canManageChannels(context.current.role)) throw new ApiError('forbidden', 'Only owners and admins can change channels.');
  return context;
}

function auditFor(c: Context<AppEnv>): AuditContext {
  return { actorKind: 'user', actorId: currentUser(c).id, requestId: c.var.requestId, traceId: c.var.traceId };
}

const urlsOf = (c: Context<AppEnv>) => resolvePlatformUrls(c.var.settings, c.req.url);
const scopeOf = (context: WorkspaceContext) => ({ workspaceId: context.current.workspaceId, organizationId: context.current.organizationId });
const ws = (context: WorkspaceContext) => `ws=${encodeURIComponent(context.current.workspaceId)}`;
const notice = (c: Context<AppEnv>) => NOTICES[c.req.query('notice') ?? ''];

async function renderIntegrations(c: Context<AppEnv>, context: WorkspaceContext, extra: { errors?: FieldErrors; values?: Record<string, string>; error?: string } = {}, status: 200 | 422 = 200) {
  const urls = resolvePlatformUrls(c.var.settings, c.req.url);
  const [channels, apiKeys, invitations] = await Promise.all([
    listChannels(c.var.db, context.current.workspaceId),
    listApiKeys(c.var.db, context.current.workspaceId),
    listOpenInvitations(c.var.db, { email: currentUser(c).email }),
  ]);
  return c.html(
    <IntegrationsPage
      user={currentUser(c)}
      {...context}
      channels={channels.map((row) => describeChannel(row, urls))}
      apiKeys={apiKeys}
      pendingInvitations={invitations.length}
      domains={knownDomains()}
      notice={notice(c)}
      {...extra}
    />,
    status,
  );
}

async function renderChannel(c: Context<AppEnv>, context: WorkspaceContext, channelKey: string, extra: { errors?: FieldErrors; error?: string } = {}, status: 200 | 422 | 409 = 200) {
  const urls = resolvePlatformUrls(c.var.settings, c.req.url);
  const row = await getChannel(c.var.db, context.current.workspaceId, channelKey);
  return c.html(
    <ChannelPage
      user={currentUser(c)}
      {...context}
      channel={describeChannel(row, urls)}
      previewConfig={publicWidgetConfig(row, urls, consoleOrigin(urls))}
      intake={await listChannelIntake(c.var.db, row, 20)}
      domains={knownDomains()}
      notice={notice(c)}
      {...extra}
    />,
    status,
  );
}

/** Nested widget fields (`colors.primary`) from a flat form into a WidgetConfigPatch. */
function widgetPatchFromForm(form: Record<string, string>) {
  const patch: Record<string, Record<string, unknown>> = {};
  for (const [name, value] of Object.entries(form)) {
    const [section, field] = name.split('.');
    if (!section || !field) continue;
    patch[section] ??= {};
    patch[section][field] = field.startsWith('offset_') ? Number(value) : section === 'brand' && field === 'logo_url' && value === '' ? null : value;
  }
  return widgetConfigPatchSchema.safeParse(patch);
}

export function registerConsoleRoutes(app: Hono<AppEnv>): void {
  for (const path of ['/integrations', '/integrations/*', '/onboarding/*', '/provider/*', '/invitations', '/invitations/*']) {
    app.use(path, async (c, next) => {
      setPageSecurityHeaders(c);
      await next();
    });
    app.use(path, csrf({ origin: (origin, c) => origin === consoleOrigin(resolvePlatformUrls(c.var.settings, c.req.url)) }));
    app.use(path, requireFormBody, loadSession, requireUser);
  }

  app.get('/onboarding/workspace', async (c) => {
    const user = currentUser(c);
    if ((await listMemberships(c.var.db, user.id)).length > 0) return c.redirect('/integrations', 303);
    return c.html(<OnboardingPage user={user} invitations={await listOpenInvitations(c.var.db, { email: user.email })} />);
  });

  app.post('/onboarding/workspace', async (c) => {
    const user = currentUser(c);
    if (user.role !== 'business') throw new ApiError('forbidden', 'Organisations are for business accounts.');
    const form = await readForm(c);
    const parsed = z
      .object({ organization_name: z.string().trim().min(1, 'Enter a name.').max(120), workspace_name: z.string().trim().min(1, 'Enter a name.').max(120) })
      .safeParse(form);
    if (!parsed.success) {
      return c.html(<OnboardingPage user={user} errors={formErrors(parsed.error)} values={form} />, 422);
    }
    const created = await createOrganizationForUser(
      c.var.db,
      user.id,
      { organizationName: parsed.data.organization_name, workspaceName: parsed.data.workspace_name },
      c.var.requestId,
    );
    return c.redirect(`/integrations?ws=${created.workspaceId}`, 303);
  });

  app.get('/integrations', async (c) => {
    if (currentUser(c).role === 'provider') return c.redirect('/provider/onboarding', 303);
    const context = await workspaceContext(c);
    return renderIntegrations(c, context);
  });

  app.post('/integrations/channels', async (c) => {
    const context = await workspaceContext(c, 'manager');
    const form = await readForm(c);
    const parsed = createChannelSchema.safeParse(channelFieldsFromForm(form));
    if (!parsed.success) {
      return renderIntegrations(c, context, { errors: formErrors(parsed.error), values: form, error: 'Please check the form.' }, 422);
    }
    const row = await createChannel(c.var.db, scopeOf(context), auditFor(c), parsed.data, urlsOf(c));
    return c.redirect(`/integrations/channels/${row.channelKey}?${ws(context)}&notice=created`, 303);
  });

  app.get('/integrations/channels/:channelKey', async (c) => {
    const context = await workspaceContext(c);
    return renderChannel(c, context, c.req.param('channelKey'));
  });

  app.post('/integrations/channels/:channelKey/widget', async (c) => {
    const context = await workspaceContext(c, 'manager');
    const channelKey = c.req.param('channelKey');
    const parsed = widgetPatchFromForm(await readForm(c));
    if (!parsed.success) {
      return renderChannel(c, context, channelKey, { errors: formErrors(parsed.error), error: 'Some widget settings are not valid.' }, 422);
    }
    try {
      await updateChannel(c.var.db, scopeOf(context), auditFor(c), channelKey, { widget: parsed.data }, urlsOf(c));
    } catch (error) {
      if (error instanceof ApiError && error.code === 'validation_failed') return renderChannel(c, context, channelKey, { error: error.detail }, 422);
      throw error;
    }
    return c.redirect(`/integrations/channels/${channelKey}?${ws(context)}&notice=saved`, 303);
  });

  app.post('/integrations/channels/:channelKey/settings', async (c) => {
    const context = await workspaceContext(c, 'manager');
    const channelKey = c.req.param('channelKey');
    const form = await readForm(c);
    const parsed = updateChannelSchema.safeParse(channelFieldsFromForm(form));
    if (!parsed.success) return renderChannel(c, context, channelKey, { errors: formErrors(parsed.error), error: 'Please check the settings.' }, 422);
    await updateChannel(c.var.db, scopeOf(context), auditFor(c), channelKey, parsed.data, urlsOf(c));
    return c.redirect(`/integrations/channels/${channelKey}?${ws(context)}&notice=saved`, 303);
  });

  app.post('/integrations/channels/:channelKey/status', async (c) => {
    const context = await workspaceContext(c, 'manager');
    const channelKey = c.req.param('channelKey');
    const parsed = z.enum(['active', 'disabled']).safeParse((await readForm(c)).status);
    if (!parsed.success) return renderChannel(c, context, channelKey, { error: 'Choose active or disabled.' }, 422);
    const status = parsed.data;
    await updateChannel(c.var.db, scopeOf(context), auditFor(c), channelKey, { status }, urlsOf(c));
    return c.redirect(`/integrations/channels/${channelKey}?${ws(context)}&notice=${status === 'active' ? 'enabled' : 'disabled'}`, 303);
  });

  const renderTeam = async (c: Context<AppEnv>, context: WorkspaceContext, extra: { errors?: FieldErrors; error?: string } = {}, status: 200 | 404 | 409 | 422 = 200) => {
    const [members, invitations] = await Promise.all([
      listMembers(c.var.db, context.current.workspaceId),
      listOpenInvitations(c.var.db, { workspaceId: context.current.workspaceId }),
    ]);
    return c.html(<TeamPage user={currentUser(c)} {...context} members={members} invitations={invitations} notice={notice(c)} {...extra} />, status);
  };

  app.get('/integrations/team', async (c) => {
    const context = await workspaceContext(c);
    return renderTeam(c, context);
  });

  app.post('/integrations/team/invite', async (c) => {
    const context = await workspaceContext(c);
    const parsed = z.object({ email: z.email('Enter a valid email address.'), role: z.enum(['owner', 'admin', 'member']) }).safeParse(await readForm(c));
    if (!parsed.success) return renderTeam(c, context, { errors: formErrors(parsed.error), error: 'Please check the form.' }, 422);
    try {
      await inviteMember(c.var.db, context.current, currentUser(c).id, parsed.data, c.var.requestId);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'conflict') return renderTeam(c, context, { error: error.detail }, 409);
      throw error;
    }
    return c.redirect(`/integrations/team?${ws(context)}&notice=invited`, 303);
  });

  app.post('/integrations/team/invitations/:invitationId/revoke', async (c) => {
    const context = await workspaceContext(c);
    await revokeInvitation(c.var.db, context.current, currentUser(c).id, c.req.param('invitationId'), c.var.requestId);
    return c.redirect(`/integrations/team?${ws(context)}&notice=revoked`, 303);
  });

  for (const action of ['role', 'remove'] as const) {
    app.post(`/integrations/team/:userId/${action}`, async (c) => {
      const context = await workspaceContext(c);
      let role: WorkspaceRole | null = null;
      if (action === 'role') {
        const parsed = z.enum(['owner', 'admin', 'member']).safeParse((await readForm(c)).role);
        if (!parsed.success) return renderTeam(c, context, { error: 'Choose owner, admin or member.' }, 422);
        role = parsed.data;
      }
      try {
        await changeMembership(c.var.db, context.current, currentUser(c).id, c.req.param('userId'), role, c.var.requestId);
      } catch (error) {
        if (error instanceof ApiError && error.code === 'last_owner') return renderTeam(c, context, { error: error.detail }, 409);
        throw error;
      }
      // Removing yourself leaves the workspace: go wherever you still belong.
      if (action === 'remove' && c.req.param('userId') === currentUser(c).id) return c.redirect('/integrations', 303);
      return c.redirect(`/integrations/team?${ws(context)}&notice=${action === 'remove' ? 'removed' : 'changed'}`, 303);
    });
  }

  app.get('/invitations', async (c) => {
    const user = currentUser(c);
    return c.html(<InvitationsPage user={user} invitations={await listOpenInvitations(c.var.db, { email: user.email })} notice={notice(c)} />);
  });

  for (const answer of ['accept', 'decline'] as const) {
    app.post(`/invitations/:invitationId/${answer}`, async (c) => {
      const user = currentUser(c);
      const { workspaceId } = await answerInvitation(c.var.db, user, c.req.param('invitationId'), answer === 'accept' ? 'accepted' : 'declined', c.var.requestId);
      if (answer === 'accept' && user.role === 'business') return c.redirect(`/integrations?ws=${encodeURIComponent(workspaceId)}&notice=accepted`, 303);
      return c.redirect(`/invitations?notice=${answer === 'accept' ? 'accepted' : 'declined'}`, 303);
    });
  }

  app.get('/provider/onboarding', async (c) => {
    const user = currentUser(c);
    if (user.role !== 'provider') return c.redirect(await landingFor(c, user), 303);
    const [provider, invitations] = await Promise.all([providerOf(c.var.db, user.id), listOpenInvitations(c.var.db, { email: user.email })]);
    return c.html(
      <ProviderOnboardingPage user={user} status={provider?.status ?? 'registered'} referredBy={provider?.referredByChannelKey ?? null} pendingInvitations={invitations.length} />,
    );
  });
}
