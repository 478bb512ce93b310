/** @jsxImportSource hono/jsx */
/** The provider's console pages. */
import { newApp } from '../../app';
import { listOpenInvitations } from '../../platform/identity/memberships';
import { providerOf } from '../../platform/providers/service';
import { landingFor } from '../auth/routes';
import { consolePageGuards, currentUser } from '../shared/session';
import { ProviderOnboardingPage } from './pages';

/** /provider/onboarding. */
export function providerRoutes() {
  const app = newApp('page');
  app.use('/provider/*', ...consolePageGuards);

  app.get('/provider/onboarding', async (c) => {
    const user = currentUser(c);
    if (user.role !== 'provider') return c.redirect(await landingFor(c, user), 303);
    const [provider, invitations] = await Promise.all([providerOf(c.var.db, user.id), listOpenInvitations(c.var.db, { email: user.email })]);
    return c.html(
      <ProviderOnboardingPage user={user} status={provider?.status ?? 'registered'} referredBy={provider?.referredByChannelKey ?? null} pendingInvitations={invitations.length} />,
    );
  });

  return app;
}
