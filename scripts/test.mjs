// `npm test`: every check, with independent steps in parallel, and the time of each at the end.
// The widget is built first (the size budget, the worker suite's assets and the Node suite's
// pages need it); then the static checks, the worker suite (workerd, real D1), the Node suite
// (a real `wrangler dev`, Chromium) and the deploy dry-run run side by side. Each step's output is
// printed whole when it ends, so logs never interleave. Any failing step fails the run.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { setPriority } from 'node:os';
import { stripVTControlCharacters } from 'node:util';
import { ROOT } from './lib.mjs';

const npx = (args) => ['npx', args];

/** The steps: a name, and the commands it runs one after another. */
const BUILD = { name: 'build widget', commands: [['node', ['scripts/build-widget.mjs']]] };
// The two suites are the longest steps, and the Node suite's browser tests wait on real time: both
// run at normal priority, and the other steps (no clocks to miss) fill the CPU they leave idle.
const PARALLEL = [
  {
    name: 'static checks',
    background: true,
    commands: [
      ['node', ['scripts/size.mjs']],
      npx(['biome', 'check', '--error-on-warnings', '.']),
      npx(['tsc', '--noEmit']),
      npx(['tsc', '--noEmit', '-p', 'tsconfig.node.json']),
      npx(['tsc', '--noEmit', '-p', 'widget/tsconfig.json']),
      ['node', ['scripts/check-architecture.mjs']],
      // The generated binding types match wrangler.toml (npm run cf-typegen), .dev.vars or not.
      ['node', ['scripts/check-binding-types.mjs']],
      npx(['vitest', 'run', '--config', 'vitest.unit.config.ts']),
    ],
  },
  { name: 'worker suite', commands: [npx(['vitest', 'run'])] },
  { name: 'node suite', commands: [npx(['vitest', 'run', '--config', 'vitest.node.config.ts'])] },
  { name: 'deploy dry-run', background: true, commands: [['node', ['scripts/deploy-dry-run.mjs']]] },
  // Every bench scenario at tiny sizes, on its own Worker: a change that breaks a bench fails here.
  { name: 'bench smoke', background: true, commands: [['node', ['scripts/bench.mjs', 'all', '--smoke']]] },
];

function run([command, args], background) {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? '1' },
    });
    // Set before the child starts its own processes (workerd, tsc), which inherit it.
    if (background && child.pid) {
      try {
        setPriority(child.pid, 10);
      } catch {}
    }
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

async function runStep(step) {
  const started = Date.now();
  console.log(`▶ ${step.name}`);
  let output = '';
  let code = 0;
  for (const command of step.commands) {
    const result = await run(command, step.background);
    output += `$ ${[command[0], ...command[1]].join(' ')}\n${result.output}`;
    code = result.code;
    if (code !== 0) break;
  }
  const ms = Date.now() - started;
  console.log(`\n━━ ${step.name}: ${code === 0 ? 'passed' : 'FAILED'} in ${seconds(ms)} ━━\n${output.trimEnd()}\n`);
  return { name: step.name, ms, ok: code === 0, output };
}

/** The lines of a failed step worth repeating at the end: a CI log that keeps only its tail keeps them. */
function failureDigest(output) {
  const lines = stripVTControlCharacters(output).split('\n');
  const marked = lines.filter((line) => /FAIL|✗|×|AssertionError|Error:|expected .* to /.test(line));
  const picked = marked.length > 0 ? marked.slice(0, 40) : lines.slice(-40);
  return picked.map((line) => `    ${line.slice(0, 300)}`).join('\n');
}

const started = Date.now();
const results = [await runStep(BUILD)];
if (results[0].ok) results.push(...(await Promise.all(PARALLEL.map(runStep))));
const total = Date.now() - started;

console.log('Step times (the steps after the build ran side by side):');
for (const result of results)
  console.log(`  ${result.ok ? '✓' : '✗'} ${result.name.padEnd(16)} ${seconds(result.ms).padStart(8)}`);
console.log(`  = npm test       ${seconds(total).padStart(8)} wall time`);
// A failed step's output was printed when it ended, maybe long before the end: its failures again.
for (const result of results.filter((each) => !each.ok)) {
  console.log(`\n✗ ${result.name} failed; its failures (the whole output is above):\n${failureDigest(result.output)}`);
}
// Said last and loudly: a green run without a browser has not run the browser tests.
const chromiums = process.env.CHROMIUM_PATH
  ? [process.env.CHROMIUM_PATH]
  : ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'];
if (!chromiums.some((path) => existsSync(path))) {
  console.log(
    `\n⚠⚠⚠ The browser tests were SKIPPED: no Chromium at ${chromiums.join(' or ')} ` +
      '(apt-get install -y chromium-headless-shell). ⚠⚠⚠',
  );
}
process.exit(results.every((result) => result.ok) && results.length === PARALLEL.length + 1 ? 0 : 1);
