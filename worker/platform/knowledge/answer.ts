/**
 * An answer from retrieved passages (docs/design/knowledge.md), without a model: the passages
 * ranked by BM25F with the workspace's own statistics (bm25.ts), then the sentences of the best
 * one that cover the question, at most 600 characters, with where they came from. Confidence maps
 * the best passage's evidence (its score against the question's own maximum, the share of the
 * question it holds, its margin over another page) to a number calibrated on two help centers.
 * Below the threshold the question is declined: a wrong answer costs more than a handoff.
 */
import { bm25f, type CorpusStats, idf, stemOf, type Term } from './bm25';
import { bestWindow, weightedStems, type WordRarity } from './coverage';
import { contentWords } from './words';

/** A passage the index returned for a question, best first. */
export interface Passage {
  sourceId: string;
  /** A Q&A pair's passage is its answer, said as is; a document's is introduced with its title. */
  qa?: boolean;
  title: string;
  headings: string;
  body: string;
  url: string | null;
}

/** A source an answer cites. */
export interface Citation {
  source_id: string;
  title: string;
  url: string | null;
  excerpt: string;
}

/** What asking the knowledge answers (the API's shape). */
export interface KnowledgeAnswer {
  answer: string | null;
  citations: Citation[];
  confidence: number;
  declined: null | 'no_match' | 'low_confidence';
  language: string;
  chosen_by: 'extractive' | 'model';
  /** The language most of the knowledge is written in (null before anything is indexed). */
  knowledge_language?: string | null;
  /** A local evaluation's only: what the gate weighed. */
  evidence?: Evidence;
}

/** The longest extractive answer, in characters of the passage's sentences. */
export const ANSWER_CHARS = 600;
/** The default confidence an answer must reach to be given (set from `npm run eval -- knowledge`). */
export const DEFAULT_MIN_CONFIDENCE = 0.5;

/** What ranking knows of the workspace: its passages, their words per field, and each question word's passages. */
export interface RankingStats extends CorpusStats {
  /** How many passages hold each of the question's words (by the word, folded; read to a cap). */
  df: Record<string, number>;
}

const documentOf = (passage: Passage) => passage.url?.split('#')[0] ?? `${passage.sourceId}:${passage.title}`;

const isTableRow = (sentence: string) => sentence.includes(' · ');

/** A name written as one token: a header (X-Request-Id), an error code (quota_exceeded), an event (lead.unclaimed). */
const IDENTIFIER = /[\p{L}\p{N}]+(?:[-_.:][\p{L}\p{N}]+)+/gu;

/** The identifiers a question names, folded (a sentence's final dot is not one). */
export const identifiersOf = (question: string) =>
  [...question.matchAll(IDENTIFIER)].map((match) => match[0].toLowerCase()).filter((name) => /[-_.:]\p{L}/u.test(name));

/** What a passage that does not name the question's identifier counts for: it speaks of something else. */
const WITHOUT_IDENTIFIER = 0.7;

/**
 * The rules beyond BM25F (docs/design/knowledge.md#rules-beyond-bm25f), each a factor on a passage's score,
 * kept only where it helps, or holds, on both calibration sets. `KNOWLEDGE_RULES_OFF` (local
 * evaluation only) turns some off, to measure what each is worth.
 */
export const RULES = ['identifier'] as const;
export type Rule = (typeof RULES)[number];

/** A question's BM25F terms: its content words' stems, each once, weighted by its idf in the workspace. */
export function termsOf(question: string, stats: RankingStats): Term[] {
  const terms = new Map<string, Term>();
  for (const word of contentWords(question)) {
    const stem = stemOf(word);
    const weight = idf(stats.df[word] ?? 0, stats.passages);
    const known = terms.get(stem);
    if (!known || known.idf < weight) terms.set(stem, { stem, idf: weight });
  }
  return [...terms.values()];
}

/** Factors the rules put on a passage's score for a question. */
function ruleFactor(question: string, passage: Passage, rules: ReadonlySet<Rule>): number {
  const whole = `${passage.title}\n${passage.headings}\n${passage.body}`.toLowerCase();
  if (rules.has('identifier') && identifiersOf(question).some((name) => !whole.includes(name)))
    return WITHOUT_IDENTIFIER;
  return 1;
}

/** A passage ranked for a question: its BM25F score (with the rules' factors) and how much of the question it holds. */
export interface RankedPassage {
  passage: Passage;
  rank: number;
  score: number;
  /** The share of the question's idf whose words the passage holds (0…1), in any field. */
  held: number;
}

