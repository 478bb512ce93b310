// `npm run admin -- <resource> <action> [options]`: a small CLI over /api/admin/.
// The token comes from EGW_ADMIN_TOKEN, else ADMIN_TOKEN in .dev.vars; the address from
// --url, else EGW_URL, else the address `npm run dev` serves on now (.wrangler/dev-url), else
// http://127.0.0.1:8787.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT, readVars } from './lib.mjs';

const USAGE = `Usage: npm run admin -- <command> [options]

  orgs create --name NAME [--workspace-name NAME]
  orgs list
  orgs suspend|activate ORG_ID
  workspaces create --org ORG_ID --name NAME
  workspaces list [--org ORG_ID]
  workspaces suspend|activate WS_ID
  keys create --workspace WS_ID --scopes execute,leads:write [--name NAME]
              [--rate-limit PER_MINUTE] [--quota PER_MONTH] [--expires ISO_DATETIME]
  keys list --workspace WS_ID
  keys revoke KEY_ID
  admin-tokens create --name NAME | list | revoke ADM_ID
  domains create --domain SLUG --name NAME [--description TEXT]
  domains list
  users find --email EMAIL
  users grant-admin USR_ID | remove-admin USR_ID
  providers list [--status pending_review|active|suspended|profile_incomplete|registered]
  providers show PRV_ID
  providers approve PRV_ID --version N   (the version that providers show printed; an edit since fails)
  providers reject PRV_ID --note TEXT
  providers suspend PRV_ID --note TEXT
  providers health PRV_ID
  webhooks create --workspace WS_ID --endpoint URL --events lead.created,lead.claimed [--description TEXT]
  webhooks list --workspace WS_ID
  webhooks disable|enable|rotate WHK_ID
  webhooks deliveries WHK_ID [--limit N] [--after ATT_ID]
  webhooks redeliver WHK_ID EVT_ID
  audit [--workspace WS_ID] [--org ORG_ID] [--action ACTION] [--limit N] [--after AUD_ID]
  contracts create --workspace WS_ID --plan NAME --currency EUR --starts ISO_DATETIME [--ends ISO_DATETIME]
              [--allowances executions=1000,leads=100] [--overage executions=2] [--reference CUSTOMER_REF]
  contracts list --workspace WS_ID
  contracts end CTR_ID
  escrows show ESC_ID
  escrows credit ESC_ID --amount MINOR_UNITS --reference PAYMENT_REF   (once per reference)
  domains price SLUG --price MINOR_UNITS|none [--currency EUR]
  refunds list [--status pending|accepted|declined]
  refunds accept|decline RFR_ID [--note TEXT]
  meter-events --since ISO_DATETIME   (the contracts' charges as JSON lines, for a billing system)
  move-organization ORG_ID --to SHARD   (copies it to another shard, then switches; its writes get 503
              until the switch; run it again after a crash: it resumes where it stopped)

Global: --url BASE_URL (default $EGW_URL, else where npm run dev serves, else http://127.0.0.1:8787)`;

const { values: options, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    url: { type: 'string' },
    name: { type: 'string' },
    'workspace-name': { type: 'string' },
    org: { type: 'string' },
    workspace: { type: 'string' },
    scopes: { type: 'string' },
    'rate-limit': { type: 'string' },
    quota: { type: 'string' },
    expires: { type: 'string' },
    action: { type: 'string' },
    limit: { type: 'string' },
    after: { type: 'string' },
    domain: { type: 'string' },
    description: { type: 'string' },
    email: { type: 'string' },
    status: { type: 'string' },
    note: { type: 'string' },
    events: { type: 'string' },
    endpoint: { type: 'string' },
    version: { type: 'string' },
    plan: { type: 'string' },
    currency: { type: 'string' },
    starts: { type: 'string' },
    ends: { type: 'string' },
    reference: { type: 'string' },
    allowances: { type: 'string' },
    overage: { type: 'string' },
    amount: { type: 'string' },
    price: { type: 'string' },
    since: { type: 'string' },
    to: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});

