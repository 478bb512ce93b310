import { describe, expect, inject, it } from 'vitest';

const worker = inject('workerUrl');

describe('widget assets served by the Worker', () => {
  it('serves the loader and the panel with short caching, the panel versioned by the loader', async () => {
    const loader = await fetch(`${worker}/embed/widget.js`);
    expect(loader.status).toBe(200);
    expect(loader.headers.get('Content-Type')).toContain('javascript');
    expect(loader.headers.get('Cache-Control')).toContain('max-age=300');
    expect(loader.headers.get('X-Content-Type-Options')).toBe('nosniff');
    const source = await loader.text();
    const version = /panel\.js\?v=([0-9a-f]{12})/.exec(source)?.[1];
    expect(version).toBeTruthy();
    const panel = await fetch(`${worker}/embed/panel.js?v=${version}`);
    expect(panel.status).toBe(200);
    expect(panel.headers.get('Cache-Control')).toContain('max-age=300');
  });

  it('the demo page carries the snippet for the seeded channel', async () => {
    const html = await (await fetch(`${worker}/demo`)).text();
    expect(html).toContain('data-channel-id="ch_demo"');
    expect(html).toContain(`src="${worker}/embed/widget.js"`);
  });
});
