// Runs the Worker locally the way `npm run dev` does: migrations, demo seed, `wrangler dev`.
// Used by `npm run dev`, the Node/browser tests and the benchmark.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, WRANGLER } from './lib.mjs';
import { applyLocalMigrations } from './migrate-local.mjs';
import { startMailSink } from './mail-sink.mjs';
import { indexDocsAsKnowledge } from './docs-knowledge.mjs';
import { startReferenceAgent } from './reference-agent.mjs';
import { startStripeStandIn } from './stripe-stand-in.mjs';
import { DEMO, seedSql } from './seed.mjs';

/** Builds the widget bundles that the Worker serves as static assets. */
export function buildWidget() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'scripts/build-widget.mjs')], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`widget build failed (${code})`))));
  });
}

/** Applies the migrations to a local D1 (optionally in its own folder) and seeds the demo tenant. */
export async function prepareLocalDatabase({
  persistTo,
  demoApiKey,
  demoPassword,
  pepper,
  secretsKey,
  referenceAgent,
}) {
  // The directory and every shard: the same migrations everywhere (scripts/migrate-local.mjs); then
  // the demo: its directory entries, accounts and catalog in the directory, its organisation on the
  // shard the directory places it on (shard 0 at first; wherever `move-organization` took it since).
  const seed = seedSql({ demoApiKey, demoPassword, pepper, secretsKey, referenceAgent });
  await applyLocalMigrations({
    persistTo,
    seeds: [
      { binding: 'DIRECTORY', statements: seed.directory },
      async (query) => {
        const [placed] = await query(
          'DIRECTORY',
          `SELECT shard FROM organization_shards WHERE organization_id = '${DEMO.organizationId}'`,
        );
        return { binding: `DB_${placed?.shard ?? seed.shardIndex}`, statements: seed.shard };
      },
    ],
  });
}

