/**
 * The layering rules, checked in `npm test` (scripts/check-architecture.mjs), on what a file
 * reaches and not only on what it imports directly. Data flows one way: route → validation →
 * platform core → brain → D1. Type-only imports count too. test/unit/architecture.test.ts feeds
 * each rule a violating import and checks that it fires.
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
      comment: 'The brain plans; it never reaches Hono, drizzle or the database, nor routes, pages or modules.',
      from: { path: '^worker/brain/' },
      to: {
        reachable: true,
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
      comment:
        'The platform core serves the gateway, the console and the jobs; it never reaches them. Its modules hold ' +
        'their own routes, made with lib/app.ts (the route factory: the error model, no domain).',
      from: { path: '^worker/platform/' },
      to: { reachable: true, path: ['^worker/(gateway|console|jobs|live)/', '^worker/index\\.ts$'] },
    },
    {
      name: 'lib-reaches-no-domain',
      severity: 'error',
      comment: 'lib/ holds shared utilities (the database factory among them); it reaches no domain module.',
      from: { path: '^worker/lib/' },
      to: { reachable: true, path: '^worker/(platform|brain|gateway|console|jobs|live)/' },
    },
    {
      name: 'vocabulary-is-a-leaf',
      severity: 'error',
      comment:
        'worker/vocabulary.ts (every shared enum and limit) imports nothing of ours: the tables and all code read it.',
      from: { path: '^worker/vocabulary\\.ts$' },
      to: { path: '^(worker|drizzle)/' },
    },
    {
      name: 'tables-are-a-leaf',
      severity: 'error',
      comment:
        'drizzle/ reaches only the vocabulary; modules give JSON columns their types. So lib/db.ts → drizzle/ is ' +
        'one-way.',
      from: { path: '^drizzle/' },
      to: { reachable: true, path: '^worker/', pathNot: '^worker/vocabulary\\.ts$' },
    },
    {
      name: 'rollups-count-below-their-readers',
      severity: 'error',
      comment:
        "platform/rollups/ is the owner's numbers, shared by billing's usage and insights: it counts from the tables " +
        'and reaches no other platform module, so either reader may use it.',
      from: { path: '^worker/platform/rollups/' },
      to: { path: '^worker/platform/', pathNot: '^worker/platform/rollups/' },
    },
    {
      name: 'modules-through-their-face',
      severity: 'error',
      comment:
        'A module folder is used through its index.ts only (its face); its other files are its own. Its schemas.ts ' +
        '(the wire shapes, a leaf) is public too, so that the widget and other schemas can share them.',
      from: { path: '^worker/platform/([^/]+)/' },
      to: {
        path: '^worker/platform/[^/]+/',
        pathNot: ['^worker/platform/$1/', '^worker/platform/[^/]+/(index|schemas)\\.ts$'],
      },
    },
    {
      name: 'callers-through-module-faces',
      severity: 'error',
      comment: 'Routes, pages, jobs and the wiring use a platform module through its index.ts only.',
      from: { path: '^worker/', pathNot: '^worker/platform/' },
      to: { path: '^worker/platform/[^/]+/', pathNot: '^worker/platform/[^/]+/(index|schemas)\\.ts$' },
    },
    {
      name: 'schemas-are-leaves',
      severity: 'error',
      comment:
        'A module’s schemas.ts holds wire shapes only: zod, the vocabulary, shared OpenAPI pieces, other schemas, ' +
        'and the bounds the brain’s policies declare (a pure leaf of the brain).',
      from: { path: '^worker/platform/[^/]+/schemas\\.ts$' },
      to: {
        path: '^worker/',
        pathNot: [
          '^worker/platform/[^/]+/schemas\\.ts$',
          '^worker/platform/attribution\\.ts$',
          '^worker/lib/openapi\\.ts$',
          '^worker/vocabulary\\.ts$',
          '^worker/brain/lead-policy\\.ts$',
          '\\.json$',
        ],
      },
    },
    {
      name: 'sql-in-services-only',
      severity: 'error',
      comment:
        "drizzle is used by lib/db and the modules' services; routes, pages, schemas, jobs and the brain ask a service.",
      from: {
        path: [
          '^worker/(gateway|console|jobs|live|brain)/',
          '^worker/(env|index)\\.tsx?$',
          '^worker/lib/app\\.ts$',
          '^worker/platform/[^/]+/([^/]*routes|schemas|index|gate)\\.tsx?$',
        ],
      },
      to: { path: '^node_modules/drizzle-orm/' },
    },
    {
      name: 'widget-imports-worker-types-only',
      severity: 'error',
      comment:
        "The widget may share the worker's types (inferred from its zod schemas), never its code, except the " +
        'pure, dependency-free modules both need to agree on: colour contrast, the compiled message catalogs, and ' +
        'how money is written and a lead is headed (the workbench shows a claim fee and a lead as the server page does).',
      from: { path: '^widget/' },
      to: {
        path: '^(worker|drizzle)/',
        pathNot: [
          '^worker/lib/contrast\\.ts$',
          '^worker/lib/i18n/compiled/widget\\.[a-z]+\\.js$',
          '^worker/console/shared/money\\.ts$',
          '^worker/console/shared/lead-headline\\.ts$',
          '^worker/vocabulary\\.ts$',
        ],
        dependencyTypesNot: ['type-only'],
      },
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
    exclude: { path: ['^test/', '^dist/', '^scripts/', '\\.test\\.tsx?$'] },
  },
};
