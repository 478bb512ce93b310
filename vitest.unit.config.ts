import { defineConfig } from 'vitest/config';

// Unit tests of pure logic (the brain, the transition tables, the egress guard), beside the code
// they test, and checks of the repository's own files (test/unit/: the README). They run in Node
// in milliseconds: no Worker, no D1, no network.
export default defineConfig({
  test: {
    include: ['worker/**/*.test.ts', 'widget/src/**/*.test.ts', 'test/unit/**/*.test.ts'],
    environment: 'node',
    // Pure functions share one module graph: a fresh one per file tripled the suite's CPU.
    isolate: false,
  },
});
