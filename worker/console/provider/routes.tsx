/** @jsxImportSource hono/jsx */
/**
 * The provider's console: /provider/onboarding (a guided profile in steps, then review) and
 * /provider/workbench (leads to claim and work). The pages call the same services as the
 * provider API, so the state machine and the lead rules are the same whichever way one uses.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { newPageApp } from '../shared/app';
import type { AppEnv } from '../../env';
import { ApiError, type FieldError } from '../../lib/errors';
import { providerRefusalError, requireProviderRow } from '../../platform/providers';
import { providerRefusal, type ProviderAction } from '../../platform/access';
import { agentHealth, rotateSigningSecret } from '../../platform/agents';
import { listDomainEntries } from '../../platform/domains';
import { listOpenInvitations, requireVerifiedEmail } from '../../platform/identity';
import {
  claimLead,
  enterLeadOrganization,
  leadDetailForProvider,
  listLeadsForProvider,
  replyBodySchema,
  replyToLead,
} from '../../platform/leads';
import { profileInputSchema, type ProfileInput } from '../../platform/providers';
import { describeProvider, providerOf, saveProviderProfile, type ProviderRow } from '../../platform/providers';
import { preferencesOf, preferencesPatchSchema, savePreferences } from '../../platform/providers';
import { landingFor } from '../auth/sign-in-steps';
import { formErrors, formList, readForm } from '../shared/form-input';
import type { FieldErrors } from '../shared/forms';
import { noticeOf } from '../shared/notices';
import { consolePageGuards, currentUser } from '../shared/session';
import { userAuditContext } from '../shared/workspace';
import { LeadPage } from './lead-page';
import { ProviderOnboardingPage } from './onboarding-page';
import { OperationsPage, ProviderClosedPage } from './operations-page';
import { ONBOARDING_STEPS, type OnboardingStep } from './states';
import { WorkbenchPage } from './workbench-page';
import { providerCredits } from '../../platform/billing';
import { expertNumbers } from '../../platform/insights';
import { registerLeadForms } from './lead-forms';
import { creditsTopUp, registerCreditTopUp } from './top-up';
import { clock } from '../../lib/clock';

/**
 * The one provider gate of the console's pages, over the same policy as the provider API
 * (access/policy.ts): a user who is no provider is sent to their own landing page; a provider
 * whose state or kind does not allow the area gets a page that says why (403), and a change
 * (POST) the same problem as the API answers.
 */
function providerPage(
  action: ProviderAction,
  area: 'onboarding' | 'workbench' | 'operations',
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const user = currentUser(c);
    const provider = user.role === 'provider' ? await providerOf(c.var.db, user.id) : undefined;
    if (!provider) return c.redirect(await landingFor(c, user), 303);
    const refusal = providerRefusal(provider, action);
    if (refusal) {
      if (c.req.method !== 'GET' || area === 'onboarding') throw providerRefusalError(provider, action, refusal);
      return c.html(
        <ProviderClosedPage user={user} profile={await describeProvider(c.var.db, provider)} area={area} />,
        403,
      );
    }
    c.set('provider', provider);
    await next();
  };
}

const isStep = (value: string | undefined): value is OnboardingStep =>
  ONBOARDING_STEPS.some((step) => step.id === value);

/** The first step that still needs something, else review. */
function firstOpenStep(missing: string[]): OnboardingStep {
  if (missing.includes('kind')) return 'kind';
  if (missing.some((field) => ['display_name', 'headline', 'endpoint_url', 'agent_card_url'].includes(field)))
    return 'profile';
  if (missing.includes('accepted_scope.domains')) return 'scope';
  if (missing.includes('languages') || missing.includes('regions')) return 'reach';
  return 'review';
}