/** The passages ranked by BM25F for a question, best first (the index's order breaks ties). */
export function rankedPassages(
  question: string,
  passages: Passage[],
  stats: RankingStats,
  rules: ReadonlySet<Rule> = ALL_RULES,
): RankedPassage[] {
  const terms = termsOf(question, stats);
  const total = terms.reduce((sum, term) => sum + term.idf, 0);
  const share = (has: (index: number) => boolean) =>
    total > 0 ? terms.reduce((sum, term, index) => sum + (has(index) ? term.idf : 0), 0) / total : 0;
  const scored = passages.map((passage, rank) => {
    const { score, perTerm } = bm25f(terms, passage, stats);
    return {
      passage,
      rank,
      score: score * ruleFactor(question, passage, rules),
      held: share((index) => perTerm[index]! > 0),
    };
  });
  scored.sort((a, b) => b.score - a.score || a.rank - b.rank);
  return scored;
}

/** Every rule on. */
export const ALL_RULES: ReadonlySet<Rule> = new Set(RULES);

/**
 * How sure an answer from these passages is (0…1), from the best passage's evidence
 * (docs/design/knowledge.md#the-gate): its BM25F against the question's own maximum (every word
 * saturated: the sum of their idf), how much of the question the sentences it would answer with
 * cover (the light stem's coverage: "opening" is not "open"), its margin over the best passage of
 * another page (two pages scoring alike make the question ambiguous), and the question's length
 * (a long question's words are mostly context: it cannot reach its own maximum). Fitted on both
 * calibration sets at once; fitted on one, it holds on the other (knowledge.md).
 */
export function confidenceOf(
  question: string,
  passages: Passage[],
  stats: RankingStats,
  rules: ReadonlySet<Rule> = ALL_RULES,
): { best: number; confidence: number; evidence?: Evidence } {
  const scored = rankedPassages(question, passages, stats, rules);
  const [best] = scored;
  if (!best || best.score === 0) return { best: -1, confidence: 0 };
  const terms = termsOf(question, stats);
  const total = terms.reduce((sum, term) => sum + term.idf, 0);
  const other = scored.find((entry) => documentOf(entry.passage) !== documentOf(best.passage));
  const evidence: Evidence = {
    strength: total > 0 ? Math.min(1, best.score / total) : 0,
    window: bestWindow(weightedStems(question, rarityFrom(stats)), best.passage.body).window.covered,
    margin: Math.max(0, Math.min(1, (best.score - (other?.score ?? 0)) / best.score)),
    words: terms.length,
    held: best.held,
    // The question's weight in words no passage of the workspace holds: what it is not about.
    unseen: total > 0 ? terms.reduce((sum, term) => sum + (unseenTerm(term, stats) ? term.idf : 0), 0) / total : 0,
  };
  const evidenceFor = (value: number) => Math.log(Math.max(value, EVIDENCE_FLOOR));
  const z =
    evidenceFor(evidence.strength) +
    GATE.window * evidenceFor(evidence.window) +
    GATE.margin * evidence.margin +
    GATE.words * Math.log(Math.max(1, evidence.words)) -
    GATE.unseen * evidence.unseen;
  // A logistic curve through the default threshold at GATE.at: equal steps of evidence, equal odds.
  const confidence = 1 / (1 + Math.exp(-GATE.slope * (z - GATE.at)));
  return { best: best.rank, confidence, evidence };
}

/** What the gate weighed, for a local evaluation's calibration (never in an answer otherwise). */
export interface Evidence {
  /** The best passage's BM25F over the question's own maximum (0…1). */
  strength: number;
  /** The share of the question the sentences it would answer with cover (0…1). */
  window: number;
  /** Its lead over the best passage of another page, as a share of its score (0…1). */
  margin: number;
  /** The question's content words. */
  words: number;
  /** The share of the question's idf the passage holds in any field (0…1): reported, not weighed. */
  held: number;
  /** The share of the question's idf in words no passage of the workspace holds (0…1). */
  unseen: number;
}

/** A term no passage of the workspace holds (its idf is the highest the workspace gives). */
const unseenTerm = (term: Term, stats: RankingStats) => term.idf >= idf(0, stats.passages) - 1e-9;

/** The least evidence counted (a log of zero is no number). */
const EVIDENCE_FLOOR = 0.01;

