// `npm run bench -- knowledge`: asking a workspace's knowledge while the index grows around it.
// One workspace gets 1,000 passages through the API (a document of 1,000 sections, indexed on the
// queue: the indexing speed), then 200 questions: p50 and p99, and the D1 round trips and rows
// read of each request from the bench's X-D1-* headers (the key's check, then the question's one
// statement). Then 99 other workspaces get 1,000 passages each from the same vocabulary (the index
// holds 100,000), and the same questions are asked again. Fails unless each request takes the same
// two round trips, and the rows it reads do not grow with the others' passages.

/** The sizes: the full run, and the smoke run of `npm test`. */
const SIZES = {
  full: { workspaces: 100, sections: 1_000, questions: 200 },
  smoke: { workspaces: 3, sections: 50, questions: 20 },
};

/** A vocabulary shared by every workspace, so that a question's words are in all of them. */
const WORDS = Array.from(
  { length: 3_000 },
  (_, i) => `${['ro', 'ka', 'mi', 'te', 'su', 'no'][i % 6]}${i.toString(36)}`,
);
const pick = (random) => WORDS[Math.floor(random() * WORDS.length)];

/** A small seeded generator: every run writes and asks the same words. */
function generator(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

/** A Markdown document of `sections` sections of about 40 words each: one passage each. */
function documentOf(sections, seed) {
  const random = generator(seed);
  const parts = [`# Help ${seed}`];
  for (let s = 0; s < sections; s++) {
    const sentence = () => `${Array.from({ length: 10 }, () => pick(random)).join(' ')}.`;
    parts.push(`## ${pick(random)} ${pick(random)}`, `${sentence()} ${sentence()} ${sentence()} ${sentence()}`);
  }
  return parts.join('\n\n');
}

async function call(worker, path, token, body) {
  const response = await fetch(`${worker.url}${path}`, {
    method: body ? 'POST' : 'GET',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response;
}

/** A workspace with a key that reads and writes its knowledge. */
async function workspace(worker, adminCall, name) {
  const organization = await adminCall(worker, '/api/admin/organizations', { name });
  const key = await adminCall(worker, '/api/admin/api-keys', {
    workspace_id: organization.workspace_id,
    name,
    scopes: ['knowledge:read', 'knowledge:write'],
    rate_limit_per_minute: 1_000_000,
  });
  return key.token;
}

/** Adds the workspace's document and waits until the queue indexed it; answers its passages. */
async function index(worker, token, sections, seed) {
  const created = await (
    await call(worker, '/api/knowledge/sources', token, {
      kind: 'document',
      title: `Help ${seed}`,
      content_type: 'text/markdown',
      content: documentOf(sections, seed),
    })
  ).json();
  for (;;) {
    const source = await (await call(worker, `/api/knowledge/sources/${created.source_id}`, token)).json();
    if (source.status === 'indexed') return source.chunks;
    if (source.status === 'failed') throw new Error(`indexing failed: ${source.error}`);
    await new Promise((resolve) => setTimeout(resolve, 100)); // A poll's interval.
  }
}

/** Asks every question once: latencies, round trips and rows read. */
async function ask(worker, token, questions) {
  const runs = [];
  for (const question of questions) {
    const started = performance.now();
    const response = await call(worker, '/api/knowledge/ask', token, { question });
    await response.json();
    runs.push({
      ms: performance.now() - started,
      trips: Number(response.headers.get('X-D1-Queries')),
      rows: Number(response.headers.get('X-D1-Rows-Read')),
    });
  }
  const sorted = runs.map((run) => run.ms).sort((a, b) => a - b);
  const at = (share) => sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))];
  return { p50: at(0.5), p99: at(0.99), runs };
}

/** Runs the knowledge bench against a started local Worker (EXPOSE_DB_METRICS set); answers whether it held. */
export async function benchKnowledge(worker, adminCall, { smoke = false } = {}) {
  const { workspaces, sections, questions: count } = SIZES[smoke ? 'smoke' : 'full'];
  console.log(`\nKnowledge: ${workspaces} workspaces × ${sections.toLocaleString('en')} passages`);
  const random = generator(7);
  const questions = Array.from({ length: count }, () => `How do ${pick(random)} and ${pick(random)} ${pick(random)}?`);
  const token = await workspace(worker, adminCall, 'Bench knowledge 0');
  let started = performance.now();
  const own = await index(worker, token, sections, 0);
  const oneRate = own / ((performance.now() - started) / 1000);
  console.log(`  one workspace: ${own.toLocaleString('en')} passages indexed, ${oneRate.toFixed(0)} passages/s`);
  await ask(worker, token, questions.slice(0, 5)); // Warm.
  const before = await ask(worker, token, questions);

  started = performance.now();
  let others = 0;
  for (let w = 1; w < workspaces; w++)
    others += await index(worker, await workspace(worker, adminCall, `Bench knowledge ${w}`), sections, w);
  const rate = others / ((performance.now() - started) / 1000);
  console.log(
    `  ${workspaces - 1} more workspaces: ${others.toLocaleString('en')} passages, ${rate.toFixed(0)} passages/s ` +
      "(with their workspaces' set-up)",
  );
  const after = await ask(worker, token, questions);

  const trips = new Set([...before.runs, ...after.runs].map((run) => run.trips));
  const rowsBefore = before.runs.reduce((sum, run) => sum + run.rows, 0);
  const rowsAfter = after.runs.reduce((sum, run) => sum + run.rows, 0);
  for (const [name, result] of [
    [`index of ${own.toLocaleString('en')}`, before],
    [`index of ${(own + others).toLocaleString('en')}`, after],
  ]) {
    const rows = result.runs.reduce((sum, run) => sum + run.rows, 0) / result.runs.length;
    console.log(
      `  ask, ${name.padEnd(16)} p50 ${result.p50.toFixed(1).padStart(6)} ms  ` +
        `p99 ${result.p99.toFixed(1).padStart(6)} ms  rows read per question ${rows.toFixed(0)}`,
    );
  }
  console.log(`  D1 round trips per question: ${[...trips].join(', ')}`);
  // Two round trips a request: the key's check, and the question's one statement.
  // D1 counts a range's boundary row, once the next workspace exists: "the same" is within a row a
  // range (a question reads at most 26: each word's, and its workspace's count).
  const held = trips.size === 1 && trips.has(2) && rowsBefore > 0 && rowsAfter - rowsBefore <= 26 * before.runs.length;
  console.log(held ? '  held: the question is one round trip, its rows read constant in the others' : '  NOT HELD');
  return held;
}
