import { afterEach, describe, expect, it, vi } from 'vitest';
// @ts-expect-error: a plain ES module of the Node scripts.
import { cronDue, startCronTicker, wranglerCrons } from '../../scripts/cron.mjs';

const at = (iso: string) => new Date(iso);

describe('the cron ticker of npm run dev', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('reads the crons of wrangler.toml', () => {
    expect(wranglerCrons()).toEqual(['* * * * *', '*/5 * * * *']);
    expect(wranglerCrons('[triggers]\ncrons = ["0 * * * *"]\n')).toEqual(['0 * * * *']);
    expect(wranglerCrons('name = "x"\n')).toEqual([]);
  });

  it('knows when a cron is due (UTC): every minute, steps, lists, ranges, days', () => {
    expect(cronDue('* * * * *', at('2026-11-23T10:07:00Z'))).toBe(true);
    expect(cronDue('*/5 * * * *', at('2026-11-23T10:10:00Z'))).toBe(true);
    expect(cronDue('*/5 * * * *', at('2026-11-23T10:07:00Z'))).toBe(false);
    expect(cronDue('0 9 * * 1-5', at('2026-11-23T09:00:00Z'))).toBe(true); // a Monday
    expect(cronDue('0 9 * * 1-5', at('2026-11-22T09:00:00Z'))).toBe(false); // a Sunday
    expect(cronDue('15,45 * * * *', at('2026-11-23T10:45:00Z'))).toBe(true);
    expect(cronDue('10-30/10 * * * *', at('2026-11-23T10:20:00Z'))).toBe(true);
    expect(cronDue('10-30/10 * * * *', at('2026-11-23T10:25:00Z'))).toBe(false);
    expect(() => cronDue('* * *', at('2026-11-23T10:00:00Z'))).toThrow(/five-field/);
    // A day of the month or of the week: either fires (standard cron), not only both.
    expect(cronDue('0 9 1 * 1', at('2026-11-23T09:00:00Z'))).toBe(true); // a Monday, not the 1st
    expect(cronDue('0 9 1 * 1', at('2026-12-01T09:00:00Z'))).toBe(true); // the 1st, a Tuesday
    expect(cronDue('0 9 1 * 1', at('2026-12-02T09:00:00Z'))).toBe(false);
  });

  it('fires each due cron at the start of a minute through /__scheduled', async () => {
    vi.useFakeTimers();
    vi.setSystemTime(at('2026-11-23T10:04:30Z'));
    const fetched: string[] = [];
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (url) => {
      fetched.push(String(url));
      return new Response('Ran scheduled event');
    });
    const lines: string[] = [];
    const stop = startCronTicker('http://127.0.0.1:8787', ['* * * * *', '*/5 * * * *'], (line: string) =>
      lines.push(line),
    );
    await vi.advanceTimersByTimeAsync(31_000); // 10:05:00
    expect(fetched).toEqual([
      'http://127.0.0.1:8787/__scheduled?cron=*%20*%20*%20*%20*',
      'http://127.0.0.1:8787/__scheduled?cron=*%2F5%20*%20*%20*%20*',
    ]);
    await vi.advanceTimersByTimeAsync(60_000); // 10:06:00: the every-minute cron only
    expect(fetched).toHaveLength(3);
    expect(lines[0]).toBe('[cron] * * * * * → 200 Ran scheduled event');
    stop();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(fetched).toHaveLength(3);
  });
});

describe('the wrangler arguments of npm run dev', () => {
  it('gives our defaults only where the user gave none: every flag passed through wins', async () => {
    // @ts-expect-error: a plain ES module of the Node scripts.
    const { devArguments } = await import('../../scripts/dev-args.mjs');
    // Served on loopback, called by its name: passkeys refuse an IP address.
    const local = ['--var', 'LOCAL_ORIGIN:http://localhost:8787'];
    expect(devArguments([])).toEqual({
      args: ['dev', '--ip', '127.0.0.1', '--port', '8787', '--test-scheduled', ...local],
      ip: '127.0.0.1',
      port: '8787',
      base: 'http://localhost:8787',
    });
    const everyInterface = devArguments(['--ip', '0.0.0.0']);
    expect(everyInterface.args).toEqual(['dev', '--port', '8787', '--test-scheduled', ...local, '--ip', '0.0.0.0']);
    expect(everyInterface.args.filter((arg: string) => arg === '--ip')).toHaveLength(1);
    expect(everyInterface.base).toBe('http://localhost:8787');
    expect(devArguments(['--port=9000', '--test-scheduled']).args).toEqual([
      'dev',
      '--ip',
      '127.0.0.1',
      '--var',
      'LOCAL_ORIGIN:http://localhost:9000',
      '--port=9000',
      '--test-scheduled',
    ]);
    expect(devArguments(['--port=9000']).base).toBe('http://localhost:9000');
    // Another address is called as it is.
    expect(devArguments(['--ip', '192.168.1.20']).base).toBe('http://192.168.1.20:8787');
  });
});