/** The profile fields of one step's form, in the provider API's shape. */
function stepInput(step: OnboardingStep, form: Record<string, string>): Record<string, unknown> {
  const optional = (value: string | undefined) => (value === undefined || value.trim() === '' ? null : value);
  switch (step) {
    case 'kind':
      return { kind: form.kind };
    case 'profile':
      return {
        display_name: form.display_name ?? '',
        headline: form.headline ?? '',
        bio: optional(form.bio),
        ...('endpoint_url' in form ? { endpoint_url: optional(form.endpoint_url) } : {}),
        ...('agent_card_url' in form ? { agent_card_url: optional(form.agent_card_url) } : {}),
        ...('priority' in form && form.priority !== '' ? { priority: Number(form.priority) } : {}),
        ...('timeout_seconds' in form && form.timeout_seconds !== ''
          ? { timeout_ms: Math.round(Number(form.timeout_seconds) * 1000) }
          : {}),
        // A bearer token is write-only: a new value replaces it, the box removes it, an empty field keeps it.
        ...(form.remove_bearer_token
          ? { agent_bearer_token: null }
          : form.agent_bearer_token?.trim()
            ? { agent_bearer_token: form.agent_bearer_token }
            : {}),
      };
    case 'scope':
      return { accepted_scope: { domains: formList(form, 'domains'), topics: formList(form, 'topics') } };
    case 'reach':
      return { languages: formList(form, 'languages'), regions: formList(form, 'regions') };
    case 'review':
      return {};
  }
}

/** Field names on the pages for the API's pointers (`/accepted_scope/domains/0` is the domains field). */
function pageFieldErrors(errors: Record<string, string>): FieldErrors {
  return Object.fromEntries(
    Object.entries(errors).map(([name, detail]) => [
      name === 'timeout_ms' ? 'timeout_seconds' : name.replace(/^accepted_scope\./, ''),
      detail,
    ]),
  );
}

function fieldErrorsOf(errors: FieldError[]): FieldErrors {
  const named: Record<string, string> = {};
  for (const error of errors) {
    const [first, second] = error.pointer.split('/').filter(Boolean);
    const name = second && !/^\d+$/.test(second) ? `${first}.${second}` : (first ?? '');
    named[name] ??= error.detail;
  }
  return pageFieldErrors(named);
}

async function renderOnboarding(
  c: Context<AppEnv>,
  provider: ProviderRow,
  step: OnboardingStep | undefined,
  extra: { errors?: FieldErrors; values?: Record<string, string>; error?: string } = {},
  status: 200 | 409 | 422 = 200,
) {
  const user = currentUser(c);
  const [profile, domains, invitations] = await Promise.all([
    describeProvider(c.var.db, provider),
    listDomainEntries(c.var.db),
    listOpenInvitations(c.var.db, { email: user.email }),
  ]);
  return c.html(
    <ProviderOnboardingPage
      user={user}
      profile={profile}
      step={step ?? firstOpenStep(profile.missing_fields)}
      domains={domains}
      referredBy={provider.referredByChannelKey}
      pendingInvitations={invitations.length}
      notice={noticeOf(c)}
      {...extra}
    />,
    status,
  );
}

/** Saves a change through the provider service; what it refuses is shown on the step's page. */
async function saveOrShow(
  c: Context<AppEnv>,
  provider: ProviderRow,
  step: OnboardingStep,
  input: ProfileInput,
  values: Record<string, string>,
  then: string,
) {
  try {
    await saveProviderProfile(
      c.var.db,
      provider,
      input,
      { egress: c.var.services.egress, secretsKey: c.var.services.secretsKey },
      c.var.requestId,
    );
  } catch (error) {
    if (
      !(error instanceof ApiError) ||
      !['validation_failed', 'profile_incomplete', 'invalid_transition', 'conflict'].includes(error.code)
    )
      throw error;
    return renderOnboarding(
      c,
      provider,
      step,
      { errors: fieldErrorsOf(error.options.errors ?? []), values, error: error.detail },
      error.status as 409 | 422,
    );
  }
  return c.redirect(then, 303);
}

