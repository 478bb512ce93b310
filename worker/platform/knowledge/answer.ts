/**
 * An answer from retrieved passages (docs/design/knowledge.md), without a model: the sentences of
 * the best passage that cover the question, at most 600 characters, with where they came from.
 * Confidence is calibrated from retrieval, not from BM25's raw score: how much of the question the
 * best passage covers, and its margin over the best passage of another document. Below the
 * threshold the question is declined: a wrong answer costs more than a handoff.
 */
import { contentWords, fold, sameWord, stem, wordsOf } from './words';
import { sentencesOf } from './text';

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
}

/** The longest extractive answer, in characters of the passage's sentences. */
export const ANSWER_CHARS = 600;
/** The default confidence an answer must reach to be given (set from `npm run eval -- knowledge`). */
export const DEFAULT_MIN_CONFIDENCE = 0.5;
/**
 * The uncalibrated score that the eval showed to be the best threshold (78% of the English questions
 * right and no answer wrong, the nearest wrong answers well under it): it maps to
 * DEFAULT_MIN_CONFIDENCE.
 */
const RAW_AT_DEFAULT = 0.23;

/**
 * How many of the workspace's passages hold each of a question's words (`of`, by the word as the
 * question spells it, folded), out of `passages`: a word most passages hold says little.
 */
export interface WordRarity {
  passages: number;
  of: Record<string, number>;
}

/**
 * A question's words as stems, each with its weight: a longer word says more about the topic, and
 * a rare one (in few of the workspace's passages, or in none) more than a common one.
 */
export function weightedStems(question: string, rarity?: WordRarity): Array<{ stem: string; weight: number }> {
  return contentWords(question).map((word) => {
    const length = Math.min(1, 0.3 + word.length / 10);
    if (!rarity || rarity.passages === 0) return { stem: stem(word), weight: length };
    const found = Math.min(rarity.of[word] ?? 0, rarity.passages);
    const idf = Math.log((rarity.passages + 1) / (found + 1)) / Math.log(rarity.passages + 1);
    return { stem: stem(word), weight: length * (0.35 + 0.65 * idf) };
  });
}

/** What a word found only inside an identifier counts for. */
const IDENTIFIER_PART = 0.5;

/** The share (0…1) of the question's weight that a text's words cover. */
export function coverage(question: Array<{ stem: string; weight: number }>, text: string): number {
  const total = question.reduce((sum, word) => sum + word.weight, 0);
  if (total === 0) return 0;
  // A word inside an identifier (max_open_claims, lead.unclaimed) says less than the word alone.
  const plain = new Set(wordsOf(text.replace(/[\p{L}\p{N}]+(?:[_.:][\p{L}\p{N}]+)+/gu, ' ')).map(stem));
  const stems = new Set(wordsOf(text).map(stem));
  const has = (set: Set<string>, word: string) => set.has(word) || [...set].some((other) => sameWord(other, word));
  let covered = 0;
  for (const word of question) {
    if (has(plain, word.stem)) covered += word.weight;
    else if (has(stems, word.stem)) covered += word.weight * IDENTIFIER_PART;
  }
  return covered / total;
}

const documentOf = (passage: Passage) => passage.url?.split('#')[0] ?? `${passage.sourceId}:${passage.title}`;

/** The sentences of a passage's body, each with its coverage of the question. */
function coveredSentences(words: Array<{ stem: string; weight: number }>, body: string) {
  return sentencesOf(body).map((text, index) => ({ text, index, covered: coverage(words, text) }));
}

/**
 * The window of one or two adjacent sentences that covers most of the question: an answer is
 * said in one place, and a passage that holds the question's words only scattered does not say it.
 */
function bestWindow(words: Array<{ stem: string; weight: number }>, body: string) {
  const sentences = coveredSentences(words, body);
  let best = { start: -1, end: -1, covered: 0 };
  for (let index = 0; index < sentences.length; index++) {
    const one = sentences[index]!.covered;
    if (one > best.covered) best = { start: index, end: index, covered: one };
    const next = sentences[index + 1];
    if (!next) continue;
    // Two sentences say it less plainly than one: their coverage counts for a little less.
    const two = 0.85 * coverage(words, `${sentences[index]!.text} ${next.text}`);
    if (two > best.covered + 0.001) best = { start: index, end: index + 1, covered: two };
  }
  return { sentences, window: best };
}

/** A question that asks for an amount (how many, how long, a size, a limit) is answered by a number. */
const ASKS_FOR_AMOUNT = new RegExp(
  '\\b(how (many|much|long|big|large|often|fast|quickly|soon)|maximum|minimum|max|min|limit|size|' +
    'wie (viele?|lange|gro(ß|ss))|cu[aá]nt[oa]s?|combien)\\b',
  'i',
);

/** An amount in words: a digit, a number word, or a unit of time. */
const AN_AMOUNT = new RegExp(
  '\\d|\\b(two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|hundred|thousand|dozen|' +
    'twice|seconds?|minutes?|hours?|days?|weeks?|months?|years?)\\b',
  'i',
);

const isTableRow = (sentence: string) => sentence.includes(' · ');

/** A name written as one token: a header (X-Request-Id), an error code (quota_exceeded), an event (lead.unclaimed). */
const IDENTIFIER = /[\p{L}\p{N}]+(?:[-_.:][\p{L}\p{N}]+)+/gu;

/** The identifiers a question names, folded (a sentence's final dot is not one). */
export const identifiersOf = (question: string) =>
  [...question.matchAll(IDENTIFIER)].map((match) => match[0].toLowerCase()).filter((name) => /[-_.:]\p{L}/u.test(name));

