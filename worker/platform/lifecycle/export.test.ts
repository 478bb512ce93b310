import { describe, expect, it } from 'vitest';
import { gunzipNdjson } from './archive';
import { type ExportBucket, writeExport } from './export';

/** A bucket that keeps what it is given: single puts, and multipart uploads part by part. */
function recordingBucket(options: { failPart?: number } = {}) {
  const puts: Uint8Array[] = [];
  const uploads: { parts: Uint8Array[]; completed: number[] | null; aborted: boolean }[] = [];
  const bucket: ExportBucket = {
    put: async (_key, value) => {
      puts.push(value);
    },
    createMultipartUpload: async () => {
      const upload = { parts: [] as Uint8Array[], completed: null as number[] | null, aborted: false };
      uploads.push(upload);
      return {
        uploadPart: async (partNumber, value) => {
          if (partNumber === options.failPart) throw new Error('R2 refused the part');
          upload.parts[partNumber - 1] = value;
          return { partNumber, etag: `etag-${partNumber}` };
        },
        complete: async (parts) => {
          upload.completed = parts.map((part) => part.partNumber);
        },
        abort: async () => {
          upload.aborted = true;
        },
      };
    },
  };
  return { bucket, puts, uploads };
}

const joined = (parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
};

/** Pages of rows whose text hardly compresses (a linear congruential sequence), counting pulls. */
function pagesOf(count: number, rowsPerPage = 1_000) {
  let pulled = 0;
  let seed = 7;
  const noise = () =>
    Array.from({ length: 24 }, () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed.toString(36);
    }).join('');
  async function* pages() {
    for (let page = 0; page < count; page++) {
      pulled++;
      yield Array.from({ length: rowsPerPage }, (_, row) => ({
        table: 'messages',
        id: `msg_${page}_${row}`,
        text: noise(),
      }));
    }
  }
  return { pages: pages(), pulled: () => pulled };
}

describe('writing an export', () => {
  it('a small export is one object that reads back as the same lines, page after page', async () => {
    const { bucket, puts, uploads } = recordingBucket();
    const source = pagesOf(5, 200);
    const written = await writeExport(source.pages, bucket, 'exports/ws/pvr.ndjson.gz');
    expect(source.pulled()).toBe(5);
    expect(uploads).toEqual([]);
    expect(puts).toHaveLength(1);
    expect(written).toEqual({ rows: 1_000, bytes: puts[0]!.byteLength, parts: 1 });
    const lines = await gunzipNdjson(puts[0]!);
    expect(lines).toHaveLength(1_000);
    expect(lines[0]).toMatchObject({ table: 'messages', id: 'msg_0_0' });
    expect(lines.at(-1)?.id).toBe('msg_4_199');
  });

  it('a large one goes up in equal parts and a smaller last one, which join into the whole', async () => {
    const { bucket, puts, uploads } = recordingBucket();
    const partBytes = 64 * 1024;
    const written = await writeExport(pagesOf(6).pages, bucket, 'exports/ws/pvr.ndjson.gz', partBytes);
    expect(puts).toEqual([]);
    expect(uploads).toHaveLength(1);
    const { parts, completed, aborted } = uploads[0]!;
    expect(parts.length).toBeGreaterThan(3);
    expect(written).toEqual({ rows: 6_000, bytes: joined(parts).byteLength, parts: parts.length });
    expect(completed).toEqual(parts.map((_, index) => index + 1));
    expect(aborted).toBe(false);
    // As R2 requires: every part but the last of one size, the last no larger and not empty.
    expect(new Set(parts.slice(0, -1).map((part) => part.byteLength))).toEqual(new Set([partBytes]));
    expect(parts.at(-1)!.byteLength).toBeGreaterThan(0);
    expect(parts.at(-1)!.byteLength).toBeLessThanOrEqual(partBytes);
    const lines = await gunzipNdjson(joined(parts));
    expect(lines).toHaveLength(6_000);
    expect(lines.map((line) => line.id).slice(998, 1_001)).toEqual(['msg_0_998', 'msg_0_999', 'msg_1_0']);
  });

  it('an empty export is an empty object', async () => {
    const { bucket, puts } = recordingBucket();
    async function* none() {}
    expect(await writeExport(none(), bucket, 'k')).toMatchObject({ rows: 0, parts: 1 });
    expect(await gunzipNdjson(puts[0]!)).toEqual([]);
  });

  it('a failing read or a refused part fails the export and abandons its upload', async () => {
    const reading = recordingBucket();
    const source = pagesOf(6);
    async function* brokenAfterTwo() {
      let page = 0;
      for await (const rows of source.pages) {
        if (page++ === 2) throw new Error('D1 went away');
        yield rows;
      }
    }
    await expect(writeExport(brokenAfterTwo(), reading.bucket, 'k', 16 * 1024)).rejects.toThrow('D1 went away');
    expect(reading.uploads[0]).toMatchObject({ completed: null, aborted: true });
    expect(reading.puts).toEqual([]);

    const refusing = recordingBucket({ failPart: 2 });
    await expect(writeExport(pagesOf(6).pages, refusing.bucket, 'k', 16 * 1024)).rejects.toThrow('R2 refused the part');
    expect(refusing.uploads[0]).toMatchObject({ completed: null, aborted: true });
  });
});
