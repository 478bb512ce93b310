// `npm run eval -- knowledge`: how well the owner's knowledge answers, on two help centers: the
// platform's own docs (the front door's knowledge, scripts/eval/knowledge-questions.json) and one
// nobody here wrote (Hoppscotch's public docs, MIT, with 60 hand-checked questions:
// scripts/eval/hoppscotch/). Starts the Worker locally, indexes both into workspaces of their own,
// asks every question through POST /api/knowledge/ask, and prints a table per set and for their
// union: English questions answered right (a citation of a page that answers it, and its fact in
// the answer), right page without the fact, wrong, declined; the other languages; the unanswerable
// ones declined. Then, per threshold, the English right and the wrong answers per 20 given, so the
// default can be set from both sets at once. `--verbose` lists every answer at the default;
// `--rules-off a,b` turns rules of the ranking off (their worth: knowledge.md).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from './lib.mjs';
import { startLocalWorker } from './local-worker.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    verbose: { type: 'boolean', default: false },
    'rules-off': { type: 'string', default: '' },
    set: { type: 'string', default: 'all' },
    dump: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
const scenario = positionals[0] ?? 'knowledge';
if (values.help || scenario !== 'knowledge') {
  console.log(`Usage: npm run eval -- knowledge [--verbose] [--set docs|hoppscotch|all] [--rules-off a,b]

  knowledge   both question sets against the knowledge (extractive answers), per set and together`);
  process.exit(values.help ? 0 : 1);
}

