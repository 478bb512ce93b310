import { describe, expect, it } from 'vitest';
import { checkEgressUrl, normaliseHostname, readBoundedBody } from './egress';
import { clock } from './clock';

const production = { allowLoopback: false };

/**
 * A body of `total` bytes in 64 KB chunks, made only as they are read; it counts what was pulled and whether it was
 * cancelled.
 */
function lazyBody(total: number, chunk = 64 * 1024) {
  const seen = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (seen.pulled >= total) return controller.close();
      const size = Math.min(chunk, total - seen.pulled);
      seen.pulled += size;
      controller.enqueue(new Uint8Array(size).fill(0x20));
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { stream, seen };
}

describe('host normalisation', () => {
  it('removes case, every trailing dot and empty labels before matching', () => {
    expect(normaliseHostname('LocalHost..')).toBe('localhost');
    expect(normaliseHostname('printer..local.')).toBe('printer.local');
    expect(normaliseHostname('Agent.Example.COM.')).toBe('agent.example.com');
  });

  it('connects to the normalised name it checked', () => {
    const check = checkEgressUrl('https://Agent.Example.com../a2a', production);
    expect(check.ok && check.url.toString()).toBe('https://agent.example.com/a2a');
  });

  it('refuses names of this machine by convention', () => {
    for (const host of [
      'localhost..',
      'localhost.localdomain',
      'ip6-localhost',
      'ip6-loopback',
      'LOCALHOST.LOCALDOMAIN.',
    ]) {
      expect(checkEgressUrl(`https://${host}/x`, production), host).toMatchObject({ ok: false, reason: 'localhost' });
    }
    expect(checkEgressUrl('https://metadata.google.internal../x', production)).toMatchObject({
      ok: false,
      reason: 'internal_name',
    });
  });

  it('admits loopback only in its two development spellings, and only with the development policy', () => {
    expect(checkEgressUrl('http://127.0.0.1:8788/x', { allowLoopback: true }).ok).toBe(true);
    expect(checkEgressUrl('http://localhost.:8788/x', { allowLoopback: true }).ok).toBe(false);
    expect(checkEgressUrl('http://127.0.0.1:8788/x', production).ok).toBe(false);
  });
});

describe('reading a remote body', () => {
  it('stops a 16 MB body without a declared length at the limit and cancels the connection', async () => {
    const { stream, seen } = lazyBody(16 * 1024 * 1024);
    const read = await readBoundedBody(new Response(stream), 256 * 1024, clock.now() + 5_000);
    expect(read).toEqual({ ok: false, reason: 'too_large' });
    expect(seen.pulled).toBeLessThanOrEqual(256 * 1024 + 2 * 64 * 1024);
    expect(seen.cancelled).toBe(true);
  });

  it('refuses a declared length over the limit without reading', async () => {
    const { stream, seen } = lazyBody(1024 * 1024);
    const read = await readBoundedBody(
      new Response(stream, { headers: { 'Content-Length': String(1024 * 1024) } }),
      256 * 1024,
      clock.now() + 5_000,
    );
    expect(read).toEqual({ ok: false, reason: 'too_large' });
    expect(seen.pulled).toBeLessThanOrEqual(64 * 1024 * 2);
  });

  it('stops at the deadline when the body trickles, and cancels it', async () => {
    let cancelled = false;
    let timer: ReturnType<typeof setInterval> | null = null;
    const trickle = new ReadableStream<Uint8Array>({
      start(controller) {
        timer = setInterval(() => controller.enqueue(new Uint8Array([0x7b])), 50);
      },
      cancel() {
        cancelled = true;
        if (timer) clearInterval(timer);
      },
    });
    const started = performance.now();
    const read = await readBoundedBody(new Response(trickle), 1024, clock.now() + 300);
    expect(read).toEqual({ ok: false, reason: 'timeout' });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(cancelled).toBe(true);
  });

  it('reads a body within the limit whole', async () => {
    expect(await readBoundedBody(new Response('{"a":1}'), 1024, clock.now() + 1_000)).toEqual({
      ok: true,
      text: '{"a":1}',
    });
  });
});