async function renderWorkbench(
  c: Context<AppEnv>,
  provider: ProviderRow,
  extra: { error?: string } = {},
  status: 200 | 402 | 409 | 422 = 200,
) {
  const user = currentUser(c);
  const profile = await describeProvider(c.var.db, provider);
  const tab = c.req.query('tab') === 'mine' ? 'mine' : 'available';
  const after = c.req.query('after');
  const now = c.var.services.clock.now();
  // The lists and numbers decide nothing: a replica's session, as new as the expert's last change.
  const [page, credits, numbers] = await Promise.all([
    listLeadsForProvider(c.var.reads, provider, {
      scope: tab,
      limit: 25,
      ...(after?.startsWith('lead_') ? { startingAfter: after } : {}),
    }),
    providerCredits(c.var.reads, provider.id, c.var.services.settings.PLATFORM_CURRENCY),
    expertNumbers(c.var.reads, provider.id, now),
  ]);
  const topUp = await creditsTopUp(c, provider.id, credits.currency);
  return c.html(
    <WorkbenchPage
      user={user}
      profile={profile}
      tab={tab}
      leads={page.data}
      counts={page.counts}
      hasMore={page.has_more}
      preferences={preferencesOf(provider)}
      credits={credits}
      topUp={topUp}
      numbers={numbers}
      now={now}
      notice={noticeOf(c)}
      {...extra}
    />,
    status,
  );
}

