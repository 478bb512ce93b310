// `node scripts/eval/fit-gate.mjs DUMP`: fits the knowledge's gate (answer.ts, GATE) on what
// `npm run eval -- knowledge --dump DUMP` wrote: every question's outcome were it answered, and the
// evidence the gate weighs. The gate answers when
//   log(strength) + window·log(coverage) + margin·margin + words·log(words) − unseen·unseen ≥ at
// and this searches a grid of its weights and, for each, the best `at`, for the most English
// questions right under the rules the issue set: on each set at most 1 wrong answer in 20 given,
// none on our own docs (its questions were written from them), and every unanswerable question but
// one declined, all still holding a little under the threshold (SAFETY). It fits on each set
// alone, reporting the fit on the other (does it generalise?),
// then on both, which is what the Worker ships.
import { readFileSync } from 'node:fs';

const dump = process.argv[2];
if (!dump) {
  console.error('Usage: node scripts/eval/fit-gate.mjs DUMP (from npm run eval -- knowledge --dump DUMP)');
  process.exit(1);
}
const rows = JSON.parse(readFileSync(dump, 'utf8'));
const SETS = [...new Set(rows.map((row) => row.set))];
const log = (value) => Math.log(Math.max(value, 0.01));
/** How far under the threshold the rules must still hold (in the score's units: e^0.1, a tenth more evidence). */
const SAFETY = 0.1;
const scoreOf = (weights, evidence) =>
  log(evidence.strength) +
  weights.window * log(evidence.window) +
  weights.margin * evidence.margin +
  weights.words * Math.log(Math.max(1, evidence.words)) -
  weights.unseen * (evidence.unseen ?? 0);

/** One set's tally at a gate: English right, wrong, answers given, unanswerable declined (of all). */
function tally(set, weights, at) {
  const of = rows.filter((row) => row.set === set);
  const given = of.filter((row) => row.evidence && scoreOf(weights, row.evidence) >= at);
  const unanswerable = of.filter((row) => row.kind === 'unanswerable').length;
  return {
    right: given.filter((row) => row.outcome === 'right' && row.lang === 'en' && row.kind === 'answerable').length,
    wrong: given.filter((row) => row.outcome === 'wrong').length,
    given: given.length,
    declined: unanswerable - given.filter((row) => row.kind === 'unanswerable').length,
    unanswerable,
  };
}

const holds = (set, result) =>
  result.wrong * 20 <= Math.max(result.given, 1) &&
  result.declined >= result.unanswerable - 1 &&
  (set !== 'our docs' || result.wrong === 0);

/** The best gate for these sets: the most English right, then the fewest wrong. */
function bestGate(sets) {
  let best = null;
  for (const window of [0, 0.25, 0.5])
    for (const margin of [0.5, 0.75, 1, 1.25, 1.5])
      for (const words of [0, 0.25, 0.5, 0.75, 1])
        for (const unseen of [0, 0.5, 1, 1.5, 2, 3]) {
          const weights = { window, margin, words, unseen };
          const cuts = [...new Set(rows.filter((row) => row.evidence).map((row) => scoreOf(weights, row.evidence)))];
          for (const at of cuts) {
            const results = sets.map((set) => [set, tally(set, weights, at)]);
            if (!results.every(([set, result]) => holds(set, result))) continue;
            // And still holds a little lower: no wrong answer just under the threshold, by a hair.
            if (!sets.every((set) => holds(set, tally(set, weights, at - SAFETY)))) continue;
            const right = results.reduce((sum, [, result]) => sum + result.right, 0);
            const wrong = results.reduce((sum, [, result]) => sum + result.wrong, 0);
            if (!best || right > best.right || (right === best.right && wrong < best.wrong))
              best = { weights, at, right, wrong };
          }
        }
  return best;
}

const line = (set, result) =>
  `${set}: ${result.right} English right, ${result.wrong} wrong of ${result.given} given, ` +
  `${result.declined}/${result.unanswerable} unanswerable declined`;
for (const sets of [...SETS.map((set) => [set]), SETS]) {
  const best = bestGate(sets);
  if (!best) {
    console.log(`Fitted on ${sets.join(' and ')}: no gate holds.`);
    continue;
  }
  // The threshold half the safety under the last question answered: as far from either side.
  const { weights } = best;
  const at = best.at - SAFETY / 2;
  console.log(`Fitted on ${sets.join(' and ')}: ${JSON.stringify(weights)}, at ${at.toFixed(3)}`);
  for (const set of SETS)
    console.log(`  ${line(set, tally(set, weights, at))}${sets.includes(set) ? '' : ' (not fitted on)'}`);
}