const [resource, action, target, second] = positionals;
if (options.help || !resource) {
  console.log(USAGE);
  process.exit(options.help ? 0 : 1);
}

const devUrlFile = join(ROOT, '.wrangler', 'dev-url');
const devUrl = existsSync(devUrlFile) ? readFileSync(devUrlFile, 'utf8').trim() || undefined : undefined;
const baseUrl = (options.url ?? process.env.EGW_URL ?? devUrl ?? 'http://127.0.0.1:8787').replace(/\/+$/, '');
const token = process.env.EGW_ADMIN_TOKEN ?? readVars(join(ROOT, '.dev.vars')).ADMIN_TOKEN;
if (!token) {
  console.error('No admin token: set EGW_ADMIN_TOKEN, or ADMIN_TOKEN in .dev.vars.');
  process.exit(1);
}

const toNumber = (value) => (value === undefined ? undefined : Number(value));
const query = (entries) => {
  const params = new URLSearchParams(Object.entries(entries).filter(([, value]) => value !== undefined));
  return params.size ? `?${params}` : '';
};
const need = (value, what) => {
  if (!value) {
    console.error(`Missing ${what}.\n\n${USAGE}`);
    process.exit(1);
  }
  return value;
};

/** `executions=1000,leads=100` as `{ executions: 1000, leads: 100 }`, each value mapped by `value`. */
const meterTerms = (text, value = (number) => number) =>
  Object.fromEntries(
    (text ?? '')
      .split(',')
      .map((pair) => pair.trim())
      .filter(Boolean)
      .map((pair) => {
        const [meter, amount] = pair.split('=');
        return [meter.trim(), value(Number(amount))];
      }),
  );

