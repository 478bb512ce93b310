/** @jsxImportSource hono/jsx */
/**
 * The site owner's console: /onboarding/workspace and /integrations (channels, widget, intake,
 * keys). The pages use the same platform services as the API, and every page checks the
 * membership of the workspace it touches against the access policy (another tenant's is 404).
 */
import type { Context } from 'hono';
import { z } from 'zod';
import { newPageApp } from '../shared/app';
import { consoleOrigin, resolvePlatformUrls, type AppEnv } from '../../env';
import { ApiError } from '../../lib/errors';
import { displayText } from '../../lib/openapi';
import {
  channelCspFindings,
  createChannelSchema,
  updateChannelSchema,
  widgetConfigPatchSchema,
} from '../../platform/channels';
import {
  createChannel,
  describeChannel,
  getChannel,
  listChannels,
  publicWidgetConfig,
  updateChannel,
} from '../../platform/channels';
import { listDomains } from '../../platform/domains';
import {
  createOrganizationForUser,
  requireVerifiedEmail,
  listMemberships,
  listOpenInvitations,
  type MemberWorkspaces,
} from '../../platform/identity';
import {
  setBlockedTerms,
  setDefaultDomain,
  workspaceDefaultDomain,
  workspaceRiskPolicy,
} from '../../platform/identity';
import { listApiKeys } from '../../platform/keys';
import { roleMay } from '../../platform/access';
import { listChannelIntake } from '../../platform/leads';
import { listWorkspaceRequests } from '../../platform/provisioning';
import { ownerThread } from '../../platform/conversations';
import { listEndpoints } from '../../platform/webhooks';
import { formErrors, readForm } from '../shared/form-input';
import { noticeOf } from '../shared/notices';
import { consolePageGuards, currentUser } from '../shared/session';
import { userAuditContext, workspaceContext } from '../shared/workspace';
import {
  conversationRetention,
  MAX_CONVERSATION_DAYS,
  MIN_CONVERSATION_DAYS,
  setConversationRetention,
} from '../../platform/lifecycle';
import { clock } from '../../lib/clock';
import { registerConversationErasure } from './erase-route';
import type { FieldErrors } from '../shared/forms';
import { isLanguage, type Language } from '../../lib/i18n';
import { ChannelPage } from './channel-page';
import { COPY_FIELDS } from './copy-languages';
import { ConversationPage } from './conversation-page';
import { IntakePage, INTAKE_PAGE_SIZE } from './intake-page';
import { IntegrationsPage } from './integrations-page';
import { OnboardingPage } from './onboarding-page';
import { channelFieldsFromForm, linesOf, widgetPatchFromForm } from './form-fields';

const urlsOf = (c: Context<AppEnv>) => resolvePlatformUrls(c.var.settings, c.req.url);
const scopeOf = (context: MemberWorkspaces) => ({
  workspaceId: context.current.workspaceId,
  organizationId: context.current.organizationId,
});
const ws = (context: MemberWorkspaces) => `ws=${encodeURIComponent(context.current.workspaceId)}`;

async function renderIntegrations(
  c: Context<AppEnv>,
  context: MemberWorkspaces,
  extra: { errors?: FieldErrors; values?: Record<string, string>; error?: string } = {},
  status: 200 | 422 = 200,
) {
  const urls = urlsOf(c);
  const mayRequest = roleMay(context.current.role, 'provisioning.request');
  // After the membership check (the primary's), the page's lists from a replica's session.
  const [channels, apiKeys, invitations, domains, policy, defaultDomain, endpoints, requests, keepDays] =
    await Promise.all([
      listChannels(c.var.reads, context.current.workspaceId),
      listApiKeys(c.var.reads, context.current.workspaceId),
      listOpenInvitations(c.var.reads, { email: currentUser(c).email }),
      listDomains(c.var.reads),
      workspaceRiskPolicy(c.var.reads, context.current.workspaceId),
      workspaceDefaultDomain(c.var.reads, context.current.workspaceId),
      // Owners hear here when the platform disabled one of their webhook endpoints.
      roleMay(context.current.role, 'webhooks.read')
        ? listEndpoints(c.var.reads, context.current.workspaceId)
        : Promise.resolve([]),
      mayRequest ? listWorkspaceRequests(c.var.reads, context.current.workspaceId) : Promise.resolve([]),
      conversationRetention(c.var.reads, context.current.workspaceId),
    ]);
  return c.html(
    <IntegrationsPage
      user={currentUser(c)}
      {...context}
      channels={channels.map((row) => describeChannel(row, urls))}
      apiKeys={apiKeys}
      gatewayUrl={urls.baseUrl}
      pendingInvitations={invitations.length}
      blockedTerms={policy.blockedTerms}
      domains={domains}
      defaultDomain={defaultDomain}
      conversationRetentionDays={keepDays}
      disabledEndpoints={endpoints.filter(
        (endpoint) => endpoint.status === 'disabled' && endpoint.disabled_reason !== 'admin',
      )}
      requests={requests}
      notice={noticeOf(c)}
      {...extra}
    />,
    status,
  );
}