/** What a passage that does not name the question's identifier counts for: it speaks of something else. */
const WITHOUT_IDENTIFIER = 0.7;

/** A question that asks for an address (a URL, a link, an endpoint) is answered by one. */
const ASKS_FOR_ADDRESS = /\b(urls?|links?|endpoints?|web address|adresse|enlace)\b/i;
/** An address in words: a URL, or a path. */
const AN_ADDRESS = /https?:\/\/|(^|[\s`(])\/[\w.-]/;

/** How well one passage answers a question (0…1), from where its words are (docs/design/knowledge.md). */
function passageScore(question: string, words: Array<{ stem: string; weight: number }>, passage: Passage): number {
  const heading = coverage(words, `${passage.title} ${passage.headings}`);
  const whole = coverage(words, `${passage.title}\n${passage.headings}\n${passage.body}`);
  const { sentences, window } = bestWindow(words, passage.body);
  // The words in one place weigh most; the heading saying the topic comes next.
  let score = 0.45 * Math.max(window.covered, whole * 0.6) + 0.25 * whole + 0.3 * heading;
  const said = sentences.slice(Math.max(0, window.start), window.end + 2).map((sentence) => sentence.text);
  if (ASKS_FOR_AMOUNT.test(question) && !said.some((text) => AN_AMOUNT.test(text))) score *= 0.6;
  if (ASKS_FOR_ADDRESS.test(question) && !said.some((text) => AN_ADDRESS.test(text))) score *= 0.6;
  const text = `${passage.title}\n${passage.headings}\n${passage.body}`.toLowerCase();
  if (identifiersOf(question).some((name) => !text.includes(name))) score *= WITHOUT_IDENTIFIER;
  // A short question's every word matters: a passage silent on one of them answers another question.
  if (
    words.length <= 3 &&
    words.some((word) => coverage([word], `${passage.title}\n${passage.headings}\n${passage.body}`) === 0)
  )
    score *= SHORT_QUESTION_GAP;
  // A window of table rows (cells joined by " · ") lists names; prose explains them.
  const window_ = sentences.slice(Math.max(0, window.start), window.end + 1);
  if (window_.length > 0 && window_.every((sentence) => isTableRow(sentence.text))) score *= TABLE_ROWS;
  return score;
}

/** What a passage that leaves out one of a short question's words counts for. */
const SHORT_QUESTION_GAP = 0.8;

/** What a window of table rows only counts for, against the same words said in a sentence. */
const TABLE_ROWS = 0.85;

/**
 * Whether the question names something (a capitalised word after its first: Salesforce, PayPal,
 * Berlin) that no passage of the workspace mentions: the knowledge cannot be about it.
 */
function namesTheUnknown(question: string, rarity: WordRarity | undefined): boolean {
  if (!rarity || rarity.passages === 0) return false;
  const names = [...question.matchAll(/(?<=\s)\p{L}*\p{Lu}\p{L}*/gu)].map((match) => fold(match[0]));
  // Only the question's searched words count ("I" is capitalised too, and says nothing).
  return names.some((name) => rarity.of[name] === 0);
}

/** What an answer counts for when the question names something the knowledge never mentions. */
const NAMES_THE_UNKNOWN = 0.75;

/** The passages scored for a question, best first (the index's order breaks ties). */
export function rankedPassages(question: string, passages: Passage[], rarity?: WordRarity) {
  const words = weightedStems(question, rarity);
  const scored = passages.map((passage, rank) => ({ passage, rank, score: passageScore(question, words, passage) }));
  scored.sort((a, b) => b.score - a.score || a.rank - b.rank);
  return scored;
}

/**
 * How sure an answer from these passages is (0…1): the best passage's score (how much of the
 * question it covers, in one place, under which heading), lowered when another document's best
 * passage scores nearly as well (the question is then ambiguous between them).
 */
export function confidenceOf(
  question: string,
  passages: Passage[],
  rarity?: WordRarity,
): { best: number; confidence: number } {
  const scored = rankedPassages(question, passages, rarity);
  const [best] = scored;
  if (!best || best.score === 0) return { best: -1, confidence: 0 };
  const other = scored.find((entry) => documentOf(entry.passage) !== documentOf(best.passage));
  const margin = Math.max(0, Math.min(1, 0.5 + (best.score - (other?.score ?? 0)) / 0.6));
  const raw = best.score ** 1.5 * (0.7 + 0.3 * margin) * (namesTheUnknown(question, rarity) ? NAMES_THE_UNKNOWN : 1);
  // Calibrated on `npm run eval -- knowledge`: RAW_AT_DEFAULT is where the default threshold falls.
  const confidence =
    raw <= RAW_AT_DEFAULT
      ? (DEFAULT_MIN_CONFIDENCE * raw) / RAW_AT_DEFAULT
      : DEFAULT_MIN_CONFIDENCE + ((1 - DEFAULT_MIN_CONFIDENCE) * (raw - RAW_AT_DEFAULT)) / (1 - RAW_AT_DEFAULT);
  return { best: best.rank, confidence: Math.round(confidence * 1000) / 1000 };
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
  options: { minConfidence: number; language: string; from: (title: string) => string; rarity?: WordRarity },
): KnowledgeAnswer {
  const declined = (reason: 'no_match' | 'low_confidence', confidence = 0): KnowledgeAnswer => ({
    answer: null,
    citations: [],
    confidence,
    declined: reason,
    language: options.language,
    chosen_by: 'extractive',
  });
  const { best, confidence } = confidenceOf(question, passages, options.rarity);
  const passage = passages[best];
  if (!passage) return declined('no_match');
  if (confidence < options.minConfidence) return declined('low_confidence', confidence);
  const sentences = extractSentences(question, passage.body, options.rarity);
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
  };
}