const commands = {
  'orgs create': () => [
    'POST',
    '/api/admin/organizations',
    { name: need(options.name, '--name'), workspace_name: options['workspace-name'] },
  ],
  'orgs list': () => ['GET', '/api/admin/organizations'],
  'orgs suspend': () => ['PATCH', `/api/admin/organizations/${need(target, 'ORG_ID')}`, { status: 'suspended' }],
  'orgs activate': () => ['PATCH', `/api/admin/organizations/${need(target, 'ORG_ID')}`, { status: 'active' }],
  'workspaces create': () => [
    'POST',
    '/api/admin/workspaces',
    { organization_id: need(options.org, '--org'), name: need(options.name, '--name') },
  ],
  'workspaces list': () => ['GET', `/api/admin/workspaces${query({ organization_id: options.org })}`],
  'workspaces suspend': () => ['PATCH', `/api/admin/workspaces/${need(target, 'WS_ID')}`, { status: 'suspended' }],
  'workspaces activate': () => ['PATCH', `/api/admin/workspaces/${need(target, 'WS_ID')}`, { status: 'active' }],
  'keys create': () => [
    'POST',
    '/api/admin/api-keys',
    {
      workspace_id: need(options.workspace, '--workspace'),
      name: options.name ?? 'API key',
      scopes: need(options.scopes, '--scopes')
        .split(',')
        .map((scope) => scope.trim())
        .filter(Boolean),
      rate_limit_per_minute: toNumber(options['rate-limit']),
      monthly_quota: toNumber(options.quota),
      expires_at: options.expires,
    },
  ],
  'keys list': () => ['GET', `/api/admin/api-keys${query({ workspace_id: need(options.workspace, '--workspace') })}`],
  'keys revoke': () => ['POST', `/api/admin/api-keys/${need(target, 'KEY_ID')}/revoke`],
  'admin-tokens create': () => ['POST', '/api/admin/admin-tokens', { name: need(options.name, '--name') }],
  'admin-tokens list': () => ['GET', '/api/admin/admin-tokens'],
  'admin-tokens revoke': () => ['POST', `/api/admin/admin-tokens/${need(target, 'ADM_ID')}/revoke`],
  'domains create': () => [
    'POST',
    '/api/admin/domains',
    { domain: need(options.domain, '--domain'), name: need(options.name, '--name'), description: options.description },
  ],
  'domains list': () => ['GET', '/api/admin/domains'],
  'users find': () => ['GET', `/api/admin/users${query({ email: need(options.email, '--email') })}`],
  'users grant-admin': () => ['PATCH', `/api/admin/users/${need(target, 'USR_ID')}`, { platform_admin: true }],
  'users remove-admin': () => ['PATCH', `/api/admin/users/${need(target, 'USR_ID')}`, { platform_admin: false }],
  'providers list': () => ['GET', `/api/admin/providers${query({ status: options.status })}`],
  'providers show': () => ['GET', `/api/admin/providers/${need(target, 'PRV_ID')}`],
  'providers approve': () => [
    'POST',
    `/api/admin/providers/${need(target, 'PRV_ID')}/approve`,
    { version: toNumber(need(options.version, '--version')) },
  ],
  'providers reject': () => [
    'POST',
    `/api/admin/providers/${need(target, 'PRV_ID')}/reject`,
    { note: need(options.note, '--note') },
  ],
  'providers suspend': () => [
    'POST',
    `/api/admin/providers/${need(target, 'PRV_ID')}/suspend`,
    { note: need(options.note, '--note') },
  ],
  'providers health': () => ['GET', `/api/admin/providers/${need(target, 'PRV_ID')}/health`],
  'webhooks create': () => [
    'POST',
    '/api/admin/webhooks',
    {
      workspace_id: need(options.workspace, '--workspace'),
      url: need(options.endpoint, '--endpoint'),
      event_types: need(options.events, '--events')
        .split(',')
        .map((type) => type.trim())
        .filter(Boolean),
      description: options.description,
    },
  ],
  'webhooks list': () => [
    'GET',
    `/api/admin/webhooks${query({ workspace_id: need(options.workspace, '--workspace') })}`,
  ],
  'webhooks disable': () => ['POST', `/api/admin/webhooks/${need(target, 'WHK_ID')}/disable`],
  'webhooks enable': () => ['POST', `/api/admin/webhooks/${need(target, 'WHK_ID')}/enable`],
  'webhooks rotate': () => ['POST', `/api/admin/webhooks/${need(target, 'WHK_ID')}/rotate-secret`],
  'webhooks deliveries': () => [
    'GET',
    `/api/admin/webhooks/${need(target, 'WHK_ID')}/deliveries` +
      query({ limit: options.limit, starting_after: options.after }),
  ],
  'webhooks redeliver': () => [
    'POST',
    `/api/admin/webhooks/${need(target, 'WHK_ID')}/deliveries/${need(second, 'EVT_ID')}/redeliver`,
  ],
  'contracts create': () => [
    'POST',
    '/api/admin/contracts',
    {
      workspace_id: need(options.workspace, '--workspace'),
      plan: need(options.plan, '--plan'),
      currency: need(options.currency, '--currency'),
      starts_at: need(options.starts, '--starts'),
      ends_at: options.ends,
      reference: options.reference,
      allowances: meterTerms(options.allowances),
      overage: meterTerms(options.overage, (price) => ({ unit_price_minor: price })),
    },
  ],
  'contracts list': () => [
    'GET',
    `/api/admin/contracts${query({ workspace_id: need(options.workspace, '--workspace') })}`,
  ],
  'contracts end': () => ['POST', `/api/admin/contracts/${need(target, 'CTR_ID')}/end`],
  'escrows show': () => ['GET', `/api/admin/escrows/${need(target, 'ESC_ID')}`],
  'escrows credit': () => [
    'POST',
    `/api/admin/escrows/${need(target, 'ESC_ID')}/credits`,
    { amount_minor: toNumber(need(options.amount, '--amount')), reference: need(options.reference, '--reference') },
  ],
  'domains price': () => [
    'PATCH',
    `/api/admin/domains/${need(target, 'SLUG')}`,
    need(options.price, '--price') === 'none'
      ? { lead_price_minor: null }
      : {
          lead_price_minor: toNumber(options.price),
          ...(options.currency ? { lead_price_currency: options.currency } : {}),
        },
  ],
  'refunds list': () => ['GET', `/api/admin/refund-requests${query({ status: options.status })}`],
  'refunds accept': () => [
    'POST',
    `/api/admin/refund-requests/${need(target, 'RFR_ID')}/decision`,
    { decision: 'accept', note: options.note },
  ],
  'refunds decline': () => [
    'POST',
    `/api/admin/refund-requests/${need(target, 'RFR_ID')}/decision`,
    { decision: 'decline', note: options.note },
  ],
  audit: () => [
    'GET',
    `/api/admin/audit-log${query({
      workspace_id: options.workspace,
      organization_id: options.org,
      action: options.action,
      limit: options.limit,
      starting_after: options.after,
    })}`,
  ],
};