/** The provider's pages. */
export function providerPageRoutes() {
  const app = newPageApp();
  app.use('/provider/*', ...consolePageGuards);
  for (const [path, action, area] of [
    ['/provider/onboarding', 'profile.manage', 'onboarding'],
    ['/provider/workbench', 'workbench.use', 'workbench'],
    ['/provider/operations', 'agent.operate', 'operations'],
  ] as const) {
    // `/provider/workbench/*` also matches `/provider/workbench` itself.
    app.use(`${path}/*`, providerPage(action, area));
  }

  app.get('/provider/onboarding', async (c) => {
    const step = c.req.query('step');
    return renderOnboarding(c, requireProviderRow(c), isStep(step) ? step : undefined);
  });

  app.post('/provider/onboarding/submit', async (c) => {
    requireVerifiedEmail(currentUser(c));
    return saveOrShow(
      c,
      requireProviderRow(c),
      'review',
      { submit: true },
      {},
      '/provider/onboarding?step=review&notice=submitted',
    );
  });

  app.post('/provider/onboarding/:step', async (c) => {
    const provider = requireProviderRow(c);
    const step = c.req.param('step');
    if (!isStep(step) || step === 'review') throw new ApiError('not_found', 'No such onboarding step.');
    const form = await readForm(c);
    const parsed = profileInputSchema.safeParse(stepInput(step, form));
    if (!parsed.success)
      return renderOnboarding(
        c,
        provider,
        step,
        { errors: pageFieldErrors(formErrors(parsed.error)), values: form, error: 'Please check the form.' },
        422,
      );
    const next = ONBOARDING_STEPS[ONBOARDING_STEPS.findIndex((item) => item.id === step) + 1]!.id;
    return saveOrShow(c, provider, step, parsed.data, form, `/provider/onboarding?step=${next}&notice=saved`);
  });

  app.get('/provider/workbench', async (c) => renderWorkbench(c, requireProviderRow(c)));

  registerLeadForms(app);
  registerCreditTopUp(app);
  app.post('/provider/workbench/preferences', async (c) => {
    const provider = requireProviderRow(c);
    const form = await readForm(c);
    const parsed = preferencesPatchSchema.safeParse({
      availability: form.availability,
      lead_alerts: form.lead_alerts,
      max_open_claims: Number(form.max_open_claims),
    });
    if (!parsed.success) {
      return renderWorkbench(c, provider, { error: 'Choose an availability, an alert mode, and 1 to 100 leads.' }, 422);
    }
    await savePreferences(c.var.db, provider, parsed.data);
    return c.redirect('/provider/workbench?notice=preferences#preferences', 303);
  });

  app.get('/provider/workbench/leads/:leadId', async (c) => {
    const provider = requireProviderRow(c);
    await enterLeadOrganization(c.var.db, c.req.param('leadId'));
    const lead = await leadDetailForProvider(c.var.db, provider, c.req.param('leadId'));
    return c.html(<LeadPage user={currentUser(c)} lead={lead} notice={noticeOf(c)} />);
  });

  app.post('/provider/workbench/leads/:leadId/claim', async (c) => {
    const provider = requireProviderRow(c);
    const leadId = c.req.param('leadId');
    requireVerifiedEmail(currentUser(c));
    try {
      await enterLeadOrganization(c.var.db, leadId);
      await claimLead(c.var.db, provider, leadId, userAuditContext(c));
    } catch (error) {
      if (error instanceof ApiError && error.code === 'already_claimed')
        return renderWorkbench(
          c,
          provider,
          { error: 'Another expert claimed this lead first. It has left your Available list.' },
          409,
        );
      if (error instanceof ApiError && error.code === 'insufficient_credits')
        return renderWorkbench(c, provider, { error: `${error.message} Ask the platform to add credits.` }, 402);
      if (error instanceof ApiError && error.code === 'currency_mismatch')
        return renderWorkbench(c, provider, { error: error.message }, 422);
      throw error;
    }
    return c.redirect(`/provider/workbench/leads/${leadId}?notice=claimed`, 303);
  });

  // The reply form works without JavaScript; /embed/lead.js sends it over the API and stays on the page.
  app.post('/provider/workbench/leads/:leadId/messages', async (c) => {
    const leadId = c.req.param('leadId');
    const provider = requireProviderRow(c);
    await enterLeadOrganization(c.var.db, leadId);
    const form = await readForm(c);
    const parsed = replyBodySchema.safeParse({ text: form.text ?? '' });
    if (!parsed.success) {
      const lead = await leadDetailForProvider(c.var.db, provider, leadId);
      return c.html(
        <LeadPage user={currentUser(c)} lead={lead} error="Write a reply of 1 to 4,000 characters." />,
        422,
      );
    }
    await replyToLead(c.var.db, provider, leadId, parsed.data.text, userAuditContext(c), c.var.services.mail);
    return c.redirect(`/provider/workbench/leads/${leadId}?notice=replied#reply-form`, 303);
  });

  app.get('/provider/operations', async (c) => renderOperations(c, requireProviderRow(c)));

  // The new secret is shown in the answer to this POST, once; the page itself never shows it again.
  app.post('/provider/operations/secret/rotate', async (c) => {
    const provider = requireProviderRow(c);
    try {
      const secret = await rotateSigningSecret(
        c.var.db,
        userAuditContext(c),
        provider.id,
        c.var.services.secretsKey,
        clock.now(),
      );
      return renderOperations(c, provider, {
        shownSecret: { value: secret.signing_secret, previousValidUntil: secret.previous_secret_valid_until },
      });
    } catch (error) {
      if (error instanceof ApiError && error.code === 'conflict')
        return renderOperations(c, provider, { error: error.detail }, 409);
      throw error;
    }
  });

  return app;
}

async function renderOperations(
  c: Context<AppEnv>,
  provider: ProviderRow,
  extra: { shownSecret?: { value: string; previousValidUntil: string | null }; error?: string } = {},
  status: 200 | 409 | 422 = 200,
) {
  // Re-read: a reveal or rotation just changed the row.
  const fresh = (await providerOf(c.var.db, provider.userId)) ?? provider;
  const [profile, health] = await Promise.all([
    describeProvider(c.var.db, fresh),
    agentHealth(c.var.db, fresh.id, clock.now()),
  ]);
  c.header('Cache-Control', 'no-store');
  return c.html(
    <OperationsPage user={currentUser(c)} profile={profile} health={health} notice={noticeOf(c)} {...extra} />,
    status,
  );
}