/** The integrations page again with a form's errors (a provisioning request's, whose page this is). */
export function integrationsWithErrors(
  c: Context<AppEnv>,
  context: MemberWorkspaces,
  errors: FieldErrors,
  values: Record<string, string>,
) {
  return renderIntegrations(c, context, { errors, values, error: 'Please check the request.' }, 422);
}

async function renderChannel(
  c: Context<AppEnv>,
  context: MemberWorkspaces,
  channelKey: string,
  extra: { errors?: FieldErrors; error?: string; copyLanguage?: Language; copyErrors?: FieldErrors } = {},
  status: 200 | 422 = 200,
) {
  const urls = urlsOf(c);
  const row = await getChannel(c.var.db, context.current.workspaceId, channelKey);
  const asked = c.req.query('copy');
  const domains = await listDomains(c.var.db);
  // The site policy check reads the customer's pages: only when asked for (?check=csp).
  const cspFindings = c.req.query('check') === 'csp' ? await channelCspFindings(c, row) : undefined;
  return c.html(
    <ChannelPage
      user={currentUser(c)}
      {...context}
      channel={describeChannel(row, urls)}
      previewConfig={publicWidgetConfig(row, urls, consoleOrigin(urls), 'en')}
      domains={domains}
      {...(isLanguage(asked) ? { copyLanguage: asked } : {})}
      notice={noticeOf(c)}
      {...(cspFindings ? { cspFindings } : {})}
      {...extra}
    />,
    status,
  );
}

/** Runs a channel change; a change the service refuses as invalid is shown on the channel page. */
async function changeChannelOrShow(
  c: Context<AppEnv>,
  context: MemberWorkspaces,
  channelKey: string,
  change: () => Promise<unknown>,
  then: string,
  /** Where on the page to land: the query and anchor after `ws` and `notice`. */
  back = '',
) {
  try {
    await change();
  } catch (error) {
    if (error instanceof ApiError && (error.code === 'validation_failed' || error.code === 'unknown_domain'))
      return renderChannel(c, context, channelKey, { error: error.detail }, 422);
    throw error;
  }
  return c.redirect(`/integrations/channels/${channelKey}?${ws(context)}&notice=${then}${back}`, 303);
}