/** A request to the admin API, or an exit with the reason it could not be made. */
async function send(method, path, body) {
  try {
    return await fetch(`${baseUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch (error) {
    console.error(
      `Cannot reach ${baseUrl} (${error.cause?.code ?? error.message}). Is the service running (npm run dev)?`,
    );
    process.exit(1);
  }
}

// The charges as JSON lines, one event per line, every page of them.
if (resource === 'meter-events') {
  const since = need(options.since, '--since');
  let after = null;
  let printed = 0;
  do {
    const response = await send('GET', `/api/admin/meter-events${query({ since, after: after ?? undefined })}`);
    if (!response.ok) {
      console.error(`HTTP ${response.status}\n${await response.text()}`);
      process.exit(1);
    }
    const page = await response.json();
    for (const event of page.data) console.log(JSON.stringify(event));
    printed += page.data.length;
    after = page.next_after;
  } while (after);
  // Said on stderr, so that a pipe into a billing system still gets only JSON lines.
  if (printed === 0) console.error(`No charges since ${since} (${baseUrl}).`);
  process.exit(0);
}

// A move: one call per step, waiting where the move waits (isolates' caches of the old placement).
if (resource === 'move-organization') {
  const organization = need(action, 'ORG_ID');
  const to = Number(need(options.to, '--to'));
  for (;;) {
    const response = await send('POST', `/api/admin/organizations/${organization}/move`, { to_shard: to });
    if (!response.ok) {
      console.error(`HTTP ${response.status}\n${await response.text()}`);
      process.exit(1);
    }
    const report = await response.json();
    const waits = report.retry_after_ms > 0 ? `, waiting ${Math.ceil(report.retry_after_ms / 1000)} s` : '';
    const differs = report.mismatches.map((m) => ` ${m.table} ${m.source}≠${m.target}`).join('');
    console.error(
      `${report.from_shard} → ${report.to_shard}: ${report.step}${waits}${differs ? `; copying again:${differs}` : ''}`,
    );
    if (report.step === 'done') break;
    await new Promise((resolve) => setTimeout(resolve, report.retry_after_ms));
  }
  console.log(`${organization} is on shard ${to}.`);
  process.exit(0);
}

const command = commands[resource === 'audit' ? 'audit' : `${resource} ${action}`];
if (!command) {
  console.error(`Unknown command "${positionals.join(' ')}".\n\n${USAGE}`);
  process.exit(1);
}
const [method, path, body] = command();
const response = await send(method, path, body);
const text = await response.text();
let output = text;
try {
  output = JSON.stringify(JSON.parse(text), null, 2);
} catch {}
if (!response.ok) {
  console.error(`HTTP ${response.status}\n${output}`);
  process.exit(1);
}
console.log(output);
if (resource === 'keys' && action === 'create') console.error('\nStore the token now: it is shown only this once.');
