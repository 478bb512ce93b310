/**
 * Asking a workspace's knowledge (docs/design/knowledge.md): one D1 statement finds the best
 * passages (FTS5 MATCH of each of the question's quoted words, within the workspace's id range of
 * the index, the rarer words weighing more), and the answer is composed from
 * them: extractive by default, worded by a model when one is configured (model.ts), never a guess.
 */
import { sql } from 'drizzle-orm';
import { type Database, isConstraintViolation, schema } from '../../lib/db';
import { ApiError } from '../../lib/errors';
import { RATE_LIMIT_WINDOW_MS, readWindows, windowIncrement } from '../../lib/rate-limit';
import { clock } from '../../lib/clock';
import type { AnswerModel } from '../../lib/answer-model';
import { type Language, visitorMessages } from '../../lib/i18n';
import {
  DEFAULT_MIN_CONFIDENCE,
  extractiveAnswer,
  type KnowledgeAnswer,
  type Passage,
  rankedPassages,
  type RankingStats,
  type Rule,
} from './answer';
import { modelAnswer, translatedQuestion } from './model';
import { CHUNKS_PER_WORKSPACE } from './indexing';
import { contentWords, quotedWord } from './words';

const { knowledgeChunks, knowledgeSources, knowledgeSpaces } = schema;

/** How many passages a question reads: the candidates BM25F ranks in the Worker (bm25.ts). */
export const CANDIDATES = 50;
/** How many of the best passages a model reads to word its answer. */
const MODEL_PASSAGES = 8;
/** ln(1 + r) in steps, for choosing candidates in SQL: [r at least, idf]. */
const IDF_STEPS = [
  [1000, 7],
  [300, 5.7],
  [100, 4.6],
  [30, 3.4],
  [10, 2.4],
  [3, 1.4],
  [1, 0.7],
] as const;
/**
 * The most postings read for one word of a question: a word in more passages than this says little
 * about any of them, and reading all of them is what made a question's cost grow with the workspace.
 */
export const POSTINGS_PER_WORD = 2_000;

/** A passage as the statement returns it: with the workspace's word counts (the same on every row). */
type PassageRow = Passage & { stats: string; found: string };

/**
 * The statement that finds a question's candidate passages in one workspace, or null when the
 * question has no words to search for. Each of the question's words is looked up by itself (an
 * FTS5 MATCH of the quoted word) within the workspace's rowid range, so FTS5 reads only that part
 * of its postings (and at most POSTINGS_PER_WORD of them). The CANDIDATES passages whose matched
 * words weigh most (each word by a step approximation of its idf: SQLite's math functions are not
 * relied on) come back, checked against the workspace again, with the workspace's statistics
 * (passages, words per field) and each word's passage count: all that BM25F needs (bm25.ts), which
 * the Worker then computes. FTS5's bm25() is not used: its statistics are the whole index's, so
 * its cost, and its order, would depend on other workspaces.
 */
