import { defineConfig } from 'vitest/config';

// Unit tests of pure logic (the brain, the transition tables, the egress guard), beside the code
// they test. They run in Node in milliseconds: no Worker, no D1, no network.
export default defineConfig({
  test: {
    include: ['worker/**/*.test.ts'],
    environment: 'node',
  },
});
