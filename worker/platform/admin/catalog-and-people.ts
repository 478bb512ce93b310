/**
 * Admin routes for the domain catalog, users (platform admins) and provider review
 * (docs/design/identity-and-access.md).
 */
import { z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../env';
import { PROVIDER_STATUSES } from '../../vocabulary';
import { displayText } from '../../lib/openapi';
import { createDomain, type LeadPrice, listDomainEntries, updateDomain } from '../domains';
import { currencySchema, minorUnits } from '../billing';
import { findUserByEmail, setPlatformAdmin } from '../identity';
import { approvalSchema, domainSlugSchema, reviewNoteSchema } from '../providers';
import { agentHealth } from '../agents';
import { listProvidersForReview, providerForReview, reviewProvider } from '../providers';
import {
  agentHealthSchema,
  approvalAnswerSchema,
  decisionAnswerSchema,
  domainEntrySchema,
  domainListSchema,
  providerListSchema,
  providerReviewSchema,
  userSchema,
} from './responses';
import { adminAuditContext, defineAdminRoute, idParam, nameSchema } from './define';
import { clock } from '../../lib/clock';

/** A domain's lead price in minor units of its currency; null makes its leads free. */
const leadPriceSchema = minorUnits.max(100_000_000).nullable();

/**
 * A domain's lead price from a catalog body: its amount (null: free) in its currency, the
 * platform's when the body names none; nothing when the body does not touch the price.
 */
function leadPriceOf(
  body: { lead_price_minor?: number | null; lead_price_currency?: string | undefined },
  platformCurrency: string,
): { leadPrice?: LeadPrice } {
  if (body.lead_price_minor === undefined) return {};
  if (body.lead_price_minor === null) return { leadPrice: null };
  return { leadPrice: { minor: body.lead_price_minor, currency: body.lead_price_currency ?? platformCurrency } };
}

/** Registers the catalog, user and provider-review routes. */
export function registerCatalogAndPeopleRoutes(app: OpenAPIHono<AppEnv>): void {
  defineAdminRoute(
    app,
    {
      method: 'post',
      path: '/api/admin/domains',
      response: domainEntrySchema,
      body: z.strictObject({
        domain: domainSlugSchema,
        name: nameSchema,
        description: displayText({ max: 500, multiline: true }).optional(),
        lead_price_minor: leadPriceSchema.optional(),
        lead_price_currency: currencySchema.optional(),
      }),
      status: 201,
      description: 'The new catalog domain.',
    },
    ({ body }, c) =>
      createDomain(c.var.db, adminAuditContext(c), {
        domain: body.domain,
        name: body.name,
        ...(body.description ? { description: body.description } : {}),
        ...leadPriceOf(body, c.var.services.settings.PLATFORM_CURRENCY),
      }),
  );
  defineAdminRoute(
    app,
    {
      method: 'patch',
      path: '/api/admin/domains/{domain}',
      params: z.object({ domain: domainSlugSchema }),
      response: domainEntrySchema,
      body: z.strictObject({
        name: nameSchema.optional(),
        description: displayText({ max: 500, multiline: true }).nullable().optional(),
        lead_price_minor: leadPriceSchema.optional(),
        lead_price_currency: currencySchema.optional(),
      }),
      status: 200,
      description: 'The domain after the change.',
    },
    ({ params, body }, c) =>
      updateDomain(c.var.db, adminAuditContext(c), params.domain, {
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.description !== undefined ? { description: body.description } : {}),
        ...leadPriceOf(body, c.var.services.settings.PLATFORM_CURRENCY),
      }),
  );
  defineAdminRoute(
    app,
    {
      method: 'get',
      path: '/api/admin/domains',
      response: domainListSchema,
      status: 200,
      description: 'The domain catalog.',
    },
    async (_input, c) => ({
      data: await listDomainEntries(c.var.db),
    }),
  );

  defineAdminRoute(
    app,
    {
      method: 'get',
      path: '/api/admin/users',
      response: userSchema,
      query: z.object({ email: z.string().trim().min(3).max(254) }),
      status: 200,
      description: 'The user with that email.',
    },
    ({ query }, c) => findUserByEmail(c.var.db, query.email),
  );
  defineAdminRoute(
    app,
    {
      method: 'patch',
      path: '/api/admin/users/{user_id}',
      response: userSchema,
      params: idParam('user_id', 'usr'),
      body: z.strictObject({ platform_admin: z.boolean() }),
      status: 200,
      description: 'The user.',
    },
    ({ params, body }, c) => setPlatformAdmin(c.var.db, adminAuditContext(c), params.user_id, body.platform_admin),
  );

  defineAdminRoute(
    app,
    {
      method: 'get',
      path: '/api/admin/providers',
      response: providerListSchema,
      query: z.object({ status: z.enum(PROVIDER_STATUSES).optional() }),
      status: 200,
      description: 'Providers, newest submission first.',
    },
    async ({ query }, c) => ({ data: await listProvidersForReview(c.var.db, query.status) }),
  );
  defineAdminRoute(
    app,
    {
      method: 'get',
      path: '/api/admin/providers/{provider_id}',
      response: providerReviewSchema,
      params: idParam('provider_id', 'prv'),
      status: 200,
      description: 'The provider, with its profile and history.',
    },
    ({ params }, c) => providerForReview(c.var.db, params.provider_id),
  );
  defineAdminRoute(
    app,
    {
      method: 'post',
      path: '/api/admin/providers/{provider_id}/approve',
      response: approvalAnswerSchema,
      params: idParam('provider_id', 'prv'),
      body: approvalSchema,
      status: 200,
      description: 'The provider, now active; agents and robots with their signing secret, shown this once.',
      noStore: true,
    },
    async ({ params, body }, c) => {
      const { row, signingSecret } = await reviewProvider(
        c.var.db,
        adminAuditContext(c),
        params.provider_id,
        'approve',
        {
          note: null,
          version: body.version,
          secretsKey: c.var.services.secretsKey,
          currency: c.var.services.settings.PLATFORM_CURRENCY,
        },
      );
      // Agents and robots: the signing secret, in this answer only (docs/design/identity-and-access.md).
      return { provider_id: row.id, status: row.status, ...(signingSecret ? { signing_secret: signingSecret } : {}) };
    },
  );
  defineAdminRoute(
    app,
    {
      method: 'get',
      path: '/api/admin/providers/{provider_id}/health',
      response: agentHealthSchema,
      params: idParam('provider_id', 'prv'),
      status: 200,
      description:
        'An agent’s or robot’s last 24 hours: success rate, p50 and p95 latency, circuit breaker, last errors.',
    },
    async ({ params }, c) => {
      await providerForReview(c.var.db, params.provider_id);
      return agentHealth(c.var.db, params.provider_id, clock.now());
    },
  );
  for (const decision of ['reject', 'suspend'] as const) {
    defineAdminRoute(
      app,
      {
        method: 'post',
        path: `/api/admin/providers/{provider_id}/${decision}`,
        response: decisionAnswerSchema,
        params: idParam('provider_id', 'prv'),
        body: reviewNoteSchema,
        status: 200,
        description: `The provider after the decision; the note is shown to them.`,
      },
      async ({ params, body }, c) => {
        const { row } = await reviewProvider(c.var.db, adminAuditContext(c), params.provider_id, decision, {
          note: body.note,
          secretsKey: c.var.services.secretsKey,
          currency: c.var.services.settings.PLATFORM_CURRENCY,
        });
        return { provider_id: row.id, status: row.status, review_note: row.reviewNote };
      },
    );
  }
}
