// `npm run startup`: the Worker's startup time, as `wrangler check startup` profiles it (the
// bundle built for deploy, run once in a local workerd): the CPU profile's span, best and median
// of five runs. Local CPU, not Cloudflare's: compare runs of this script with each other.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, wrangler } from './lib.mjs';

const RUNS = Number(process.env.STARTUP_RUNS ?? 5);
const profile = join(ROOT, 'worker-startup.cpuprofile');
const spans = [];
for (let run = 0; run < RUNS; run++) {
  await wrangler(['check', 'startup', '--outfile', profile]);
  const { startTime, endTime, samples } = JSON.parse(readFileSync(profile, 'utf8'));
  spans.push({ ms: (endTime - startTime) / 1000, samples: samples.length });
}
rmSync(profile, { force: true });
const sorted = spans.map((span) => span.ms).sort((a, b) => a - b);
console.log(
  `Worker startup (wrangler check startup, ${RUNS} runs): best ${sorted[0].toFixed(1)} ms, ` +
    `median ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} ms`,
);
