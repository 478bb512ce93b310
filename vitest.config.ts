import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-pool-workers';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
// @ts-expect-error: a plain ES module shared with the Node scripts.
import { freePort } from './scripts/local-worker.mjs';
import { longestFirst } from './test/longest-first';

/** Every package the Worker and its tests import, by the specifier they use. */
const PREBUNDLED = [
  ...[
    '',
    '/factory',
    '/jsx',
    '/jsx/jsx-runtime',
    '/jsx/jsx-dev-runtime',
    '/html',
    '/http-exception',
    '/csrf',
    '/cookie',
  ].map((path) => `hono${path}`),
  ...['', '/batch', '/sqlite-core', '/d1'].map((path) => `drizzle-orm${path}`),
  'zod',
  '@hono/zod-openapi',
  'yaml',
  'mimetext/browser',
  'postal-mime',
  'standardwebhooks',
  '@oslojs/otp',
  '@oslojs/encoding',
  // The compiled message catalogs' runtime (worker/lib/i18n/compiled/).
  '@messageformat/runtime',
  '@messageformat/runtime/lib/cardinals',
  'stripe',
];

// Worker tests run inside workerd with the real D1 and the real migrations (test/setup.ts).
export default defineConfig(async () => {
  const migrations = await readD1Migrations(fileURLToPath(new URL('./migrations', import.meta.url)));
  // A real SMTP sink for the Worker to send to, and an HTTP view of what it received
  // (test/worker/mail-sink.global.mjs): their ports, chosen here, reach both through the environment.
  process.env.EGW_TEST_SMTP_PORT ??= String(await freePort());
  process.env.EGW_TEST_SINK_VIEW_PORT ??= String(await freePort());
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: './wrangler.toml' },
        miniflare: {
          // Deliver queue batches within about 100 ms in tests.
          queueConsumers: {
            events: { maxBatchTimeout: 0.05 },
            emails: { maxBatchTimeout: 0.05 },
            knowledge: { maxBatchTimeout: 0.05 },
          },
          bindings: {
            TEST_MIGRATIONS: migrations,
            // The public URL emails link to (never a request's Host): the origin every test calls.
            CONSOLE_URL: 'http://gateway.test',
            ADMIN_TOKEN: 'egadm_test_bootstrap_admin_token_000000001',
            EXPOSE_DB_METRICS: '1',
            // Every statement checked as if the organisation's tables were on the shards already.
            STRICT_SHARDS: '1',
            PASSWORD_PEPPER: 'test-pepper-0123456789abcdef',
            SECRETS_KEY: 'test-secrets-key-0123456789abcdef',
            // The production egress policy, whatever a local .dev.vars says: remote parties are stubbed fetches.
            ALLOW_LOOPBACK_EGRESS: '',
            // Webhook retries within seconds, as in .dev.vars.example.
            WEBHOOK_RETRY_BASE_SECONDS: '1',
            SMTP_HOST: '127.0.0.1',
            SMTP_PORT: process.env.EGW_TEST_SMTP_PORT,
            SMTP_SECURE: 'none',
            MAIL_FROM: 'Edge Gateway <gateway@mail.test>',
            MAIL_REPLY_DOMAIN: 'reply.mail.test',
            TEST_MAIL_SINK_URL: `http://127.0.0.1:${process.env.EGW_TEST_SINK_VIEW_PORT}`,
            // No platform channel unless a test names one, whatever `npm run dev` wrote to .dev.vars.
            FRONT_DOOR_CHANNEL: '',
            // Card payments against a stubbed Stripe (test/worker/stripe-helpers.ts): its API at this origin.
            STRIPE_SECRET_KEY: 'sk_test_worker_tests_0000000000',
            STRIPE_WEBHOOK_SECRET: 'whsec_worker_tests_0000000000000000',
            STRIPE_API_URL: 'https://stripe.test',
            PAYMENTS_CURRENCIES: 'EUR:5-5000,USD:5-5000',
          },
        },
      }),
    ],
    test: {
      include: ['test/worker/**/*.test.ts'],
      setupFiles: ['./test/worker/setup.ts'],
      // Pre-bundle the dependencies: each test file starts a fresh workerd, which fetches every module
      // one by one, so a few bundles instead of hundreds of files cut the suite by a fifth. A package
      // missing from the list still loads, only slower.
      deps: { optimizer: { ssr: { enabled: true, include: PREBUNDLED } } },
      globalSetup: ['./test/worker/mail-sink.global.mjs'],
      testTimeout: 20_000,
      // Three test files at a time: each runs in its own workerd isolate with its own D1, and a file's
      // start (isolate, module graph, migrations) is mostly waiting, which the others fill (three
      // made `npm test` 14 s shorter than two on the 2-core machine).
      maxWorkers: 3,
      // Longest first, as measured on 2026-11-27 (where vitest has no durations of its own: CI).
      sequence: {
        sequencer: longestFirst([
          'identity.test.ts',
          'providers.test.ts',
          'agents.test.ts',
          'live.test.ts',
          'webhooks.test.ts',
          'gateway.test.ts',
          'email.test.ts',
          'ledger.test.ts',
          'tenants.test.ts',
          'public.test.ts',
          'contract.test.ts',
          'lifecycle.test.ts',
        ]),
      },
      // Request log lines are printed only for failing tests.
      silent: 'passed-only' as const,
    },
  };
});
