import { describe, expect, it } from 'vitest';
import {
  ANSWER_CHARS,
  confidenceOf,
  coverage,
  extractiveAnswer,
  extractSentences,
  identifiersOf,
  rankedPassages,
  weightedStems,
} from './answer';
import { chunksOf, headingAnchor, readMarkdown, sentencesOf } from './text';
import { contentWords, matchQuery, stem } from './words';

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
      minConfidence: 0.1,
      language: 'en',
      from: (title) => `From ${title}:`,
    });
    expect(answer.answer).toMatch(/^From Refunds: /);
    expect(answer.answer!.length - 'From Refunds: '.length).toBeLessThanOrEqual(ANSWER_CHARS);
    expect(answer.answer).toContain('Refunds take five days.');
  });
  it('has no confidence without coverage, and declines below the threshold', () => {
    expect(confidenceOf('pineapple pizza', passages).confidence).toBe(0);
    const declined = extractiveAnswer('pineapple pizza', passages, {
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

  it('doubts a passage that names no amount when the question asks for one', () => {
    const withAmount = confidenceOf('How long does delivery take?', [passage('Delivery takes three days.')]);
    const without = confidenceOf('How long does delivery take?', [passage('Delivery is by courier.')]);
    expect(withAmount.confidence).toBeGreaterThan(without.confidence);
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
    const [first] = rankedPassages('What does the X-Request-Id header contain?', [
      passage('Every request carries headers that contain its id.'),
      passage('The X-Request-Id header contains the request’s id: req_ and 26 characters.'),
    ]);
    expect(first!.rank).toBe(1);
  });

  it('doubts a passage without an address when the question asks for a URL', () => {
    const question = 'What is the URL of the server?';
    const withUrl = confidenceOf(question, [passage('The URL of the server is https://example.com/mcp.')]);
    const without = confidenceOf(question, [passage('Give the client the URL of the server.')]);
    expect(withUrl.confidence).toBeGreaterThan(without.confidence);
  });

  it('takes a sentence that says it before a table row with the same words', () => {
    const [first] = rankedPassages('Which scope lets robots answer?', [
      passage('agents:invoke · Robots answer · scope'),
      passage('The agents:invoke scope lets robots answer first.'),
    ]);
    expect(first!.rank).toBe(1);
  });

  it('doubts a question about a name the knowledge never mentions', () => {
    const rarity = { passages: 50, of: { export: 4, conversations: 5, salesforce: 0 } };
    const body = [passage('Export your conversations as NDJSON.')];
    // The same words, but capitalised it is a name: something the knowledge is not about.
    const named = confidenceOf('Can I export my conversations to Salesforce?', body, rarity);
    const plain = confidenceOf('Can I export my conversations to salesforce?', body, rarity);
    expect(named.confidence).toBeLessThan(plain.confidence);
  });

  it('doubts a passage silent on one of a short question’s words', () => {
    const question = 'What are your opening hours?';
    const both = confidenceOf(question, [passage('We are open from nine; opening hours change on holidays.')]);
    const one = confidenceOf(question, [passage('Opening the widget from your code is one call.', 'Opening it')]);
    expect(one.confidence).toBeLessThan(both.confidence * 0.8);
  });

  it('leaves out sections that only point elsewhere', () => {
    const read = readMarkdown(
      '# Guide\n\nIntro words.\n\n## Next\n\n- [Webhooks](/docs/webhooks): how to verify them.',
      null,
    );
    expect(chunksOf(read, 'https://x.test/docs').map((chunk) => chunk.headings)).toEqual(['Guide']);
  });
});
