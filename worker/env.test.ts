import { describe, expect, it } from 'vitest';
import { emailLinkOrigin } from './env';

describe('the links of emails no request caused', () => {
  it('use the local origin of npm run dev, only in local development and only on loopback', async () => {
    const settings = (extra: Record<string, unknown>) =>
      ({ ALLOW_LOOPBACK_EGRESS: true, ...extra }) as unknown as Parameters<typeof emailLinkOrigin>[0];
    expect(emailLinkOrigin(settings({ LOCAL_ORIGIN: 'http://127.0.0.1:9000' }))).toBe('http://127.0.0.1:9000');
    expect(emailLinkOrigin(settings({}))).toBe('');
    expect(emailLinkOrigin(settings({ LOCAL_ORIGIN: 'http://evil.example.com' }))).toBe('');
    expect(emailLinkOrigin(settings({ ALLOW_LOOPBACK_EGRESS: false, LOCAL_ORIGIN: 'http://127.0.0.1:9000' }))).toBe('');
    expect(
      emailLinkOrigin(settings({ LOCAL_ORIGIN: 'http://127.0.0.1:9000', CONSOLE_URL: 'https://console.example.com' })),
    ).toBe('https://console.example.com');
  });
});
