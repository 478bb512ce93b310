/**
 * Every protected route, in one table, against the standard access failures (access-cases.ts).
 * A route that is neither here nor in PUBLIC_ROUTES fails the coverage test, so a new route
 * cannot ship without its access cases.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { app } from '../../worker/index';
import { accessFailureCases, createAccessTenant, type AccessTenant, type ProtectedRoute } from './access-cases';
import { executeBody } from './helpers';

const channelBody = { name: 'Site', domain: 'consultation' };

const PROTECTED_ROUTES: ProtectedRoute[] = [
  // The gateway.
  { method: 'POST', path: '/api/execute', auth: 'api_key', scope: 'execute', body: executeBody() },
  // The same execution for MCP clients and A2A agents (gateway/mcp.ts, gateway/a2a/).
  {
    method: 'POST',
    path: '/mcp',
    auth: 'api_key',
    scope: 'execute',
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'execute', arguments: { domain: 'faq' } } },
  },
  {
    method: 'POST',
    path: '/a2a',
    auth: 'api_key',
    scope: 'execute',
    body: {
      jsonrpc: '2.0',
      id: 1,
      method: 'message/send',
      params: { message: { parts: [{ kind: 'text', text: 'Hi' }] } },
    },
  },
  // The platform core's channel API.
  {
    method: 'POST',
    path: '/api/integrations/channels',
    auth: 'api_key_or_session',
    scope: 'channels:write',
    deniedRole: 'member',
    body: channelBody,
  },
  {
    method: 'GET',
    path: '/api/integrations/channels',
    auth: 'api_key_or_session',
    scope: 'channels:read',
    tenantScoped: true,
  },
  {
    method: 'GET',
    path: '/api/integrations/channels/:channelKey',
    auth: 'api_key_or_session',
    scope: 'channels:read',
    tenantScoped: true,
  },
  {
    method: 'PATCH',
    path: '/api/integrations/channels/:channelKey',
    auth: 'api_key_or_session',
    scope: 'channels:write',
    deniedRole: 'member',
    tenantScoped: true,
    body: { name: 'Renamed' },
  },
  {
    method: 'GET',
    path: '/api/integrations/channels/:channelKey/intake',
    auth: 'api_key_or_session',
    scope: 'channels:read',
    tenantScoped: true,
  },
  {
    method: 'GET',
    path: '/api/integrations/channels/:channelKey/csp-check',
    auth: 'api_key_or_session',
    scope: 'channels:read',
    tenantScoped: true,
  },
  // The admin API.
  { method: 'POST', path: '/api/admin/organizations', auth: 'admin', body: { name: 'Org' } },
  { method: 'GET', path: '/api/admin/organizations', auth: 'admin' },
  { method: 'PATCH', path: '/api/admin/organizations/:organization_id', auth: 'admin', body: { status: 'active' } },
  { method: 'POST', path: '/api/admin/workspaces', auth: 'admin', body: { organization_id: 'org_x', name: 'W' } },
  { method: 'GET', path: '/api/admin/workspaces', auth: 'admin' },
  { method: 'PATCH', path: '/api/admin/workspaces/:workspace_id', auth: 'admin', body: { status: 'active' } },
  {
    method: 'PUT',
    path: '/api/admin/workspaces/:workspace_id/default-domain',
    auth: 'admin',
    body: { domain: null },
  },
  {
    method: 'POST',
    path: '/api/admin/api-keys',
    auth: 'admin',
    body: { workspace_id: 'ws_x', name: 'k', scopes: ['execute'] },
  },
  { method: 'GET', path: '/api/admin/api-keys', auth: 'admin' },
  { method: 'POST', path: '/api/admin/api-keys/:key_id/revoke', auth: 'admin' },
  { method: 'POST', path: '/api/admin/admin-tokens', auth: 'admin', body: { name: 'ops' } },
  { method: 'GET', path: '/api/admin/admin-tokens', auth: 'admin' },
  { method: 'POST', path: '/api/admin/admin-tokens/:admin_token_id/revoke', auth: 'admin' },
  { method: 'GET', path: '/api/admin/audit-log', auth: 'admin' },
  { method: 'POST', path: '/api/admin/domains', auth: 'admin', body: { domain: 'access-test', name: 'Access test' } },
  { method: 'GET', path: '/api/admin/domains', auth: 'admin' },
  { method: 'GET', path: '/api/admin/users', auth: 'admin' },
  { method: 'PATCH', path: '/api/admin/users/:user_id', auth: 'admin', body: { platform_admin: false } },
  { method: 'GET', path: '/api/admin/providers', auth: 'admin' },
  { method: 'GET', path: '/api/admin/providers/:provider_id', auth: 'admin' },
  { method: 'POST', path: '/api/admin/providers/:provider_id/approve', auth: 'admin' },
  { method: 'POST', path: '/api/admin/providers/:provider_id/reject', auth: 'admin', body: { note: 'n' } },
  { method: 'POST', path: '/api/admin/providers/:provider_id/suspend', auth: 'admin', body: { note: 'n' } },
  { method: 'GET', path: '/api/admin/providers/:provider_id/health', auth: 'admin' },
  {
    method: 'POST',
    path: '/api/admin/webhooks',
    auth: 'admin',
    body: { workspace_id: 'ws_x', url: 'https://hooks.example.com/in', event_types: ['lead.created'] },
  },
  { method: 'GET', path: '/api/admin/webhooks', auth: 'admin' },
  { method: 'POST', path: '/api/admin/webhooks/:webhook_id/disable', auth: 'admin' },
  { method: 'POST', path: '/api/admin/webhooks/:webhook_id/enable', auth: 'admin' },
  { method: 'POST', path: '/api/admin/webhooks/:webhook_id/rotate-secret', auth: 'admin' },
  { method: 'GET', path: '/api/admin/webhooks/:webhook_id/deliveries', auth: 'admin' },
  { method: 'POST', path: '/api/admin/webhooks/:webhook_id/deliveries/:event_id/redeliver', auth: 'admin' },
  { method: 'POST', path: '/api/admin/emails/test', auth: 'admin', body: { user_email: 'nobody@example.com' } },
  { method: 'GET', path: '/api/admin/emails/:email_id', auth: 'admin' },
  // The ledger: contracts, escrows, refunds, meter events; lead prices.
  { method: 'PATCH', path: '/api/admin/domains/:domain', auth: 'admin', body: { lead_price_minor: 100 } },
  {
    method: 'POST',
    path: '/api/admin/contracts',
    auth: 'admin',
    body: { workspace_id: 'ws_x', plan: 'P', currency: 'EUR', starts_at: '2026-01-01T00:00:00Z' },
  },
  { method: 'GET', path: '/api/admin/contracts', auth: 'admin' },
  { method: 'POST', path: '/api/admin/contracts/:contract_id/end', auth: 'admin' },
  {
    method: 'POST',
    path: '/api/admin/escrows/:escrow_id/credits',
    auth: 'admin',
    body: { amount_minor: 100, reference: 'INV-1' },
  },
  { method: 'GET', path: '/api/admin/escrows/:escrow_id', auth: 'admin' },
  { method: 'GET', path: '/api/admin/refund-requests', auth: 'admin' },
  {
    method: 'POST',
    path: '/api/admin/refund-requests/:refund_request_id/decision',
    auth: 'admin',
    body: { decision: 'decline' },
  },
  { method: 'GET', path: '/api/admin/meter-events', auth: 'admin' },
  // A workspace's usage and statements: its owners (an administrator names the workspace).
  { method: 'GET', path: '/api/usage', auth: 'api_key_or_session', deniedRole: 'admin', tenantScoped: true },
  {
    method: 'GET',
    path: '/api/usage/statements',
    auth: 'api_key_or_session',
    deniedRole: 'member',
    tenantScoped: true,
  },
  {
    method: 'GET',
    path: '/api/provider/credits',
    auth: 'provider',
    refuses: [
      { who: 'owner', status: 403, code: 'provider_required' },
      { who: 'inactive_provider', status: 403, code: 'provider_inactive' },
    ],
  },
  {
    method: 'POST',
    path: '/api/provider/workbench/leads/:leadId/refund-request',
    auth: 'provider',
    body: { reason: 'spam' },
    refuses: [
      { who: 'owner', status: 403, code: 'provider_required' },
      { who: 'inactive_provider', status: 403, code: 'provider_inactive' },
    ],
  },
  // The provider API and the workbench API.
  {
    method: 'GET',
    path: '/api/provider/profile',
    auth: 'provider',
    refuses: [{ who: 'owner', status: 403, code: 'provider_required' }],
  },
  {
    method: 'POST',
    path: '/api/provider/profile',
    auth: 'provider',
    refuses: [{ who: 'owner', status: 403, code: 'provider_required' }],
    body: { headline: 'Still helps with tests' },
  },
  {
    method: 'GET',
    path: '/api/provider/preferences',
    auth: 'provider',
    refuses: [{ who: 'owner', status: 403, code: 'provider_required' }],
  },
  {
    method: 'POST',
    path: '/api/provider/preferences',
    auth: 'provider',
    refuses: [{ who: 'owner', status: 403, code: 'provider_required' }],
    body: { lead_alerts: 'hourly' },
  },
  // Agents and robots: their signing secret and health.
  {
    method: 'POST',
    path: '/api/provider/signing-secret/rotate',
    auth: 'provider',
    sessionOf: 'agent',
    refuses: [
      { who: 'owner', status: 403, code: 'provider_required' },
      { who: 'expert', status: 403, code: 'forbidden' },
    ],
  },
  {
    method: 'GET',
    path: '/api/provider/health',
    auth: 'provider',
    sessionOf: 'agent',
    refuses: [
      { who: 'owner', status: 403, code: 'provider_required' },
      { who: 'expert', status: 403, code: 'forbidden' },
    ],
  },
  {
    method: 'GET',
    path: '/api/provider/workbench/leads',
    auth: 'provider',
    refuses: [
      { who: 'owner', status: 403, code: 'provider_required' },
      { who: 'inactive_provider', status: 403, code: 'provider_inactive' },
    ],
  },
  {
    method: 'GET',
    path: '/api/provider/workbench/leads/:leadId',
    auth: 'provider',
    tenantScoped: true,
    refuses: [
      { who: 'owner', status: 403, code: 'provider_required' },
      { who: 'inactive_provider', status: 403, code: 'provider_inactive' },
    ],
  },
  {
    method: 'POST',
    path: '/api/provider/workbench/leads/:leadId/claim',
    auth: 'provider',
    tenantScoped: true,
    refuses: [
      { who: 'owner', status: 403, code: 'provider_required' },
      { who: 'inactive_provider', status: 403, code: 'provider_inactive' },
    ],
  },
  {
    method: 'POST',
    path: '/api/provider/workbench/leads/:leadId/status',
    auth: 'provider',
    tenantScoped: true,
    body: { status: 'contacted' },
    refuses: [
      { who: 'owner', status: 403, code: 'provider_required' },
      { who: 'inactive_provider', status: 403, code: 'provider_inactive' },
    ],
  },
  {
    method: 'POST',
    path: '/api/provider/workbench/leads/:leadId/messages',
    auth: 'provider',
    tenantScoped: true,
    body: { text: 'Hello from the access table' },
    refuses: [
      { who: 'owner', status: 403, code: 'provider_required' },
      { who: 'inactive_provider', status: 403, code: 'provider_inactive' },
    ],
  },
  {
    method: 'POST',
    path: '/api/provider/workbench/leads/:leadId/live-ticket',
    auth: 'provider',
    tenantScoped: true,
    refuses: [
      { who: 'owner', status: 403, code: 'provider_required' },
      { who: 'inactive_provider', status: 403, code: 'provider_inactive' },
    ],
  },
  // The site owner's console.
  { method: 'GET', path: '/onboarding/workspace', auth: 'session' },
  {
    method: 'POST',
    path: '/onboarding/workspace',
    auth: 'session',
    body: { organization_name: 'O', workspace_name: 'W' },
  },
  { method: 'GET', path: '/integrations', auth: 'session', tenantScoped: true },
  {
    method: 'POST',
    path: '/integrations/channels',
    auth: 'session',
    deniedRole: 'member',
    tenantScoped: true,
    body: channelBody,
  },
  {
    method: 'POST',
    path: '/integrations/settings',
    auth: 'session',
    deniedRole: 'member',
    tenantScoped: true,
    body: { blocked_terms: 'casino' },
  },
  { method: 'GET', path: '/integrations/channels/:channelKey', auth: 'session', tenantScoped: true },
  { method: 'GET', path: '/integrations/channels/:channelKey/intake', auth: 'session', tenantScoped: true },
  {
    method: 'GET',
    path: '/integrations/channels/:channelKey/conversations/:conversationId',
    auth: 'session',
    tenantScoped: true,
  },
  {
    method: 'POST',
    path: '/integrations/channels/:channelKey/widget',
    auth: 'session',
    deniedRole: 'member',
    tenantScoped: true,
    body: { 'copy.title': 'Hi' },
  },
  {
    method: 'POST',
    path: '/integrations/channels/:channelKey/settings',
    auth: 'session',
    deniedRole: 'member',
    tenantScoped: true,
    body: { name: 'Site', domain: 'consultation' },
  },
  {
    method: 'POST',
    path: '/integrations/channels/:channelKey/copy/:language',
    auth: 'session',
    deniedRole: 'member',
    tenantScoped: true,
    body: { greeting: 'Hallo!' },
  },
  {
    method: 'POST',
    path: '/integrations/channels/:channelKey/status',
    auth: 'session',
    deniedRole: 'member',
    tenantScoped: true,
    body: { status: 'active' },
  },
  { method: 'GET', path: '/integrations/team', auth: 'session', tenantScoped: true },
  {
    method: 'POST',
    path: '/integrations/team/invite',
    auth: 'session',
    deniedRole: 'admin',
    tenantScoped: true,
    body: { email: 'someone@example.com', role: 'member' },
  },
  {
    method: 'POST',
    path: '/integrations/team/invitations/:invitationId/revoke',
    auth: 'session',
    deniedRole: 'admin',
    tenantScoped: true,
  },
  {
    method: 'POST',
    path: '/integrations/team/:userId/role',
    auth: 'session',
    deniedRole: 'admin',
    tenantScoped: true,
    body: { role: 'owner' },
  },
  {
    method: 'POST',
    path: '/integrations/team/:userId/remove',
    auth: 'session',
    deniedRole: 'admin',
    tenantScoped: true,
  },
  { method: 'GET', path: '/invitations', auth: 'session' },
  { method: 'POST', path: '/invitations/:invitationId/accept', auth: 'session', tenantScoped: true },
  { method: 'POST', path: '/invitations/:invitationId/decline', auth: 'session', tenantScoped: true },
  // The owners' read-only view of webhooks.
  { method: 'GET', path: '/integrations/webhooks', auth: 'session', deniedRole: 'admin', tenantScoped: true },
  {
    method: 'GET',
    path: '/integrations/webhooks/:webhookId',
    auth: 'session',
    deniedRole: 'member',
    tenantScoped: true,
  },
  // The email log: owners and admins.
  { method: 'GET', path: '/integrations/email', auth: 'session', deniedRole: 'member', tenantScoped: true },
  // The provider's console.
  {
    method: 'GET',
    path: '/provider/onboarding',
    auth: 'session',
    sessionOf: 'expert',
    refuses: [{ who: 'owner', status: 303 }],
  },
  {
    method: 'POST',
    path: '/provider/onboarding/submit',
    auth: 'session',
    sessionOf: 'expert',
    refuses: [{ who: 'owner', status: 303 }],
  },
  {
    method: 'POST',
    path: '/provider/onboarding/:step',
    auth: 'session',
    sessionOf: 'expert',
    refuses: [{ who: 'owner', status: 303 }],
    body: { kind: 'expert' },
  },
  {
    method: 'GET',
    path: '/provider/workbench',
    auth: 'session',
    sessionOf: 'expert',
    refuses: [
      { who: 'owner', status: 303 },
      { who: 'inactive_provider', status: 403 },
      { who: 'agent', status: 403 },
    ],
  },
  {
    method: 'POST',
    path: '/provider/workbench/preferences',
    auth: 'session',
    sessionOf: 'expert',
    refuses: [
      { who: 'owner', status: 303 },
      { who: 'inactive_provider', status: 403 },
    ],
    body: { availability: 'away', lead_alerts: 'off', max_open_claims: '3' },
  },
  {
    method: 'GET',
    path: '/provider/operations',
    auth: 'session',
    sessionOf: 'agent',
    refuses: [
      { who: 'owner', status: 303 },
      { who: 'expert', status: 403 },
    ],
  },
  {
    method: 'POST',
    path: '/provider/operations/secret/rotate',
    auth: 'session',
    sessionOf: 'agent',
    refuses: [
      { who: 'owner', status: 303 },
      { who: 'expert', status: 403 },
    ],
  },
  {
    method: 'GET',
    path: '/provider/workbench/leads/:leadId',
    auth: 'session',
    sessionOf: 'expert',
    tenantScoped: true,
    refuses: [
      { who: 'owner', status: 303 },
      { who: 'inactive_provider', status: 403 },
    ],
  },
  {
    method: 'POST',
    path: '/provider/workbench/leads/:leadId/claim',
    auth: 'session',
    sessionOf: 'expert',
    tenantScoped: true,
    refuses: [{ who: 'inactive_provider', status: 403 }],
  },
  {
    method: 'POST',
    path: '/provider/workbench/leads/:leadId/status',
    auth: 'session',
    sessionOf: 'expert',
    tenantScoped: true,
    body: { status: 'contacted' },
    refuses: [{ who: 'inactive_provider', status: 403 }],
  },
  {
    method: 'POST',
    path: '/provider/workbench/leads/:leadId/messages',
    auth: 'session',
    sessionOf: 'expert',
    tenantScoped: true,
    body: { text: 'Hello from the access table' },
    refuses: [{ who: 'inactive_provider', status: 403 }],
  },
  // The platform admins' review pages.
  {
    method: 'GET',
    path: '/admin',
    auth: 'session',
    sessionOf: 'platform_admin',
    refuses: [
      { who: 'owner', status: 403 },
      { who: 'expert', status: 403 },
    ],
  },
  {
    method: 'GET',
    path: '/admin/providers',
    auth: 'session',
    sessionOf: 'platform_admin',
    refuses: [
      { who: 'owner', status: 403 },
      { who: 'expert', status: 403 },
    ],
  },
  {
    method: 'GET',
    path: '/admin/providers/:providerId',
    auth: 'session',
    sessionOf: 'platform_admin',
    refuses: [{ who: 'owner', status: 403 }],
  },
  {
    method: 'POST',
    path: '/admin/providers/:providerId/approve',
    auth: 'session',
    sessionOf: 'platform_admin',
    refuses: [
      { who: 'owner', status: 403 },
      { who: 'expert', status: 403 },
    ],
  },
  {
    method: 'POST',
    path: '/admin/providers/:providerId/reject',
    auth: 'session',
    sessionOf: 'platform_admin',
    refuses: [{ who: 'owner', status: 403 }],
    body: { note: 'n' },
  },
  {
    method: 'POST',
    path: '/admin/providers/:providerId/suspend',
    auth: 'session',
    sessionOf: 'platform_admin',
    refuses: [{ who: 'owner', status: 403 }],
    body: { note: 'n' },
  },
  // Insights: the owners' numbers (a key with channels:read too), and their page with its CSV tables.
  {
    method: 'GET',
    path: '/api/insights',
    auth: 'api_key_or_session',
    scope: 'channels:read',
    deniedRole: 'admin',
    tenantScoped: true,
  },
  { method: 'GET', path: '/integrations/insights', auth: 'session', deniedRole: 'member', tenantScoped: true },
  ...['funnel', 'days', 'outcomes', 'agents', 'topics'].map((table) => ({
    method: 'GET' as const,
    path: `/integrations/insights/${table}.csv`,
    auth: 'session' as const,
    deniedRole: 'admin' as const,
    tenantScoped: true,
  })),
  // Provisioning: an owner asks for a key or an endpoint, and sees an approved one's secret once.
  {
    method: 'POST',
    path: '/integrations/requests',
    auth: 'session',
    deniedRole: 'admin',
    tenantScoped: true,
    body: { kind: 'api_key', name: 'Access', scopes: 'execute', purpose: 'The access table.' },
  },
  {
    method: 'POST',
    path: '/integrations/requests/:requestId/secret',
    auth: 'session',
    deniedRole: 'admin',
    tenantScoped: true,
  },
  // The ledger's pages: the owner's usage, the expert's refund form, the admin's billing.
  { method: 'GET', path: '/integrations/usage', auth: 'session', deniedRole: 'admin', tenantScoped: true },
  { method: 'GET', path: '/integrations/usage/daily.csv', auth: 'session', deniedRole: 'member', tenantScoped: true },
  {
    method: 'GET',
    path: '/integrations/usage/statements.csv',
    auth: 'session',
    deniedRole: 'admin',
    tenantScoped: true,
  },
  {
    method: 'POST',
    path: '/provider/workbench/leads/:leadId/refund-request',
    auth: 'session',
    sessionOf: 'expert',
    refuses: [
      { who: 'owner', status: 303 },
      { who: 'inactive_provider', status: 403 },
    ],
    body: { reason: 'spam' },
  },
  ...(
    [
      ['GET', '/admin/billing'],
      ['GET', '/admin/insights'],
      ['POST', '/admin/billing/contracts'],
      ['POST', '/admin/billing/contracts/:contractId/end'],
      ['POST', '/admin/billing/credits'],
      ['POST', '/admin/billing/refunds/:requestId/accept'],
      ['POST', '/admin/billing/refunds/:requestId/decline'],
      ['GET', '/admin/requests'],
      ['POST', '/admin/requests/:requestId'],
    ] as const
  ).map(([method, path]) => ({
    method,
    path,
    auth: 'session' as const,
    sessionOf: 'platform_admin' as const,
    refuses: [
      { who: 'owner' as const, status: 403 },
      { who: 'expert' as const, status: 403 },
    ],
  })),
];

/** Routes anyone may call; each is public by design (docs/design/channels-and-widget.md and docs/design/README.md). */
const PUBLIC_ROUTES = [
  'GET /healthz',
  // The gateway's A2A agent card is public, as A2A discovery expects; /mcp and /a2a answer 405 to these.
  'GET /.well-known/agent-card.json',
  'GET /a2a/.well-known/agent-card.json',
  'GET /mcp',
  'DELETE /mcp',
  'GET /a2a',
  'DELETE /a2a',
  'GET /openapi.json',
  'GET /openapi.yaml',
  'GET /docs',
  // The docs site: each page, its Markdown copy, and the llms.txt index.
  'GET /docs.md',
  'GET /docs/:name',
  'GET /llms.txt',
  'GET /',
  'GET /assets/site.css',
  'GET /demo',
  'GET /widget/:channelKey',
  // A redirect to the signed-in user's home (or to sign-in): the console's brand link.
  'GET /console',
  // Every email's way out: the signed token is the authority (RFC 8058 one-click, no session).
  'GET /email/unsubscribe/:token',
  'POST /email/unsubscribe/:token',
  'GET /api/public/channels/:channelKey/widget-config',
  'POST /api/public/channels/:channelKey/intake',
  'GET /api/public/widget/:channel_key/config',
  'POST /api/public/widget/:channel_key/intake',
  'OPTIONS /api/public/channels/:channelKey/widget-config',
  'OPTIONS /api/public/channels/:channelKey/intake',
  'OPTIONS /api/public/widget/:channel_key/config',
  'OPTIONS /api/public/widget/:channel_key/intake',
  // The visitor's thread and live ticket: the visitor's egv_ session is checked by the route (live.test.ts).
  'GET /api/public/channels/:channelKey/messages',
  'GET /api/public/widget/:channel_key/messages',
  'POST /api/public/channels/:channelKey/live-ticket',
  'POST /api/public/widget/:channel_key/live-ticket',
  'OPTIONS /api/public/channels/:channelKey/messages',
  'OPTIONS /api/public/channels/:channelKey/live-ticket',
  'OPTIONS /api/public/widget/:channel_key/messages',
  'OPTIONS /api/public/widget/:channel_key/live-ticket',
  // A live socket: the single-use ticket in its URL is checked by the room (live.test.ts).
  'GET /live/:conversationId',
  'GET /auth',
  'GET /auth/sign-up',
  'POST /auth/sign-up',
  'GET /auth/sign-in',
  'POST /auth/sign-in',
  'GET /auth/sign-out',
  'POST /auth/sign-out',
];

describe('access: every route is described', () => {
  it('each registered route is in the protected table or the public list', () => {
    const described = new Set([...PROTECTED_ROUTES.map((route) => `${route.method} ${route.path}`), ...PUBLIC_ROUTES]);
    const registered = [
      ...new Set(app.routes.filter((route) => route.method !== 'ALL').map((route) => `${route.method} ${route.path}`)),
    ];
    expect(registered.filter((route) => !described.has(route))).toEqual([]);
    expect([...described].filter((route) => !registered.includes(route))).toEqual([]);
  });
});

describe('access: the standard failures, route by route', () => {
  let tenants: { a: AccessTenant; b: AccessTenant };
  beforeAll(async () => {
    tenants = { a: await createAccessTenant(), b: await createAccessTenant() };
  }, 60_000);

  for (const route of PROTECTED_ROUTES) accessFailureCases(route, () => tenants);
});