/** The demo users' password in throwaway test workers. */
export const DEMO_TEST_PASSWORD = 'demo password for tests';

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitForHealthy(url, child, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited with ${child.exitCode}`);
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok) return;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`wrangler dev did not become healthy at ${url} within ${timeoutMs} ms`);
}

/** The local Stripe stand-in's webhook secret in throwaway test workers. */
export const STRIPE_TEST_WEBHOOK_SECRET = 'whsec_local_stand_in_for_tests_000000';

/** The reference agent's signing secret in throwaway test workers. */
export const REFERENCE_AGENT_TEST_SECRET = 'whsec_dGVzdC1yZWZlcmVuY2UtYWdlbnQtc2VjcmV0LTA=';

/**
 * Starts a throwaway Worker on 127.0.0.1 with its own D1 folder, and the reference agent on a
 * port of its own (seeded as the demo's agent for `faq`). `vars` become `--var` bindings
 * (secrets included). `inspector: false` runs it without the devtools inspector (see
 * serve-worker.mjs); `profile: true` then opens only the inspector's port, for a CPU
 * profile; `docsKnowledge: true` indexes /docs as the demo's knowledge. Its email goes to a
 * local SMTP sink that keeps each message as an .eml file in `mailDir`. Returns its URL, the
 * demo credentials, the agent, mailDir and stop().
 */
export async function startLocalWorker({
  vars = {},
  quiet = process.env.EGW_WORKER_LOGS !== '1',
  onAgentCall,
  inspector = true,
  profile = false,
  entry,
  docsKnowledge = false,
} = {}) {
  if (!existsSync(join(ROOT, 'dist/public/embed/panel.js'))) await buildWidget();
  const persistTo = mkdtempSync(join(tmpdir(), 'egw-worker-'));
  const demoApiKey = 'egk_DemoKey4TheSeededTenantXq7Rs9';
  const adminToken = 'egadm_local_test_admin_token_000000000001';
  const pepper = 'local-test-pepper-0123456789';
  const secretsKey = 'local-test-secrets-key-0123456789';
  const agent = await startReferenceAgent({ secret: REFERENCE_AGENT_TEST_SECRET, onCall: onAgentCall });
  // A real SMTP server for the Worker's email, keeping each message as an .eml file in mailDir;
  // a test makes it misbehave by writing a mode to mailDir/.relay-mode (see mail-sink.mjs).
  const mailDir = join(persistTo, 'mail');
  const mailSink = await startMailSink({ dir: mailDir, quiet: true, modeFile: join(mailDir, '.relay-mode') });
  const referenceAgent = { port: Number(new URL(agent.url).port), secret: REFERENCE_AGENT_TEST_SECRET };
  await prepareLocalDatabase({
    persistTo,
    demoApiKey,
    demoPassword: DEMO_TEST_PASSWORD,
    pepper,
    secretsKey,
    referenceAgent,
  });
  const port = await freePort();
  const inspectorPort = inspector || profile ? await freePort() : undefined;
  // Card payments against the local stand-in for Stripe (its webhooks come back to this Worker).
  const stripe = await startStripeStandIn({
    webhookUrl: `http://127.0.0.1:${port}/api/payments/stripe/webhook`,
    webhookSecret: STRIPE_TEST_WEBHOOK_SECRET,
    quiet,
  });
  const allVars = {
    ADMIN_TOKEN: adminToken,
    PASSWORD_PEPPER: pepper,
    SECRETS_KEY: secretsKey,
    ALLOW_LOOPBACK_EGRESS: 'true',
    WEBHOOK_RETRY_BASE_SECONDS: '1',
    // A relay that hangs is given up after 2 s, and a failed email is retried after about a second.
    EMAIL_RETRY_BASE_SECONDS: '1',
    SMTP_TIMEOUT_SECONDS: '2',
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(mailSink.port),
    SMTP_SECURE: 'none',
    MAIL_FROM: 'Edge Gateway <gateway@mail.test>',
    MAIL_REPLY_DOMAIN: 'reply.mail.test',
    STRIPE_SECRET_KEY: 'sk_test_local_stand_in',
    STRIPE_WEBHOOK_SECRET: STRIPE_TEST_WEBHOOK_SECRET,
    STRIPE_API_URL: stripe.url,
    ...vars,
  };
  // Without the inspector (the benchmark), through serve-worker.mjs; otherwise `wrangler dev` itself.
  const args = inspector
    ? [
        WRANGLER,
        'dev',
        ...(entry ? [join(ROOT, entry)] : []),
        '--ip',
        '127.0.0.1',
        '--port',
        String(port),
        '--inspector-port',
        String(inspectorPort),
        '--persist-to',
        persistTo,
        '--show-interactive-dev-session=false',
        // As `npm run dev`: /__scheduled runs the cron handler (scripts/cron.mjs).
        '--test-scheduled',
        '--log-level',
        'warn',
        ...Object.entries(allVars).flatMap(([name, value]) => ['--var', `${name}:${value}`]),
      ]
    : [
        join(ROOT, 'scripts/serve-worker.mjs'),
        JSON.stringify({ port, persistTo, vars: allVars, entry, ...(profile ? { inspectorPort } : {}) }),
      ];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: quiet ? ['ignore', 'ignore', 'pipe'] : 'inherit',
    // A dev registry of its own: another local Worker starting or stopping (a test's, the bench's
    // profile) would otherwise restart this one mid-request.
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', WRANGLER_REGISTRY_PATH: join(persistTo, 'registry') },
    detached: false,
  });
  let errors = '';
  child.stderr?.on('data', (chunk) => (errors = (errors + chunk).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHealthy(url, child, 60_000);
    // The front door's knowledge: the docs, as `npm run dev` indexes them.
    if (docsKnowledge) await indexDocsAsKnowledge(url, demoApiKey);
  } catch (error) {
    child.kill('SIGTERM');
    await agent.close();
    await mailSink.close();
    await stripe.close();
    throw new Error(`${error.message}\n${errors}`);
  }
  return {
    url,
    port,
    /** The devtools inspector's port (with `inspector`, or `profile` for the bench's CPU profile). */
    inspectorPort,
    demoApiKey,
    adminToken,
    agent,
    mailDir,
    stripe,
    async stop() {
      await agent.close();
      await mailSink.close();
      await stripe.close();
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      rmSync(persistTo, { recursive: true, force: true });
    },
  };
}
