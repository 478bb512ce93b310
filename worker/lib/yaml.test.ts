import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { toYaml } from './yaml';

const roundTrip = (value: unknown) => expect(parse(toYaml(value))).toEqual(JSON.parse(JSON.stringify(value)));

describe('toYaml', () => {
  it('writes what a YAML parser reads back as the same value', () => {
    roundTrip({
      openapi: '3.1.0',
      info: { title: 'Edge Execution Gateway', version: '1.2.3', description: 'Line one.\nLine two: with a colon.' },
      paths: { '/api/execute': { post: { tags: ['Gateway'], responses: { 200: { description: 'OK' } } } } },
      nested: [[1, 2], [], {}, [{ a: 1, b: [true, false, null] }], { c: 'd' }],
      tricky: [
        'yes',
        'No',
        'on',
        'null',
        '~',
        '',
        ' lead',
        'trail ',
        '#hash',
        'a #b',
        'a: b',
        '- dash',
        '123',
        '1e3',
        '0x1F',
        '@at',
        '`tick',
        "it's",
        '"q"',
        '{x}',
        '[y]',
        '*star',
        '&amp',
        '!bang',
        '|pipe',
        '>gt',
        '%p',
        'é ü 中',
      ],
      numbers: [0, -1, 3.5, 1e21],
      versions: ['3.1.0', '1.2', '2026-11-26', '1:20'],
      empty: { list: [], object: {}, string: '' },
    });
  });

  it('keeps plain what reads plainly', () => {
    expect(toYaml({ title: 'Edge Execution Gateway', path: '/api/execute' })).toBe(
      'title: Edge Execution Gateway\npath: /api/execute\n',
    );
  });
});
