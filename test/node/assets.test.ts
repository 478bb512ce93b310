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
    // One panel per language: panel.{language}.js?v=<hash of them all>.
    const version = /panel\.\$\{[a-z]+\.language\}\.js\?v=([0-9a-f]{12})/.exec(source)?.[1];
    expect(version).toBeTruthy();
    for (const language of ['en', 'pl', 'ar']) {
      const panel = await fetch(`${worker}/embed/panel.${language}.js?v=${version}`);
      expect(panel.status).toBe(200);
      expect(panel.headers.get('Cache-Control')).toContain('max-age=300');
    }
  });

  it('the demo page carries the snippet for the seeded channel', async () => {
    const html = await (await fetch(`${worker}/demo`)).text();
    expect(html).toContain('data-channel-id="ch_demo"');
    expect(html).toContain(`src="${worker}/embed/widget.js"`);
  });
});

describe('the seeded demo accounts', () => {
  it('the demo owner signs in and sees the demo channel; the expert is active', async () => {
    // @ts-expect-error: a plain ES module shared with the Node scripts.
    const { DEMO_TEST_PASSWORD } = await import('../../scripts/local-worker.mjs');
    const signIn = (email: string) =>
      fetch(`${worker}/auth/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: worker },
        body: new URLSearchParams({ email, password: DEMO_TEST_PASSWORD }).toString(),
      });
    const owner = await signIn('owner@demo.test');
    expect(owner.status).toBe(303);
    expect(owner.headers.get('Location')).toBe('/integrations');
    const cookie = owner.headers.get('Set-Cookie')!.split(';')[0]!;
    const page = await (await fetch(`${worker}/integrations`, { headers: { Cookie: cookie } })).text();
    expect(page).toContain('ch_demo');
    const expert = await signIn('expert@demo.test');
    // The seeded expert is active and scoped to the demo domain: it lands in the workbench.
    expect(expert.headers.get('Location')).toBe('/provider/workbench');
    const expertCookie = expert.headers.get('Set-Cookie')!.split(';')[0]!;
    const workbench = await (await fetch(`${worker}/provider/workbench`, { headers: { Cookie: expertCookie } })).text();
    expect(workbench).toContain('Leads in consultation');
    const profile = await (await fetch(`${worker}/provider/onboarding`, { headers: { Cookie: expertCookie } })).text();
    expect(profile).toContain('status-active');
  });
});
