import { describe, expect, it } from 'vitest';
import { gunzipNdjson } from './archive';
import { exportObject } from './export';

describe('the export object', () => {
  it('compresses page after page as they come, and reads back as the same lines in order', async () => {
    let pulled = 0;
    async function* pages() {
      for (let page = 0; page < 5; page++) {
        pulled++;
        yield Array.from({ length: 1_000 }, (_, row) => ({
          table: 'messages',
          id: `msg_${page}_${row}`,
          text: 'x'.repeat(40),
        }));
      }
    }
    const { body, rows } = await exportObject(pages());
    expect(pulled).toBe(5);
    expect(rows).toBe(5_000);
    const lines = await gunzipNdjson(body);
    expect(lines).toHaveLength(5_000);
    expect(lines[0]).toEqual({ table: 'messages', id: 'msg_0_0', text: 'x'.repeat(40) });
    expect(lines.at(-1)?.id).toBe('msg_4_999');
    // Repetitive text compresses: the object is a small part of the text it holds.
    expect(body.byteLength).toBeLessThan(5_000 * 60 * 0.2);
  });

  it('an empty export is an empty object, and a failing read fails the export', async () => {
    async function* none() {}
    expect(await gunzipNdjson((await exportObject(none())).body)).toEqual([]);
    async function* broken() {
      yield [{ table: 'channels', id: 'ch_1' }];
      throw new Error('D1 went away');
    }
    await expect(exportObject(broken())).rejects.toThrow('D1 went away');
  });
});
