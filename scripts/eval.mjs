// `npm run eval -- knowledge`: how well the front door answers from its own docs. Starts the
// Worker locally with the docs indexed as the demo workspace's knowledge (as `npm run dev` does),
// asks every question of scripts/eval/knowledge-questions.json through POST /api/knowledge/ask,
// and prints, per kind, the questions answered rightly (a citation on the expected docs page and
// the expected fact in the answer), wrongly (any other answer; for a question the docs do not
// answer, any answer at all), and declined: at the default threshold, then at others, so the
// default can be set from the figures. `--verbose` lists every wrong answer.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from './lib.mjs';
import { startLocalWorker } from './local-worker.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { verbose: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } },
});
const scenario = positionals[0] ?? 'knowledge';
if (values.help || scenario !== 'knowledge') {
  console.log(`Usage: npm run eval -- knowledge [--verbose]

  knowledge   the docs' question set against the front door's knowledge (extractive answers)`);
  process.exit(values.help ? 0 : 1);
}

const QUESTIONS = JSON.parse(readFileSync(join(ROOT, 'scripts/eval/knowledge-questions.json'), 'utf8'));
/** The lowest threshold the API takes: every answer comes back, with its confidence. */
const FLOOR = 0.05;
const THRESHOLDS = [0.3, 0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8];

/** Waits until no source of the workspace is still queued (large ones index on the queue). */
async function whenIndexed(base, headers) {
  for (let tries = 0; tries < 120; tries++) {
    const { data } = await (await fetch(`${base}/api/knowledge/sources`, { headers })).json();
    if (data.every((source) => source.status !== 'queued')) return data;
    await new Promise((resolve) => setTimeout(resolve, 500)); // A poll's interval.
  }
  throw new Error('the docs were still queued after 60 s');
}

/** Right, wrong or declined, for one answer at one threshold. */
function outcomeOf(item, reply, threshold) {
  if (reply.answer === null || reply.confidence < threshold) return 'declined';
  if (!item.page) return 'wrong';
  const pages = new RegExp(`/docs(/(${item.page}|reference))?(#|$)`.replace('(index)', '()'));
  const onPage = reply.citations.some((citation) => pages.test(new URL(citation.url ?? '', 'http://x').pathname));
  return onPage && new RegExp(item.fact, 'i').test(reply.answer) ? 'right' : 'wrong';
}

const worker = await startLocalWorker({ inspector: false, docsKnowledge: true });
try {
  const headers = { Authorization: `Bearer ${worker.demoApiKey}`, 'Content-Type': 'application/json' };
  const sources = await whenIndexed(worker.url, headers);
  const chunks = sources.reduce((sum, source) => sum + source.chunks, 0);
  console.log(`Knowledge eval: ${sources.length} docs pages, ${chunks} passages.\n`);
  const kinds = [
    ['English, answerable', QUESTIONS.answerable],
    ['German and Spanish, answerable', QUESTIONS.answerable_other_languages],
    ['not in the docs', QUESTIONS.unanswerable],
  ];
  const replies = new Map();
  for (const [, items] of kinds)
    for (const item of items) {
      const response = await fetch(`${worker.url}/api/knowledge/ask`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ question: item.q, language: item.language ?? 'en', min_confidence: FLOOR }),
      });
      if (!response.ok) throw new Error(`asking "${item.q}": ${response.status} ${await response.text()}`);
      replies.set(item, await response.json());
    }

  const tally = (threshold) =>
    kinds.map(([name, items]) => {
      const counts = { right: 0, wrong: 0, declined: 0 };
      for (const item of items) counts[outcomeOf(item, replies.get(item), threshold)] += 1;
      return { name, total: items.length, ...counts };
    });
  const percent = (part, total) => `${Math.round((100 * part) / total)}%`.padStart(4);
  const answerSource = readFileSync(join(ROOT, 'worker/platform/knowledge/answer.ts'), 'utf8');
  const DEFAULT_MIN_CONFIDENCE = Number(/DEFAULT_MIN_CONFIDENCE = ([\d.]+)/.exec(answerSource)[1]);
  console.log(`At the default threshold (${DEFAULT_MIN_CONFIDENCE}):`);
  console.log(`  ${'kind'.padEnd(32)} ${'right'.padStart(10)} ${'wrong'.padStart(10)} ${'declined'.padStart(10)}`);
  for (const row of tally(DEFAULT_MIN_CONFIDENCE))
    console.log(
      `  ${`${row.name} (${row.total})`.padEnd(32)} ${`${row.right} ${percent(row.right, row.total)}`.padStart(10)}` +
        ` ${`${row.wrong} ${percent(row.wrong, row.total)}`.padStart(10)}` +
        ` ${`${row.declined} ${percent(row.declined, row.total)}`.padStart(10)}`,
    );
  console.log('\nBy threshold (English right, wrong answers among all answers given):');
  for (const threshold of THRESHOLDS) {
    const rows = tally(threshold);
    const right = rows.reduce((sum, row) => sum + row.right, 0);
    const wrong = rows.reduce((sum, row) => sum + row.wrong, 0);
    const perTwenty = right + wrong === 0 ? 0 : (20 * wrong) / (right + wrong);
    console.log(
      `  ${threshold.toFixed(2)}  English right ${percent(rows[0].right, rows[0].total)}` +
        `   wrong ${wrong} of ${right + wrong} answers (${perTwenty.toFixed(1)} in 20)`,
    );
  }
  if (values.verbose) {
    console.log('\nEvery answer at the floor, worst first:');
    for (const [name, items] of kinds)
      for (const item of items) {
        const reply = replies.get(item);
        const outcome = outcomeOf(item, reply, FLOOR);
        const cited = reply.citations.map((citation) => citation.url).join(' ');
        console.log(`  [${outcome}] ${reply.confidence.toFixed(3)} ${name}: ${item.q}\n      ${cited}`);
        if (outcome === 'wrong') console.log(`      ${(reply.answer ?? '').slice(0, 240)}`);
      }
  }
} finally {
  await worker.stop();
}
