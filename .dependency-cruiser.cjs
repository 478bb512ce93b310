/**
 * The layering rules, checked in `npm test` (scripts/check-architecture.mjs). Data flows one way:
 * route → validation → platform core → brain → D1. Type-only imports count too.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No module may depend on itself through others, not even through types.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'brain-is-pure',
      severity: 'error',
      comment: 'The brain plans; it never sees Hono, drizzle or the database, and knows nothing of routes or pages.',
      from: { path: '^worker/brain/' },
      to: {
        path: [
          '^node_modules/(hono|@hono|drizzle-orm|drizzle-kit)/',
          '^worker/lib/db\\.ts$',
          '^drizzle/',
          '^worker/(platform|gateway|console|jobs|live)/',
        ],
      },
    },
    {
      name: 'platform-below-routes-and-pages',
      severity: 'error',
      comment: 'The platform core serves the gateway and the console; it never imports them.',
      from: { path: '^worker/platform/' },
      to: { path: '^worker/(gateway|console)/' },
    },
    {
      name: 'lib-imports-no-domain',
      severity: 'error',
      comment: 'lib/ holds shared utilities; it depends on no domain module.',
      from: { path: '^worker/lib/' },
      to: { path: '^worker/(platform|brain|gateway|console|jobs|live)/' },
    },
    {
      name: 'widget-imports-worker-types-only',
      severity: 'error',
      comment: "The widget may share the worker's types (inferred from its zod schemas), never its code.",
      from: { path: '^widget/' },
      to: { path: '^(worker|drizzle)/', dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    exclude: { path: ['^test/', '^dist/', '^scripts/'] },
  },
};