/**
 * The gate (knowledge.md#the-gate): log strength + window·log coverage + margin·margin +
 * words·log(words) − unseen·unseen, against `at`, where confidence is DEFAULT_MIN_CONFIDENCE.
 * Fitted on both calibration sets (scripts/eval/fit-gate.mjs) for the most right answers with no
 * wrong one on our docs, at most 1 in 20 on Hoppscotch's, and every unanswerable question declined.
 */
const GATE = { window: 0.25, margin: 1.25, words: 1, unseen: 0.5, at: 0.503, slope: 2 };

/** The word counts ranking has, as the older weighting of extraction reads them. */
function rarityFrom(stats: RankingStats): WordRarity {
  return { passages: stats.passages, of: stats.df };
}

/**
 * The sentences of a passage that answer the question, in their order, within ANSWER_CHARS: the
 * window that covers it best, the sentence after it (it often finishes the thought: a step, an
 * example; after a table's row, the rows that follow), then the other sentences that cover it, as
 * long as they fit.
 */
export function extractSentences(question: string, body: string, rarity?: WordRarity): string {
  const words = weightedStems(question, rarity);
  const { sentences, window } = bestWindow(words, body);
  const inWindow = window.start < 0 ? sentences.slice(0, 1) : sentences.slice(window.start, window.end + 1);
  const others = sentences
    .filter((sentence) => sentence.covered > 0 && !inWindow.includes(sentence))
    .sort((a, b) => b.covered - a.covered);
  // A table's row (its cells joined by " · ") brings the rows after it: a header row says nothing alone.
  const withRows = (first: (typeof sentences)[number]) => {
    const run = [first];
    for (let index = first.index + 1; isTableRow(run.at(-1)!.text) && index < sentences.length; index++) {
      if (!isTableRow(sentences[index]!.text)) break;
      run.push(sentences[index]!);
    }
    return run;
  };
  const after = sentences[(inWindow.at(-1)?.index ?? -1) + 1];
  const candidates = [...inWindow, ...(after ? [after] : []), ...others].flatMap(withRows);
  const picked: typeof sentences = [];
  let length = 0;
  for (const sentence of candidates) {
    if (picked.includes(sentence)) continue;
    if (length + sentence.text.length > ANSWER_CHARS) {
      if (picked.length === 0) picked.push({ ...sentence, text: `${sentence.text.slice(0, ANSWER_CHARS - 1)}…` });
      continue;
    }
    picked.push(sentence);
    length += sentence.text.length + 1;
  }
  return picked
    .sort((a, b) => a.index - b.index)
    .map((sentence) => sentence.text)
    .join(' ');
}

/**
 * The extractive answer to a question from its passages, or the reason it is declined. `from`
 * writes the introduction in the visitor's language ("From *title*:").
 */
export function extractiveAnswer(
  question: string,
  passages: Passage[],
  options: {
    minConfidence: number;
    language: string;
    from: (title: string) => string;
    stats: RankingStats;
    rules?: ReadonlySet<Rule>;
    /** A local evaluation: the gate's evidence comes with the answer. */
    evaluate?: boolean;
  },
): KnowledgeAnswer {
  const declined = (reason: 'no_match' | 'low_confidence', confidence = 0): KnowledgeAnswer => ({
    answer: null,
    citations: [],
    confidence,
    declined: reason,
    language: options.language,
    chosen_by: 'extractive',
  });
  const { best, confidence: exact, evidence } = confidenceOf(question, passages, options.stats, options.rules);
  const passage = passages[best];
  if (!passage) return declined('no_match');
  // Shown to 3 places, rounded down: a declined answer never reads as high as the threshold.
  const confidence = Math.floor(exact * 1000) / 1000;
  if (exact < options.minConfidence) return declined('low_confidence', confidence);
  const evaluated = options.evaluate && evidence ? { evidence } : {};
  const sentences = extractSentences(question, passage.body, rarityFrom(options.stats));
  return {
    answer: passage.qa ? sentences : `${options.from(passage.title)} ${sentences}`,
    citations: [
      {
        source_id: passage.sourceId,
        title: passage.headings ? `${passage.title} › ${passage.headings.split(' › ').at(-1)}` : passage.title,
        url: passage.url,
        excerpt: sentences.length > 200 ? `${sentences.slice(0, 199)}…` : sentences,
      },
    ],
    confidence,
    declined: null,
    language: options.language,
    chosen_by: 'extractive',
    ...evaluated,
  };
}