export function passagesQuery(db: Database, workspaceId: string, question: string) {
  const words = contentWords(question);
  if (words.length === 0) return null;
  // Each range is read as a joined row, not a subquery, and its constants are written into the
  // statement, not bound: so FTS5 and the rowid index are handed the bounds, and nothing beyond the
  // workspace's range is read (with a bound multiplier, they were not: test/worker/knowledge.sources.cases.ts).
  const hits = words.map(
    (word, index) => sql`SELECT * FROM (SELECT ${`w${index}`} AS word, knowledge_fts.rowid AS id
      FROM space CROSS JOIN knowledge_fts WHERE knowledge_fts MATCH ${quotedWord(word)}
        AND knowledge_fts.rowid >= space.lo AND knowledge_fts.rowid < space.hi
      LIMIT ${sql.raw(String(POSTINGS_PER_WORD))})`,
  );
  // D1 allows 5 terms to a compound SELECT: the lookups go in groups of 5, and the groups likewise.
  const groups = [];
  for (let start = 0; start < hits.length; start += 5)
    groups.push(sql`SELECT * FROM (${sql.join(hits.slice(start, start + 5), sql` UNION ALL `)})`);
  const size = sql.raw(String(CHUNKS_PER_WORKSPACE));
  // idf = ln(1 + r), r = (N - n + 0.5) / (n + 0.5), in steps: enough to choose candidates by.
  const ratio = '((space.passages - f.n + 0.5) / (f.n + 0.5))';
  const idfOf = sql.raw(
    `CASE ${IDF_STEPS.map(([at, value]) => `WHEN ${ratio} >= ${at} THEN ${value}`).join(' ')} ELSE 0.3 END`,
  );
  // The workspace's statistics come on every row, and on a row of their own (no passage) when no
  // word matched: a declined question still knows the knowledge's language.
  return db.all<PassageRow>(sql`WITH space AS (SELECT ordinal * ${size} AS lo, (ordinal + 1) * ${size} AS hi,
        max(passages, 1) * 1.0 AS passages, title_tokens, heading_tokens, body_tokens, language
        FROM ${knowledgeSpaces} WHERE workspace_id = ${workspaceId}),
      hits AS MATERIALIZED (${sql.join(groups, sql` UNION ALL `)}),
      found AS (SELECT word, count(*) AS n FROM hits GROUP BY word),
      best AS (SELECT h.id, sum(${idfOf}) AS score FROM hits h JOIN found f ON f.word = h.word
        CROSS JOIN space GROUP BY h.id ORDER BY score DESC, h.id LIMIT ${sql.raw(String(CANDIDATES))}),
      passages AS (SELECT c.id, best.score, c.source_id, c.title, c.headings, c.body, c.url
        FROM best JOIN ${knowledgeChunks} c ON c.id = best.id WHERE c.workspace_id = ${workspaceId})
    SELECT p.source_id AS "sourceId", p.title, p.headings, p.body, p.url,
      (SELECT kind = 'qa' FROM ${knowledgeSources} s WHERE s.id = p.source_id) AS qa,
      json_array(space.passages, space.title_tokens, space.heading_tokens, space.body_tokens, space.language) AS stats,
      (SELECT json_group_object(word, n) FROM found) AS found
    FROM space LEFT JOIN passages p
    ORDER BY p.score DESC, p.id`);
}

/** Questions asked through the API or MCP a minute: per key (or person), and per workspace, every caller together. */
export const ASK_LIMITS = { perCaller: 60, perWorkspace: 600 };

/** Who asks through the API or MCP: their slots are taken in the question's own round trip. */
export interface AskLimit {
  caller: string;
  workspaceId: string;
  /** The key's own rate a minute, when it has one. */
  perCaller?: number | null;
}

const askSubjects = (limit: AskLimit) => ({
  caller: `knowledge:ask:${limit.caller}`,
  workspace: `knowledge:ask-ws:${limit.workspaceId}`,
});

/** The statements that take a question's slots: the caller's and the workspace's windows (CHECK past them). */
function askSlotWrites(db: Database, limit: AskLimit, now: number) {
  const subjects = askSubjects(limit);
  return [
    windowIncrement(db, subjects.caller, now, RATE_LIMIT_WINDOW_MS, limit.perCaller ?? ASK_LIMITS.perCaller),
    windowIncrement(db, subjects.workspace, now, RATE_LIMIT_WINDOW_MS, ASK_LIMITS.perWorkspace),
  ] as const;
}

/** The 429 of a question past its caller's or workspace's limit, with when to try again. */
async function askRefusal(db: Database, limit: AskLimit, now: number): Promise<ApiError> {
  const subjects = askSubjects(limit);
  const windows = await readWindows(db, [subjects.caller, subjects.workspace], now, RATE_LIMIT_WINDOW_MS);
  const resetAt = Math.max(now + 1000, ...windows.map((window) => window.resetAt));
  return new ApiError('rate_limited', 'Too many questions this minute: try again shortly.', {
    headers: { 'Retry-After': String(Math.ceil((resetAt - now) / 1000)) },
  });
}

/**
 * The passages a question's statement finds, with the caller's slots taken in the same round trip
 * when it is limited: a batch, which the window's CHECK refuses whole past the limit.
 */