/** The site owner's pages. */
export function integrationsRoutes() {
  const app = newPageApp();
  for (const path of ['/integrations', '/integrations/*', '/onboarding/*']) app.use(path, ...consolePageGuards);

  app.get('/onboarding/workspace', async (c) => {
    const user = currentUser(c);
    if ((await listMemberships(c.var.db, user.id)).length > 0) return c.redirect('/integrations', 303);
    return c.html(
      <OnboardingPage user={user} invitations={await listOpenInvitations(c.var.db, { email: user.email })} />,
    );
  });

  app.post('/onboarding/workspace', async (c) => {
    const user = currentUser(c);
    if (user.role !== 'business') throw new ApiError('forbidden', 'Organisations are for business accounts.');
    const form = await readForm(c);
    // Not confirmed yet: the form stays as typed, with why and the link's button beside it.
    if (user.emailVerifiedAt === null) return c.html(<OnboardingPage user={user} values={form} unverified />, 403);
    requireVerifiedEmail(user);
    const parsed = z
      .object({
        organization_name: displayText({ min: 1, max: 120, minMessage: 'Enter a name.' }),
        workspace_name: displayText({ min: 1, max: 120, minMessage: 'Enter a name.' }),
      })
      .safeParse(form);
    if (!parsed.success)
      return c.html(<OnboardingPage user={user} errors={formErrors(parsed.error)} values={form} />, 422);
    const created = await createOrganizationForUser(
      c.var.services,
      user.id,
      { organizationName: parsed.data.organization_name, workspaceName: parsed.data.workspace_name },
      c.var.requestId,
    );
    return c.redirect(`/integrations?ws=${created.workspaceId}`, 303);
  });

  app.get('/integrations', async (c) => {
    if (currentUser(c).role === 'provider') return c.redirect('/provider/onboarding', 303);
    return renderIntegrations(c, await workspaceContext(c, 'channels.read'));
  });

  app.post('/integrations/channels', async (c) => {
    const context = await workspaceContext(c, 'channels.write');
    const form = await readForm(c);
    const parsed = createChannelSchema.safeParse(channelFieldsFromForm(form));
    if (!parsed.success)
      return renderIntegrations(
        c,
        context,
        { errors: formErrors(parsed.error), values: form, error: 'Please check the form.' },
        422,
      );
    const row = await createChannel(c.var.db, scopeOf(context), userAuditContext(c), parsed.data, urlsOf(c));
    return c.redirect(`/integrations/channels/${row.channelKey}?${ws(context)}&notice=created`, 303);
  });

  app.post('/integrations/settings', async (c) => {
    const context = await workspaceContext(c, 'workspace.settings');
    const form = await readForm(c);
    const terms = linesOf(form.blocked_terms);
    const tooLong = terms.find((term) => term.length > 60);
    const domain = form.default_domain?.trim() || null;
    const errors: FieldErrors = {};
    if (terms.length > 200 || tooLong) errors.blocked_terms = 'Up to 200 terms of at most 60 characters each.';
    if (domain && !(await listDomains(c.var.db)).includes(domain))
      errors.default_domain = 'Choose a domain of the catalog.';
    const keepDays = Number(form.conversation_retention_days ?? 365);
    if (!Number.isInteger(keepDays) || keepDays < MIN_CONVERSATION_DAYS || keepDays > MAX_CONVERSATION_DAYS)
      errors.conversation_retention_days = `Whole days, ${MIN_CONVERSATION_DAYS} to ${MAX_CONVERSATION_DAYS}.`;
    if (Object.keys(errors).length)
      return renderIntegrations(c, context, { errors, values: form, error: 'Please check the settings.' }, 422);
    const scope = scopeOf(context);
    await setBlockedTerms(c.var.db, userAuditContext(c), scope, terms);
    const audit = { ...userAuditContext(c), ...scope };
    if (keepDays !== (await conversationRetention(c.var.db, scope.workspaceId)))
      await setConversationRetention(c.var.db, audit, keepDays, clock.now());
    if (domain !== (await workspaceDefaultDomain(c.var.db, scope.workspaceId)))
      await setDefaultDomain(c.var.db, userAuditContext(c), scope.workspaceId, domain);
    return c.redirect(`/integrations?${ws(context)}&notice=settings`, 303);
  });

  app.get('/integrations/channels/:channelKey', async (c) =>
    renderChannel(c, await workspaceContext(c, 'channels.read'), c.req.param('channelKey')),
  );

  app.get('/integrations/channels/:channelKey/intake', async (c) => {
    const context = await workspaceContext(c, 'channels.read');
    const row = await getChannel(c.var.db, context.current.workspaceId, c.req.param('channelKey'));
    return c.html(
      <IntakePage
        user={currentUser(c)}
        {...context}
        channel={{ channel_key: row.channelKey, name: row.name, status: row.status }}
        intake={await listChannelIntake(c.var.db, row.id, INTAKE_PAGE_SIZE)}
      />,
    );
  });

  app.get('/integrations/channels/:channelKey/conversations/:conversationId', async (c) => {
    const context = await workspaceContext(c, 'channels.read');
    const row = await getChannel(c.var.db, context.current.workspaceId, c.req.param('channelKey'));
    const conversation = await ownerThread(c.var.db, row.id, c.req.param('conversationId'));
    return c.html(
      <ConversationPage
        user={currentUser(c)}
        {...context}
        channel={{ channel_key: row.channelKey, name: row.name }}
        conversation={conversation}
        conversationId={c.req.param('conversationId')}
        notice={noticeOf(c)}
      />,
    );
  });

  registerConversationErasure(app);

  app.post('/integrations/channels/:channelKey/widget', async (c) => {
    const context = await workspaceContext(c, 'channels.write');
    const channelKey = c.req.param('channelKey');
    const parsed = widgetPatchFromForm(await readForm(c));
    if (!parsed.success)
      return renderChannel(
        c,
        context,
        channelKey,
        { errors: formErrors(parsed.error), error: 'Some widget settings are not valid.' },
        422,
      );
    return changeChannelOrShow(
      c,
      context,
      channelKey,
      () =>
        updateChannel(c.var.db, scopeOf(context), userAuditContext(c), channelKey, { widget: parsed.data }, urlsOf(c)),
      'saved',
    );
  });

  // One language's copy: an empty field takes the language's own words back out.
  app.post('/integrations/channels/:channelKey/copy/:language', async (c) => {
    const context = await workspaceContext(c, 'channels.write');
    const channelKey = c.req.param('channelKey');
    const language = c.req.param('language');
    if (!isLanguage(language)) return renderChannel(c, context, channelKey, { error: 'No such language.' }, 422);
    const form = await readForm(c);
    const copy = Object.fromEntries(COPY_FIELDS.map(([field]) => [field, form[field]?.trim() || null]));
    const parsed = widgetConfigPatchSchema.safeParse({ copy_by_language: { [language]: copy } });
    if (!parsed.success) {
      // The schema's pointers name copy_by_language.{language}.{field}; the form's fields are {field}.
      const errors = Object.fromEntries(
        Object.entries(formErrors(parsed.error)).map(([name, detail]) => [name.split('.').at(-1)!, detail]),
      );
      return renderChannel(
        c,
        context,
        channelKey,
        { copyLanguage: language, copyErrors: errors, error: 'Some of the copy is not valid.' },
        422,
      );
    }
    return changeChannelOrShow(
      c,
      context,
      channelKey,
      () =>
        updateChannel(c.var.db, scopeOf(context), userAuditContext(c), channelKey, { widget: parsed.data }, urlsOf(c)),
      'saved',
      `&copy=${language}#copy-languages-title`,
    );
  });

  app.post('/integrations/channels/:channelKey/settings', async (c) => {
    const context = await workspaceContext(c, 'channels.write');
    const channelKey = c.req.param('channelKey');
    const parsed = updateChannelSchema.safeParse(channelFieldsFromForm(await readForm(c)));
    if (!parsed.success)
      return renderChannel(
        c,
        context,
        channelKey,
        { errors: formErrors(parsed.error), error: 'Please check the settings.' },
        422,
      );
    return changeChannelOrShow(
      c,
      context,
      channelKey,
      () => updateChannel(c.var.db, scopeOf(context), userAuditContext(c), channelKey, parsed.data, urlsOf(c)),
      'saved',
    );
  });

  app.post('/integrations/channels/:channelKey/status', async (c) => {
    const context = await workspaceContext(c, 'channels.write');
    const channelKey = c.req.param('channelKey');
    const parsed = z.enum(['active', 'disabled']).safeParse((await readForm(c)).status);
    if (!parsed.success) return renderChannel(c, context, channelKey, { error: 'Choose active or disabled.' }, 422);
    const status = parsed.data;
    return changeChannelOrShow(
      c,
      context,
      channelKey,
      () => updateChannel(c.var.db, scopeOf(context), userAuditContext(c), channelKey, { status }, urlsOf(c)),
      status === 'active' ? 'enabled' : 'disabled',
    );
  });

  return app;
}