/** The lowest threshold the API takes: every answer comes back, with its confidence. */
const FLOOR = 0.05;
const THRESHOLDS = [0.05, 0.1, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7];
const norm = (url) => (url ?? '').replace(/[#?].*$/, '').replace(/\/+$/, '');

/** The platform's own set, as the common shape: each question's language, kind and how to judge it. */
function docsSet() {
  const questions = JSON.parse(readFileSync(join(ROOT, 'scripts/eval/knowledge-questions.json'), 'utf8'));
  const judge = (item) => ({
    page: (reply) => {
      const pages = new RegExp(`/docs(/(${item.page}|reference))?(#|$)`.replace('(index)', '()'));
      return reply.citations.some((citation) => pages.test(new URL(citation.url ?? '', 'http://x').pathname));
    },
    fact: (reply) => new RegExp(item.fact, 'i').test(reply.answer ?? ''),
  });
  return [
    ...questions.answerable.map((item) => ({ q: item.q, lang: 'en', kind: 'answerable', ...judge(item) })),
    ...questions.answerable_other_languages.map((item) => ({
      q: item.q,
      lang: item.language,
      kind: 'answerable',
      ...judge(item),
    })),
    ...questions.unanswerable.map((item) => ({ q: item.q, lang: item.language ?? 'en', kind: 'unanswerable' })),
  ];
}

/** Hoppscotch's set, judged as its README says (a cited source page, and one of its facts). */
function hoppscotchSet(corpus) {
  const questions = JSON.parse(readFileSync(join(ROOT, 'scripts/eval/hoppscotch/questions.json'), 'utf8'));
  const urlOf = new Map(corpus.map((page) => [page.id, page.url]));
  return questions.map((item) => ({
    q: item.q,
    lang: item.lang,
    kind: item.kind,
    page: (reply) => {
      const cited = new Set(reply.citations.map((citation) => norm(citation.url)));
      return (item.sources ?? []).some((id) => cited.has(norm(urlOf.get(id))));
    },
    fact: (reply) => (item.facts ?? []).some((fact) => new RegExp(fact, 'i').test(reply.answer ?? '')),
  }));
}

/** right | page (the right page, not the fact) | wrong | declined, for one reply at one threshold. */
function outcomeOf(item, reply, threshold) {
  if (reply.answer === null || reply.confidence < threshold) return 'declined';
  if (item.kind === 'unanswerable') return 'wrong';
  if (!item.page(reply)) return 'wrong';
  return item.fact(reply) ? 'right' : 'page';
}

async function api(base, token, path, body) {
  const response = await fetch(`${base}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** A key of the workspace with knowledge scopes and room for every question of a run. */
async function knowledgeKey(worker, workspaceId) {
  const key = await api(worker.url, worker.adminToken, '/api/admin/api-keys', {
    workspace_id: workspaceId,
    name: 'eval',
    scopes: ['knowledge:read', 'knowledge:write'],
    rate_limit_per_minute: 10_000,
  });
  return key.token;
}

/** Waits until no source of the workspace is still queued (large ones index on the queue). */
async function whenIndexed(base, token) {
  for (let tries = 0; tries < 240; tries++) {
    const { data } = await api(base, token, '/api/knowledge/sources');
    if (data.every((source) => source.status !== 'queued')) return data;
    await new Promise((resolve) => setTimeout(resolve, 500)); // A poll's interval.
  }
  throw new Error('the sources were still queued after 2 minutes');
}

const worker = await startLocalWorker({
  inspector: false,
  docsKnowledge: true,
  vars: {
    ...(values['rules-off'] ? { KNOWLEDGE_RULES_OFF: values['rules-off'] } : {}),
    // Every answer comes back with what the gate weighed, whatever its confidence; thresholds are applied here.
    KNOWLEDGE_EVAL: 'true',
  },
});
try {
  const sets = [];
  if (values.set !== 'hoppscotch') {
    sets.push({ name: 'our docs', token: await knowledgeKey(worker, 'ws_demo'), items: docsSet() });
  }
  if (values.set !== 'docs') {
    const corpus = JSON.parse(readFileSync(join(ROOT, 'scripts/eval/hoppscotch/corpus.json'), 'utf8'));
    const org = await api(worker.url, worker.adminToken, '/api/admin/organizations', { name: 'Hoppscotch docs' });
    const token = await knowledgeKey(worker, org.workspace_id);
    for (const page of corpus)
      await api(worker.url, token, '/api/knowledge/sources', {
        kind: 'document',
        title: page.title,
        url: page.url,
        content_type: 'text/markdown',
        content: page.markdown,
        language: 'en',
      });
    sets.push({ name: 'Hoppscotch', token, items: hoppscotchSet(corpus) });
  }
  for (const set of sets) {
    const sources = await whenIndexed(worker.url, set.token);
    set.passages = sources.reduce((sum, source) => sum + source.chunks, 0);
    set.pages = sources.length;
    set.replies = new Map();
    for (const item of set.items)
      set.replies.set(
        item,
        await api(worker.url, set.token, '/api/knowledge/ask', {
          question: item.q,
          language: item.lang,
          min_confidence: FLOOR,
        }),
      );
  }

  const answerSource = readFileSync(join(ROOT, 'worker/platform/knowledge/answer.ts'), 'utf8');
  const DEFAULT = Number(/DEFAULT_MIN_CONFIDENCE = ([\d.]+)/.exec(answerSource)[1]);
  const tally = (pairs, threshold) => {
    const rows = { en: [0, 0, 0, 0, 0], other: [0, 0, 0, 0], none: [0, 0] };
    for (const [item, reply] of pairs) {
      const outcome = outcomeOf(item, reply, threshold);
      if (item.kind === 'unanswerable') {
        rows.none[0] += 1;
        if (outcome === 'declined') rows.none[1] += 1;
      } else if (item.lang === 'en') {
        rows.en[0] += 1;
        rows.en[['right', 'page', 'wrong', 'declined'].indexOf(outcome) + 1] += 1;
      } else {
        rows.other[0] += 1;
        if (outcome === 'right') rows.other[1] += 1;
        if (outcome === 'wrong') rows.other[2] += 1;
        if (outcome === 'page') rows.other[3] += 1;
      }
    }
    return rows;
  };
  const pairsOf = (set) => set.items.map((item) => [item, set.replies.get(item)]);
  const everyPair = sets.flatMap(pairsOf);
  const pct = (part, total) => (total === 0 ? '  —' : `${Math.round((100 * part) / total)}%`.padStart(4));
  const cell = (part, total) => `${part} ${pct(part, total)}`.padStart(9);
  const perTwenty = (rows) => {
    // Answers given: right, the right page without its fact, and wrong; wrong: another page, or an
    // answer to what the docs do not say.
    const given =
      rows.en[1] +
      rows.en[2] +
      rows.en[3] +
      rows.other[1] +
      rows.other[2] +
      rows.other[3] +
      (rows.none[0] - rows.none[1]);
    const wrong = rows.en[3] + rows.other[2] + (rows.none[0] - rows.none[1]);
    return { given, wrong, rate: given === 0 ? 0 : (20 * wrong) / given };
  };
  console.log(
    `Knowledge eval at the default threshold (${DEFAULT})` +
      `${values['rules-off'] ? `, rules off: ${values['rules-off']}` : ''}:\n`,
  );
  console.log(
    `  ${'set'.padEnd(30)} ${'EN right'.padStart(9)} ${'page only'.padStart(9)} ${'wrong'.padStart(9)} ` +
      `${'declined'.padStart(9)} ${'other lang'.padStart(11)} ${'unans. decl.'.padStart(12)} ${'wrong/20'.padStart(9)}`,
  );
  for (const [name, pairs, extra] of [
    ...sets.map((set) => [set.name, pairsOf(set), ` (${set.pages} pages, ${set.passages} passages)`]),
    ...(sets.length > 1 ? [['both', everyPair, '']] : []),
  ]) {
    const rows = tally(pairs, DEFAULT);
    const { rate } = perTwenty(rows);
    console.log(
      `  ${`${name}${extra}`.padEnd(30)} ${cell(rows.en[1], rows.en[0])} ${cell(rows.en[2], rows.en[0])} ` +
        `${cell(rows.en[3], rows.en[0])} ${cell(rows.en[4], rows.en[0])} ` +
        `${`${rows.other[1]}/${rows.other[0]} (${rows.other[2]} wrong)`.padStart(11)} ` +
        `${`${rows.none[1]}/${rows.none[0]}`.padStart(12)} ${rate.toFixed(1).padStart(9)}`,
    );
  }
  // Other languages one by one: without a model, a question is answered only when its words match.
  console.log('\nOther languages at the default, per set: right / asked (wrong)');
  for (const set of sets) {
    const byLanguage = new Map();
    for (const [item, reply] of pairsOf(set)) {
      if (item.lang === 'en' || item.kind !== 'answerable') continue;
      const entry = byLanguage.get(item.lang) ?? { asked: 0, right: 0, wrong: 0 };
      const outcome = outcomeOf(item, reply, DEFAULT);
      entry.asked += 1;
      if (outcome === 'right') entry.right += 1;
      if (outcome === 'wrong') entry.wrong += 1;
      byLanguage.set(item.lang, entry);
    }
    const cells = [...byLanguage].sort().map(([lang, e]) => `${lang} ${e.right}/${e.asked} (${e.wrong})`);
    console.log(`  ${set.name.padEnd(12)} ${cells.join('   ')}`);
  }
  console.log('\nBy threshold: English right, and wrong answers per 20 given (every kind), per set:');
  for (const threshold of THRESHOLDS) {
    const parts = [...sets.map((set) => [set.name, pairsOf(set)]), ...(sets.length > 1 ? [['both', everyPair]] : [])]
      .map(([name, pairs]) => {
        const rows = tally(pairs, threshold);
        const { wrong, given, rate } = perTwenty(rows);
        return `${name}: ${pct(rows.en[1], rows.en[0])} right, ${wrong}/${given} wrong (${rate.toFixed(1)})`;
      })
      .join('   ');
    console.log(`  ${threshold.toFixed(2)}  ${parts}`);
  }
  if (values.dump) {
    // Each question's outcome were it answered, and the gate's evidence: what calibration fits on.
    const { writeFileSync } = await import('node:fs');
    const rows = sets.flatMap((set) =>
      pairsOf(set).map(([item, reply]) => ({
        set: set.name,
        q: item.q,
        lang: item.lang,
        kind: item.kind,
        outcome: outcomeOf(item, reply, 0),
        confidence: reply.confidence,
        evidence: reply.evidence ?? null,
        cited: reply.citations.map((citation) => citation.url),
        answer: reply.answer,
      })),
    );
    writeFileSync(values.dump, JSON.stringify(rows, null, 1));
    console.log(`\nWrote ${rows.length} rows to ${values.dump}.`);
  }
  if (values.verbose) {
    console.log('\nEvery answer, at the default:');
    for (const set of sets)
      for (const [item, reply] of pairsOf(set)) {
        const outcome = outcomeOf(item, reply, DEFAULT);
        const cited = reply.citations.map((citation) => citation.url).join(' ');
        console.log(
          `  [${outcome}] ${reply.confidence.toFixed(3)} ${set.name} ${item.lang}: ${item.q}\n      ${cited}`,
        );
        if (outcome === 'wrong' || outcome === 'page') console.log(`      ${(reply.answer ?? '').slice(0, 240)}`);
      }
  }
} finally {
  await worker.stop();
}
