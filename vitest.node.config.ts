import { defineConfig } from 'vitest/config';
import { longestFirst } from './test/longest-first';

// Tests that need Node: they talk to a real local Worker (wrangler dev) over HTTP, and use
// tools that cannot run inside workerd (an independent OpenAPI validator, Chromium).
export default defineConfig({
  test: {
    include: ['test/node/**/*.test.ts'],
    globalSetup: ['./test/node/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // expect.poll waits for a page or the Worker to reach a state; its 1 s default is shorter
    // than a busy CI machine can take to render after a round trip through the local D1.
    expect: { poll: { timeout: 15_000, interval: 50 } },
    // Two files at a time against the one Worker: its tests wait on real time (browsers, emails,
    // timers) far more than they compute, and each makes its own tenants, channels and addresses.
    fileParallelism: true,
    maxWorkers: 2,
    // Longest first, as measured on 2026-11-27 (where vitest has no durations of its own: CI).
    sequence: {
      sequencer: longestFirst([
        'supply.browser.test.ts',
        'console.browser.test.ts',
        'admin-cli.test.ts',
        'accounts.browser.test.ts',
        'live.browser.test.ts',
        'first-hour.browser.test.ts',
        'tables.browser.test.ts',
        'widget.browser.test.ts',
        'languages.browser.test.ts',
        'webhooks.test.ts',
        'email-relay.test.ts',
        'agents.browser.test.ts',
        'docs.browser.test.ts',
        'email.browser.test.ts',
        'front-door.browser.test.ts',
      ]),
    },
  },
});