async function readPassages(
  db: Database,
  query: ReturnType<typeof passagesQuery>,
  limit: AskLimit | undefined,
  now: number,
): Promise<PassageRow[]> {
  if (!limit) return query ? ((await query) as PassageRow[]) : [];
  const [caller, workspace] = askSlotWrites(db, limit, now);
  try {
    const results = await db.batch(query ? [caller, workspace, query] : [caller, workspace]);
    return query ? (results[2] as PassageRow[]) : [];
  } catch (error) {
    if (!isConstraintViolation(error, 'within_window_limit')) throw error;
    throw await askRefusal(db, limit, now);
  }
}

/** The workspace's statistics a row of passagesQuery carries, with the question's words' passage counts. */
export function statsOf(question: string, rows: PassageRow[]): RankingStats & { language: string | null } {
  const [passages = 0, title = 0, headings = 0, body = 0, language = null] = rows[0]
    ? (JSON.parse(rows[0].stats) as [number, number, number, number, string | null])
    : [];
  const found = rows[0]?.found ? (JSON.parse(rows[0].found) as Record<string, number>) : {};
  return {
    passages,
    tokens: { title, headings, body },
    df: Object.fromEntries(contentWords(question).map((word, index) => [word, found[`w${index}`] ?? 0])),
    language,
  };
}

/** Composes the answer to a question from its passages (extractive), in the asker's language. */
export function answerFrom(
  question: string,
  passages: Passage[],
  options: {
    language: Language;
    minConfidence?: number;
    stats: RankingStats;
    rules?: ReadonlySet<Rule>;
    evaluate?: boolean;
  },
): KnowledgeAnswer {
  const messages = visitorMessages(options.language);
  return extractiveAnswer(question, passages, {
    minConfidence: options.minConfidence ?? DEFAULT_MIN_CONFIDENCE,
    language: options.language,
    from: (title) => messages.knowledge_from({ title }),
    stats: options.stats,
    ...(options.rules ? { rules: options.rules } : {}),
    ...(options.evaluate ? { evaluate: true } : {}),
  });
}

/**
 * Asks a workspace's knowledge: one round trip, then the answer or the reason it is declined.
 * With a model (`model`), a declined question in another language than English is translated and
 * asked once more (one more round trip), and a confident answer is worded by the model from the
 * best passages (model.ts), or stays extractive when the model cites nothing or takes too long.
 */
export async function askKnowledge(
  db: Database,
  workspaceId: string,
  question: string,
  options: {
    language: Language;
    minConfidence?: number;
    model?: AnswerModel | null;
    /** A caller of the API or MCP: a question is limited per caller and workspace (429 past the limits). */
    limit?: AskLimit;
    now?: number;
    /** The ranking's rules in force (all, but in a local evaluation of their worth). */
    rules?: ReadonlySet<Rule>;
    /** A local evaluation: every question answered (whatever its confidence), with the gate's evidence. */
    evaluate?: boolean;
  },
): Promise<KnowledgeAnswer> {
  let limit = options.limit;
  const search = async (words: string) => {
    const query = passagesQuery(db, workspaceId, words);
    const found = await readPassages(db, query, limit, options.now ?? clock.now());
    // Slots are taken once, with the first search.
    limit = undefined;
    const stats = statsOf(words, found);
    // SQLite's boolean is 0 or 1; the row of statistics alone (nothing matched) is no passage.
    const rows = found.filter((row) => row.sourceId !== null).map((row) => ({ ...row, qa: Boolean(row.qa) }));
    const answer = answerFrom(words, rows, { ...options, stats });
    return { words, rows, stats, answer: { ...answer, knowledge_language: stats.language } };
  };
  let found = await search(question);
  const { model } = options;
  if (!model) return found.answer;
  if (found.answer.declined && options.language !== 'en') {
    const english = await translatedQuestion(model, question);
    if (english) found = await search(english);
  }
  if (found.answer.declined) return found.answer;
  const best = rankedPassages(found.words, found.rows, found.stats, options.rules)
    .slice(0, MODEL_PASSAGES)
    .map((entry) => entry.passage);
  const written = await modelAnswer(model, question, best, options.language);
  return written ? { ...found.answer, ...written, chosen_by: 'model' } : found.answer;
}
