/** @jsxImportSource hono/jsx */
/**
 * /admin/providers: platform admins review providers in the console, with the same rules as the
 * admin API (the same service). Anyone else signed in gets 403.
 */
import type { Context } from 'hono';
import { newPageApp } from '../shared/app';
import type { AppEnv } from '../../env';
import { ApiError } from '../../lib/errors';
import { PROVIDER_STATUSES, type ProviderStatus } from '../../vocabulary';
import { agentHealth } from '../../platform/agents';
import { reviewNoteSchema } from '../../platform/providers';
import {
  countProvidersByStatus,
  listProvidersForReview,
  providerForReview,
  reviewProvider,
} from '../../platform/providers';
import { formErrors, readForm } from '../shared/form-input';
import { noticeOf } from '../shared/notices';
import { consolePageGuards, currentUser, requirePlatformAdmin } from '../shared/session';
import { userAuditContext } from '../shared/workspace';
import { ProviderQueuePage, ProviderReviewPage } from './pages';
import { registerBillingPages } from './billing-routes';
import { PlatformInsightsPage } from './insights-page';
import { platformNumbers } from '../../platform/insights';
import { clock } from '../../lib/clock';

const isStatus = (value: string | undefined): value is ProviderStatus =>
  PROVIDER_STATUSES.includes(value as ProviderStatus);

async function renderReview(
  c: Context<AppEnv>,
  providerId: string,
  extra: { errors?: Record<string, string>; error?: string; issuedSecret?: string } = {},
  status: 200 | 409 | 422 = 200,
) {
  const provider = await providerForReview(c.var.db, providerId);
  const health =
    provider.kind === 'agent' || provider.kind === 'robot'
      ? await agentHealth(c.var.db, providerId, clock.now())
      : undefined;
  if (extra.issuedSecret) c.header('Cache-Control', 'no-store');
  return c.html(
    <ProviderReviewPage
      user={currentUser(c)}
      provider={provider}
      {...(health ? { health } : {})}
      notice={noticeOf(c)}
      {...extra}
    />,
    status,
  );
}

/** The platform admins' pages. */
export function adminPageRoutes() {
  const app = newPageApp();
  for (const path of ['/admin', '/admin/*']) app.use(path, ...consolePageGuards, requirePlatformAdmin);

  app.get('/admin', (c) => c.redirect('/admin/providers', 303));
  registerBillingPages(app);
  app.get('/admin/insights', async (c) => {
    const days = c.req.query('days') === '7' ? 7 : 30;
    const numbers = await platformNumbers(c.var.db, days, c.var.services.clock.now());
    c.header('Cache-Control', 'no-store');
    return c.html(<PlatformInsightsPage user={currentUser(c)} numbers={numbers} days={days} />);
  });

  app.get('/admin/providers', async (c) => {
    const wanted = c.req.query('status');
    const status = isStatus(wanted) ? wanted : 'pending_review';
    const [rows, counts] = await Promise.all([
      listProvidersForReview(c.var.db, status),
      countProvidersByStatus(c.var.db),
    ]);
    return c.html(
      <ProviderQueuePage user={currentUser(c)} status={status} rows={rows} counts={counts} notice={noticeOf(c)} />,
    );
  });

  app.get('/admin/providers/:providerId', async (c) => renderReview(c, c.req.param('providerId')));

  for (const decision of ['approve', 'reject', 'suspend'] as const) {
    app.post(`/admin/providers/:providerId/${decision}`, async (c) => {
      const providerId = c.req.param('providerId');
      const form = await readForm(c);
      let note: string | null = null;
      if (decision !== 'approve') {
        const parsed = reviewNoteSchema.safeParse({ note: form.note ?? '' });
        if (!parsed.success)
          return renderReview(
            c,
            providerId,
            { errors: formErrors(parsed.error), error: 'Write a note: the provider reads it.' },
            422,
          );
        note = parsed.data.note;
      }
      // The page approves the version it showed; an edit since then shows the new one instead.
      const version = /^\d{1,9}$/.test(form.version ?? '') ? Number(form.version) : undefined;
      let issuedSecret: string | undefined;
      try {
        ({ signingSecret: issuedSecret } = await reviewProvider(c.var.db, userAuditContext(c), providerId, decision, {
          note,
          version,
          secretsKey: c.var.services.secretsKey,
          currency: c.var.services.settings.PLATFORM_CURRENCY,
        }));
      } catch (error) {
        if (error instanceof ApiError && (error.code === 'invalid_transition' || error.code === 'profile_changed'))
          return renderReview(c, providerId, { error: error.detail }, 409);
        throw error;
      }
      // An approved agent or robot's signing secret is shown in this answer only.
      if (issuedSecret) return renderReview(c, providerId, { issuedSecret });
      const notice = { approve: 'approved', reject: 'rejected', suspend: 'suspended' }[decision];
      return c.redirect(`/admin/providers/${providerId}?notice=${notice}`, 303);
    });
  }

  return app;
}
