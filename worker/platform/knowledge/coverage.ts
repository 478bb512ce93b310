/**
 * How much of a question a text covers (docs/design/knowledge.md#the-gate): each question word
 * weighs by its length and its rarity in the workspace, is held by a text as a word or (for less)
 * only inside an identifier, and a light stem tells forms apart ("opening" is not "open"). The
 * gate's *window* is the one or two sentences of a passage that cover most of the question; the
 * extract begins there.
 */
import { sentencesOf } from './text';
import { contentWords, fold, sameWord, stem } from './words';

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

/** A word of a text, or a name written as one token (max_open_claims, lead.unclaimed, 1.5). */
const TOKEN = /[\p{L}\p{N}]+(?:[_.:][\p{L}\p{N}]+)*/gu;

/** For each question (its words, by identity), the question words each stem of a text is a form of. */
const FORMS = new WeakMap<WeightedStem[], Map<string, number[]>>();

/** The question's words a stem is a form of (itself, or sameWord), remembered for the question. */
function wordsMatching(question: WeightedStem[], token: string): number[] {
  let known = FORMS.get(question);
  if (!known) {
    known = new Map();
    FORMS.set(question, known);
  }
  let found = known.get(token);
  if (!found) {
    found = [];
    for (const [index, word] of question.entries())
      if (word.stem === token || sameWord(token, word.stem)) found.push(index);
    known.set(token, found);
  }
  return found;
}

/**
 * How a text holds each of the question's words: 1 as a word, IDENTIFIER_PART only inside an
 * identifier (a word inside `max_open_claims` says less than the word alone), else 0.
 */
function heldIn(question: WeightedStem[], text: string): number[] {
  const held = question.map(() => 0);
  for (const [token] of fold(text).matchAll(TOKEN)) {
    const inside = /[_.:]/.test(token);
    for (const part of inside ? token.split(/[_.:]/) : [token])
      for (const index of wordsMatching(question, stem(part)))
        held[index] = Math.max(held[index]!, inside ? IDENTIFIER_PART : 1);
  }
  return held;
}

/** The share (0…1) of the question's weight that these holdings cover. */
function shareOf(question: WeightedStem[], held: number[]): number {
  const total = question.reduce((sum, word) => sum + word.weight, 0);
  if (total === 0) return 0;
  return question.reduce((sum, word, index) => sum + word.weight * (held[index] ?? 0), 0) / total;
}

/** The share (0…1) of the question's weight that a text's words cover. */
export function coverage(question: WeightedStem[], text: string): number {
  return shareOf(question, heldIn(question, text));
}

/** A question's word as a light stem, with its weight. */
export type WeightedStem = { stem: string; weight: number };

/** The sentences of a passage's body, each with what it holds of the question and its coverage. */
function coveredSentences(words: WeightedStem[], body: string) {
  return sentencesOf(body).map((text, index) => {
    const held = heldIn(words, text);
    return { text, index, held, covered: shareOf(words, held) };
  });
}

/**
 * The window of one or two adjacent sentences that covers most of the question: an answer is
 * said in one place, and a passage that holds the question's words only scattered does not say it.
 */
export function bestWindow(words: WeightedStem[], body: string) {
  const sentences = coveredSentences(words, body);
  let best = { start: -1, end: -1, covered: 0 };
  for (let index = 0; index < sentences.length; index++) {
    const one = sentences[index]!;
    if (one.covered > best.covered) best = { start: index, end: index, covered: one.covered };
    const next = sentences[index + 1];
    if (!next) continue;
    // Two sentences say it less plainly than one: their coverage counts for a little less.
    const two =
      0.85 *
      shareOf(
        words,
        one.held.map((value, word) => Math.max(value, next.held[word] ?? 0)),
      );
    if (two > best.covered + 0.001) best = { start: index, end: index + 1, covered: two };
  }
  return { sentences, window: best };
}
