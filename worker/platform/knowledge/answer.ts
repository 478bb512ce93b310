/**
 * An answer from retrieved passages (docs/design/knowledge.md), without a model: the sentences of
 * the best passage that cover the question, at most 600 characters, with where they came from.
 * Confidence is calibrated from retrieval, not from BM25's raw score: how much of the question the
 * best passage covers, and its margin over the best passage of another document. Below the
 * threshold the question is declined: a wrong answer costs more than a handoff.
 */
import { contentWords, sameWord, stem, wordsOf } from './words';
import { sentencesOf } from './text';

/** A passage the index returned for a question, best first. */
export interface Passage {
  sourceId: string;
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

/** A question's words as stems, each with its weight: a longer word says more about the topic. */
function weightedStems(question: string): Array<{ stem: string; weight: number }> {
  return contentWords(question).map((word) => ({ stem: stem(word), weight: Math.min(1, 0.3 + word.length / 10) }));
}

/** The share (0…1) of the question's weight that a text's words cover. */
export function coverage(question: Array<{ stem: string; weight: number }>, text: string): number {
  const total = question.reduce((sum, word) => sum + word.weight, 0);
  if (total === 0) return 0;
  const stems = new Set(wordsOf(text).map(stem));
  let covered = 0;
  for (const word of question) {
    if (stems.has(word.stem) || [...stems].some((candidate) => sameWord(candidate, word.stem))) covered += word.weight;
  }
  return covered / total;
}

const documentOf = (passage: Passage) => passage.url?.split('#')[0] ?? `${passage.sourceId}:${passage.title}`;
const textOf = (passage: Passage) => `${passage.title}\n${passage.headings}\n${passage.body}`;

/**
 * How sure an answer from these passages is (0…1): the best passage's coverage of the question,
 * lowered when another document's best passage covers it nearly as well (the question is then
 * ambiguous between them).
 */
export function confidenceOf(question: string, passages: Passage[]): { best: number; confidence: number } {
  const words = weightedStems(question);
  const scored = passages.map((passage, rank) => ({ passage, rank, covered: coverage(words, textOf(passage)) }));
  // The index's order breaks ties: a passage covering as much but ranked lower comes second.
  scored.sort((a, b) => b.covered - a.covered || a.rank - b.rank);
  const [best] = scored;
  if (!best || best.covered === 0) return { best: -1, confidence: 0 };
  const other = scored.find((entry) => documentOf(entry.passage) !== documentOf(best.passage));
  const margin = Math.max(0, Math.min(1, 0.5 + (best.covered - (other?.covered ?? 0)) / 0.6));
  const confidence = best.covered ** 1.5 * (0.7 + 0.3 * margin);
  return { best: best.rank, confidence: Math.round(confidence * 1000) / 1000 };
}

/** The sentences of a passage that cover the question, in their order, within ANSWER_CHARS. */
export function extractSentences(question: string, body: string): string {
  const words = weightedStems(question);
  const sentences = sentencesOf(body).map((text, index) => ({ text, index, covered: coverage(words, text) }));
  const chosen = sentences.filter((sentence) => sentence.covered > 0).sort((a, b) => b.covered - a.covered);
  const picked: typeof sentences = [];
  let length = 0;
  for (const sentence of chosen.length > 0 ? chosen : sentences) {
    if (length + sentence.text.length > ANSWER_CHARS) {
      if (picked.length === 0) picked.push({ ...sentence, text: `${sentence.text.slice(0, ANSWER_CHARS - 1)}…` });
      break;
    }
    picked.push(sentence);
    length += sentence.text.length + 1;
  }
  // A following sentence often finishes the thought (a step, an example): kept when it fits.
  const last = Math.max(...picked.map((sentence) => sentence.index));
  const next = sentences[last + 1];
  if (next && length + next.text.length <= ANSWER_CHARS && !picked.some((s) => s.index === next.index))
    picked.push(next);
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
  options: { minConfidence: number; language: string; from: (title: string) => string },
): KnowledgeAnswer {
  const declined = (reason: 'no_match' | 'low_confidence', confidence = 0): KnowledgeAnswer => ({
    answer: null,
    citations: [],
    confidence,
    declined: reason,
    language: options.language,
    chosen_by: 'extractive',
  });
  const { best, confidence } = confidenceOf(question, passages);
  const passage = passages[best];
  if (!passage) return declined('no_match');
  if (confidence < options.minConfidence) return declined('low_confidence', confidence);
  const sentences = extractSentences(question, passage.body);
  return {
    answer: `${options.from(passage.title)} ${sentences}`,
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
