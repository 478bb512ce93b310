/**
 * Cron triggers under the local Worker, as `npm run dev` runs it (--test-scheduled): the README's
 * command fires one by hand, and the handler runs (wrangler's own /cdn-cgi route would answer 500).
 */
import { describe, expect, inject, it } from 'vitest';

const worker = inject('workerUrl');

describe('cron triggers locally', () => {
  it('the README’s command fires each cron of wrangler.toml, and the handler runs', async () => {
    for (const cron of ['* * * * *', '*/5 * * * *']) {
      const response = await fetch(`${worker}/__scheduled?cron=${encodeURIComponent(cron)}`);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('Ran scheduled event');
    }
  });
});
