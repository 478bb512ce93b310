import { describe, expect, it } from 'vitest';
import {
  ANSWER_CHARS,
  confidenceOf,
  DEFAULT_MIN_CONFIDENCE,
  extractiveAnswer,
  extractSentences,
  identifiersOf,
  rankedPassages,
} from './answer';
import { statsOfPassages } from './bm25';
import { coverage, weightedStems } from './coverage';
import { chunksOf, headingAnchor, readMarkdown, sentencesOf } from './text';
import { contentWords, guessLanguage, matchQuery, stem } from './words';

type Fixture = Parameters<typeof confidenceOf>[1];
/** A workspace of these passages, as the index counts it for the question. */
const statsFor = (question: string, passages: Fixture) => statsOfPassages(passages, contentWords(question));
const confidenceIn = (question: string, passages: Fixture) =>
  confidenceOf(question, passages, statsFor(question, passages));
const rankedIn = (question: string, passages: Fixture) =>
  rankedPassages(question, passages, statsFor(question, passages));

describe('the words of a question', () => {
  it('never passes FTS5 syntax through: every word is quoted, operators and columns are words or gone', () => {
    expect(matchQuery('title:refund* NEAR("money" back) ^now -x OR')).toBe(
      '"title" OR "refund" OR "near" OR "money" OR "back" OR "now"',
    );
    expect(matchQuery('"; DROP TABLE x; --')).toBe('"drop" OR "table"');
    expect(matchQuery('?!')).toBeNull();
    expect(
      contentWords(`${'word '.repeat(100)}${Array.from({ length: 40 }, (_, i) => `w${i}x`).join(' ')}`),
    ).toHaveLength(24);
  });

  it('tells the language a source is written in by its commonest words, or says it cannot', () => {
    expect(guessLanguage('You can return any item within 30 days. Print the label from your order page.')).toBe('en');
    expect(
      guessLanguage(
        'Sie können jeden Artikel innerhalb von 30 Tagen zurückgeben, und die Rücksendung ist für Sie ' +
          'kostenlos, auch nicht mit dem Etikett.',
      ),
    ).toBe('de');
    expect(
      guessLanguage(
        'Vous pouvez retourner un article dans les 30 jours et le remboursement est fait sur la carte pour vous.',
      ),
    ).toBe('fr');
    expect(guessLanguage('API_KEY=xyz; npm run dev')).toBeNull();
  });

  it('folds accents and case, and stems light English endings', () => {
    expect(contentWords('Wie öffne ich die Rückgabe?')).toEqual(['offne', 'ruckgabe']);
    expect(stem('verifies')).toBe('verify');
    expect(stem('webhooks')).toBe('webhook');
    expect(stem('opening')).toBe('opening');
  });
});

describe('documents into chunks', () => {
  it('keeps the heading path and the anchor of each section', () => {
    const chunks = chunksOf(
      readMarkdown('# Guide\n\nIntro.\n\n## Set up `the` app\n\nInstall it.', null),
      'https://x.test/g',
    );
    expect(chunks).toEqual([
      { title: 'Guide', headings: 'Guide', body: 'Intro.', url: 'https://x.test/g#guide' },
      {
        title: 'Guide',
        headings: 'Guide › Set up the app',
        body: 'Install it.',
        url: 'https://x.test/g#set-up-the-app',
      },
    ]);
    expect(headingAnchor('Verify a webhook’s signature!')).toBe('verify-a-webhooks-signature');
  });
});

describe('the extractive answer', () => {
  const passages = [
    {
      sourceId: 'ks_1',
      title: 'Refunds',
      headings: '',
      body: `${'Filler words here. '.repeat(60)}Refunds take five days.`,
      url: null,
    },
  ];
  it('stays within 600 characters and leads with where it comes from', () => {
    const answer = extractiveAnswer('How long do refunds take?', passages, {
      stats: statsFor('How long do refunds take?', passages),
      minConfidence: 0.1,
      language: 'en',
      from: (title) => `From ${title}:`,
    });
    expect(answer.answer).toMatch(/^From Refunds: /);
    expect(answer.answer!.length - 'From Refunds: '.length).toBeLessThanOrEqual(ANSWER_CHARS);
    expect(answer.answer).toContain('Refunds take five days.');
  });
  it('has no confidence without coverage, and declines below the threshold', () => {
    expect(confidenceIn('pineapple pizza', passages).confidence).toBe(0);
    const declined = extractiveAnswer('pineapple pizza', passages, {
      stats: statsFor('pineapple pizza', passages),
      minConfidence: 0.5,
      language: 'en',
      from: (t) => t,
    });
    expect(declined).toMatchObject({ answer: null, declined: 'no_match' });
  });
});

