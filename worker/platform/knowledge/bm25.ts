/**
 * BM25F over a passage's three fields (docs/design/knowledge.md#ranking): the title, the heading
 * path and the body, each a bag of Porter stems (the stemmer FTS5's `porter` tokenizer applies, so
 * a word the index found is the word counted here), with the workspace's own statistics: how many
 * passages it holds, each field's average length, and how many passages hold each of the
 * question's words. A term's weighted frequency is summed over the fields, each normalised by its
 * length (Robertson and Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond", 2009).
 */
import { stemmer } from 'stemmer';
import { TtlCache } from '../../lib/ttl-cache';
import { wordsOf } from './words';

/** A passage's fields, as stored. */
export interface Fields {
  title: string;
  headings: string;
  body: string;
}

export type FieldName = keyof Fields;
export const FIELD_NAMES: readonly FieldName[] = ['title', 'headings', 'body'];

/**
 * The parameters, set once (docs/design/knowledge.md#ranking): a title word counts twice a body
 * word and a heading word one and a half times (the baseline that put the answer first for two
 * thirds of another product's questions); `k1` 1.2 saturates a repeated word early, as help text
 * repeats its topic; `b` normalises a long body fully (0.75) and a title or heading path, short
 * and of like length, less (0.3).
 */
export const BM25F = {
  k1: 1.2,
  weight: { title: 2, headings: 1.5, body: 1 } as Record<FieldName, number>,
  b: { title: 0.3, headings: 0.3, body: 0.75 } as Record<FieldName, number>,
} as const;

/** The stems of a text, in order: its words as the index's tokenizer cuts them, each Porter-stemmed. */
export function stemsOf(text: string): string[] {
  return wordsOf(text).map(stemOf);
}

/**
 * Stems already taken, by word, in the isolate: help text repeats its words, and the stemmer was
 * most of ranking's work. A question reads a few thousand distinct words at most; a stem never
 * goes stale (so no clock: time 0 throughout).
 */
const STEMS = new TtlCache<string>(Number.POSITIVE_INFINITY, 50_000);

/** One word's stem (FTS5's `porter` stems ASCII words; others stay as they are). */
export function stemOf(word: string): string {
  const known = STEMS.peek(word, 0);
  if (known !== undefined) return known;
  const stem = /^[a-z]+$/.test(word) ? stemmer(word) : word;
  STEMS.set(word, stem, 0);
  return stem;
}

/** A workspace's statistics: its passages, and each field's total length in words. */
export interface CorpusStats {
  passages: number;
  tokens: Record<FieldName, number>;
}

/** The inverse document frequency of a word in `df` of `passages` (BM25's, kept above zero). */
export function idf(df: number, passages: number): number {
  const n = Math.min(Math.max(df, 0), passages);
  return Math.log(1 + (passages - n + 0.5) / (n + 0.5));
}

/** A question's terms: each content word's stem and its weight in this workspace (its idf). */
export interface Term {
  stem: string;
  idf: number;
}

/** A passage's fields as stem counts and lengths, read once for every term. */
export function fieldCounts(passage: Fields) {
  return FIELD_NAMES.map((field) => {
    const stems = stemsOf(passage[field]);
    const counts = new Map<string, number>();
    for (const stem of stems) counts.set(stem, (counts.get(stem) ?? 0) + 1);
    return { field, counts, length: stems.length };
  });
}

/**
 * A passage's BM25F score for the terms, and each term's share of it. The question's own maximum
 * (every term saturated) is the sum of the terms' idf, so `score / Σ idf` reads 0…1.
 */
export function bm25f(terms: Term[], passage: Fields, stats: CorpusStats) {
  const fields = fieldCounts(passage);
  const perTerm = terms.map((term) => {
    let weighted = 0;
    for (const { field, counts, length } of fields) {
      const tf = counts.get(term.stem) ?? 0;
      if (tf === 0) continue;
      const average = stats.passages > 0 ? stats.tokens[field] / stats.passages : length;
      const norm = 1 - BM25F.b[field] + BM25F.b[field] * (average > 0 ? length / average : 1);
      weighted += (BM25F.weight[field] * tf) / Math.max(norm, 0.05);
    }
    return weighted === 0 ? 0 : (term.idf * weighted) / (BM25F.k1 + weighted);
  });
  return { score: perTerm.reduce((sum, value) => sum + value, 0), perTerm };
}

/**
 * The statistics of passages held in memory, as the index keeps them for a workspace (indexing.ts
 * counts each field's words; the question's statement counts each word's passages): for a small
 * corpus checked by hand, and ranking away from D1.
 */
export function statsOfPassages(passages: Fields[], words: string[]): CorpusStats & { df: Record<string, number> } {
  const tokens: Record<FieldName, number> = { title: 0, headings: 0, body: 0 };
  const stemSets = passages.map((passage) => {
    const all = new Set<string>();
    for (const field of FIELD_NAMES) {
      const stems = stemsOf(passage[field]);
      tokens[field] += stems.length;
      for (const stem of stems) all.add(stem);
    }
    return all;
  });
  const df = Object.fromEntries(words.map((word) => [word, stemSets.filter((set) => set.has(stemOf(word))).length]));
  return { passages: passages.length, tokens, df };
}
