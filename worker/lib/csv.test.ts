import { describe, expect, it } from 'vitest';
import { csvDocument, csvField, csvHeaders } from './csv';

describe('csv', () => {
  it('defuses every cell a spreadsheet would run as a formula', () => {
    for (const start of ['=', '+', '-', '@', '\t', '\r']) {
      expect(csvField(`${start}HYPERLINK("http://x.test","y")`).replace(/^"/, '')).toMatch(/^'/);
    }
    expect(csvField('=1+1')).toBe("'=1+1");
    expect(csvField('plain')).toBe('plain');
  });

  it('keeps numbers, quotes separators and line breaks, and leaves empty cells empty', () => {
    expect(csvField(-150)).toBe('-150');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField(null)).toBe('');
    expect(
      csvDocument(
        ['name', 'n'],
        [
          ['=cmd', 2],
          [null, -1],
        ],
      ),
    ).toBe("name,n\r\n'=cmd,2\r\n,-1\r\n");
  });

  it('answers with nosniff and a file name that cannot break its header', () => {
    const headers = csvHeaders('insights-"x"\r\n.csv');
    expect(headers['X-Content-Type-Options']).toBe('nosniff');
    expect(headers['Content-Disposition']).toBe('attachment; filename="insights-_x___.csv"');
  });
});