describe('reading and weighing for a calibrated answer', () => {
  const passage = (body: string, headings = '') => ({ sourceId: 'ks_1', title: 'Help', headings, body, url: null });

  it('keeps a period inside a word in its sentence, and a table row as one line', () => {
    expect(sentencesOf('The loader is under 1.5 KB. It calls 127.0.0.1 first! Done')).toEqual([
      'The loader is under 1.5 KB.',
      'It calls 127.0.0.1 first!',
      'Done',
    ]);
    const read = readMarkdown('# T\n\n| Meter | Unit |\n|---|---|\n| `leads` | lead |\n\nA wrapped\nparagraph.', null);
    expect(read.sections[0]!.text.split('\n').filter(Boolean)).toEqual([
      'Meter · Unit',
      'leads · lead',
      'A wrapped paragraph.',
    ]);
  });

  it('counts a rare word more than a common one, and a word inside an identifier for less', () => {
    const rarity = { passages: 100, of: { refund: 2, order: 90 } };
    const [refund, order] = weightedStems('refund order', rarity);
    expect(refund!.weight).toBeGreaterThan(order!.weight);
    const words = weightedStems('opening hours');
    expect(coverage(words, 'We are opening at nine for two hours.')).toBe(1);
    expect(coverage(words, 'Claims stay open for 24 hours.')).toBeLessThan(0.6);
    expect(coverage(words, 'See max_opening_hours.')).toBeLessThan(0.6);
  });

  it('answers a table question with the rows under its header', () => {
    const body = 'Meter · Counts\nexecutions · every execution\nleads · every lead\nA contract includes meters.';
    expect(extractSentences('Which meters can a contract include?', body)).toContain('leads · every lead');
  });

  it('prefers the passage that names the identifier the question names', () => {
    expect(identifiersOf('What does the X-Request-Id header contain? And quota_exceeded.')).toEqual([
      'x-request-id',
      'quota_exceeded',
    ]);
    const [first] = rankedIn('What does the X-Request-Id header contain?', [
      passage('Every request carries headers that contain its id.'),
      passage('The X-Request-Id header contains the request’s id: req_ and 26 characters.'),
    ]);
    expect(first!.rank).toBe(1);
  });

  it('is less sure of a passage whose sentences leave out one of a short question’s words', () => {
    const question = 'What are your opening hours?';
    const others = [passage('Refunds take five days.'), passage('Claims lapse after a day.')];
    const both = confidenceIn(question, [passage('Our opening hours are nine to five on weekdays.'), ...others]);
    const one = confidenceIn(question, [passage('Claims stay open for 24 hours after a claim.'), ...others]);
    expect(one.confidence).toBeLessThan(both.confidence);
  });

  it('answers a short question a passage states in other words, and declines one about what none mentions', () => {
    const center = [
      passage('We take card payments and bank transfers.', 'Paying'),
      passage('Parcels ship within two days of the order.', 'Shipping'),
      passage('Returns are free within thirty days.', 'Returns'),
      passage('Our support team answers by email.', 'Support'),
    ];
    const card = extractiveAnswer('Can I pay by card?', center, {
      stats: statsFor('Can I pay by card?', center),
      minConfidence: DEFAULT_MIN_CONFIDENCE,
      language: 'en',
      from: (title) => `From ${title}:`,
    });
    expect(card.answer).toContain('We take card payments');
    // One rare word of theirs ("colour") does not make a question about what they never mention theirs.
    center.push(passage('The widget takes your brand colour and your logo.', 'Branding'));
    for (const question of ['Can I pay with PayPal?', 'Do you sell gift vouchers?', 'What colour is the office cat?'])
      expect(
        extractiveAnswer(question, center, {
          stats: statsFor(question, center),
          minConfidence: DEFAULT_MIN_CONFIDENCE,
          language: 'en',
          from: (title) => title,
        }).answer,
      ).toBeNull();
  });

  it('leaves out sections that only point elsewhere', () => {
    const read = readMarkdown(
      '# Guide\n\nIntro words.\n\n## Next\n\n- [Webhooks](/docs/webhooks): how to verify them.',
      null,
    );
    expect(chunksOf(read, 'https://x.test/docs').map((chunk) => chunk.headings)).toEqual(['Guide']);
  });
});
