// `npm run check:architecture`, part of `npm test`: the layering rules (.dependency-cruiser.cjs,
// on what a file reaches), no cycle between module folders, every exported function documented,
// no line over 120 characters, no file under worker/ over 400 lines (scripts/architecture.mjs).
import { cruise, longFiles, longLines, moduleCycles, undocumentedExports } from './architecture.mjs';
import { ROOT } from './lib.mjs';

let failed = false;
function report(label, problems) {
  if (problems.length === 0) {
    console.log(`✔ ${label}`);
    return;
  }
  console.error(`✘ ${label}: ${problems.length}\n  ${problems.join('\n  ')}`);
  failed = true;
}

const { violations, modules } = cruise(ROOT);
report(
  `dependency rules (${modules.length} modules)`,
  violations.map((violation) => `${violation.rule}: ${violation.from} → ${violation.to}`),
);
report(
  'no cycle between module folders',
  moduleCycles(modules).map((cycle) => cycle.join(' ↔ ')),
);
report('every exported function has a JSDoc comment', undocumentedExports(ROOT));
report('no line over 120 characters', longLines(ROOT));
report('no file under worker/ over 400 lines', longFiles(ROOT));
process.exit(failed ? 1 : 0);
