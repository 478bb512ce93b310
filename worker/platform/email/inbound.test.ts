import { describe, expect, it } from 'vitest';
import { readInboundReply, replyKeyOf, stripQuotedHistory } from './inbound';
import { alertExcerpt } from './templates';
import { maskAddress, scrubAddresses } from './addresses';

const KEY = 'abcdefghijklmnopqrstuvwxyz234567abcdefghijklmnopqrst';

describe('reply addresses', () => {
  it('take our reply+key address only, whatever its case', () => {
    expect(replyKeyOf(`reply+${KEY}@reply.example.com`, 'reply.example.com')).toBe(KEY);
    expect(replyKeyOf(`REPLY+${KEY.toUpperCase()}@Reply.Example.com`, 'reply.example.com')).toBe(KEY);
    expect(replyKeyOf(`reply+${KEY}@elsewhere.com`, 'reply.example.com')).toBeUndefined();
    expect(replyKeyOf(`reply+${KEY.slice(1)}@reply.example.com`, 'reply.example.com')).toBeUndefined();
    expect(replyKeyOf('help@reply.example.com', 'reply.example.com')).toBeUndefined();
  });
});

describe('quoted history', () => {
  it('stops at the quote introductions of the common mail clients, and at the signature', () => {
    expect(stripQuotedHistory('Yes please.\n\nOn Mon, 23 Nov 2026, Dana <d@x.com> wrote:\n> Shall I call?')).toBe(
      'Yes please.',
    );
    expect(stripQuotedHistory('Yes.\r\nOn Mon, 23 Nov 2026 at 10:00, Dana Reyes\r\n<d@x.com> wrote:\r\n> Hi')).toBe(
      'Yes.',
    );
    expect(stripQuotedHistory('Thanks!\n-----Original Message-----\nFrom: Dana')).toBe('Thanks!');
    expect(stripQuotedHistory('Thanks!\n________________________________\nFrom: Dana\nSent: Monday')).toBe('Thanks!');
    expect(stripQuotedHistory('Merci\n\nLe lun. 23 nov. 2026, Dana a écrit :\n> Bonjour')).toBe('Merci');
    expect(stripQuotedHistory('Two lines\nof reply\n\n\n\n-- \nVera\nCEO')).toBe('Two lines\nof reply');
    expect(stripQuotedHistory('> only a quote')).toBe('');
  });

  it('reads the HTML when there is no text part, and cuts at 4,000 characters', async () => {
    const html = [
      'To: x@y.z',
      'Content-Type: text/html; charset=utf-8',
      '',
      '<div>Fine &amp; <b>thanks</b></div><blockquote>old stuff</blockquote>',
    ].join('\r\n');
    expect(await readInboundReply(html)).toEqual({ text: 'Fine & thanks', from: '' });
    const long = ['To: x@y.z', 'Content-Type: text/plain', '', 'a'.repeat(5000)].join('\r\n');
    expect(await readInboundReply(long)).toEqual({ text: 'a'.repeat(4000), from: '' });
  });
});

describe('what experts and logs see', () => {
  it('alert excerpts lose typed addresses and phone numbers, and stop at 300 characters', () => {
    expect(alertExcerpt('Mail me at jane.doe@example.com or call +1 (415) 555-0134 today')).toBe(
      'Mail me at [email removed] or call [phone removed] today',
    );
    expect(alertExcerpt('x'.repeat(400))).toHaveLength(300);
    expect(alertExcerpt(null)).toBe('');
  });

  it('addresses in SMTP errors are masked', () => {
    expect(maskAddress('jane.doe@example.com')).toBe('j***@e***.com');
    expect(scrubAddresses('550 5.1.1 <jane.doe@example.com>: unknown user')).toBe(
      '550 5.1.1 <j***@e***.com>: unknown user',
    );
  });
});
