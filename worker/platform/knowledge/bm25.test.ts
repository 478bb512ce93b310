import { describe, expect, it } from 'vitest';
import { bm25f, idf, statsOfPassages } from './bm25';
import { rankedPassages, termsOf } from './answer';

// Three passages, and BM25F for "refund card" worked out by hand from the definition (bm25.ts):
// idf = ln(1 + (N - n + 0.5) / (n + 0.5)); per field, tf · weight / (1 - b + b · length / average);
// per term, idf · weighted / (k1 + weighted); k1 1.2, weights 2 / 1.5 / 1, b 0.3 / 0.3 / 0.75.
const passages = [
  { title: 'Refunds', headings: '', body: 'Refunds take five days. A refund goes to the card.' },
  { title: 'Payments', headings: 'Payments › Cards', body: 'We take card payments.' },
  { title: 'Shipping', headings: '', body: 'Parcels ship in two days.' },
];
// Words per field: titles 1 + 1 + 1, headings 0 + 2 + 0, bodies 10 + 4 + 5.
const average = { title: 3 / 3, headings: 2 / 3, body: 19 / 3 };
const idfRefund = Math.log(1 + (3 - 1 + 0.5) / (1 + 0.5)); // in the first passage only
const idfCard = Math.log(1 + (3 - 2 + 0.5) / (2 + 0.5)); // in the first two
const saturate = (weighted: number, termIdf: number) => (termIdf * weighted) / (1.2 + weighted);

describe('BM25F with the workspace’s own statistics', () => {
  const stats = statsOfPassages(passages, ['refund', 'card']);

  it('counts the passages, the words of each field and the passages of each word', () => {
    expect(stats).toEqual({ passages: 3, tokens: { title: 3, headings: 2, body: 19 }, df: { refund: 1, card: 2 } });
    expect(idf(1, 3)).toBeCloseTo(idfRefund, 12);
  });

  it('scores each passage as worked out by hand', () => {
    const terms = termsOf('Refund to my card?', { ...stats, df: { refund: 1, card: 2 } });
    expect(terms).toEqual([
      { stem: 'refund', idf: idfRefund },
      { stem: 'card', idf: idfCard },
    ]);
    // The first: "refund" once in its title (1 word) and twice in its body (10 words); "card" once in its body.
    const body1 = 0.25 + (0.75 * 10) / average.body;
    const title1 = 0.7 + (0.3 * 1) / average.title;
    const first = saturate((2 * 1) / title1 + 2 / body1, idfRefund) + saturate(1 / body1, idfCard);
    // The second: "card" once in its heading path (2 words) and once in its body (4 words).
    const headings2 = 0.7 + (0.3 * 2) / average.headings;
    const body2 = 0.25 + (0.75 * 4) / average.body;
    const second = saturate((1.5 * 1) / headings2 + 1 / body2, idfCard);
    expect(bm25f(terms, passages[0]!, stats).score).toBeCloseTo(first, 12);
    expect(bm25f(terms, passages[1]!, stats).score).toBeCloseTo(second, 12);
    expect(bm25f(terms, passages[2]!, stats).score).toBe(0);
    expect(first).toBeCloseTo(0.8974, 3);
    expect(second).toBeCloseTo(0.3097, 3);
  });

  it('ranks by that score, a word in every passage saying little', () => {
    const ranked = rankedPassages(
      'Refund to my card?',
      passages.map((passage) => ({ ...passage, sourceId: 'ks_1', url: null })),
      stats,
    );
    expect(ranked.map((entry) => entry.rank)).toEqual([0, 1, 2]);
    expect(idf(3, 3)).toBeLessThan(idf(1, 3));
    expect(idf(0, 3)).toBeGreaterThan(idf(1, 3));
  });
});
