import { describe, expect, it } from 'vitest';
import { parsePolicies, policiesAllow, sourceAllows } from './csp';

const page = new URL('https://shop.example.com');
const gateway = 'https://gw.example.net';
const allows = (policy: string, kind: 'script' | 'connect', url: string) =>
  policiesAllow(parsePolicies(policy), kind, new URL(url), page).allowed;

describe('CSP as the browser enforces it, for the widget’s loads', () => {
  it('falls back from connect-src and script-src to default-src, and allows when nothing governs', () => {
    expect(allows("default-src 'self'", 'connect', `${gateway}/api/x`)).toBe(false);
    expect(allows(`default-src 'self' ${gateway}`, 'script', `${gateway}/embed/widget.js`)).toBe(true);
    expect(allows("img-src 'self'", 'connect', `${gateway}/api/x`)).toBe(true);
    expect(allows(`script-src 'none'; script-src-elem ${gateway}`, 'script', `${gateway}/embed/widget.js`)).toBe(true);
  });

  it('an https origin does not cover its wss twin; https: and * do; http://host is upgraded', () => {
    expect(allows(`connect-src ${gateway}`, 'connect', 'wss://gw.example.net/live/x')).toBe(false);
    expect(allows(`connect-src ${gateway} wss://gw.example.net`, 'connect', 'wss://gw.example.net/live/x')).toBe(true);
    expect(allows('connect-src https:', 'connect', 'wss://gw.example.net/live/x')).toBe(true);
    expect(allows('connect-src *', 'connect', 'wss://gw.example.net/live/x')).toBe(true);
    expect(allows('connect-src http://gw.example.net', 'connect', `${gateway}/api`)).toBe(true);
    expect(allows('connect-src *.example.net', 'connect', 'wss://gw.example.net/live/x')).toBe(true);
    expect(allows('connect-src *.example.net', 'connect', 'wss://example.net/live/x')).toBe(false);
  });

  it('every policy must allow: a second header or a meta tag can block what the first allows', () => {
    expect(allows(`connect-src ${gateway}, connect-src 'self'`, 'connect', `${gateway}/api/x`)).toBe(false);
  });

  it("'self', ports, 'none' and keywords", () => {
    expect(sourceAllows("'self'", new URL('wss://shop.example.com/ws'), page)).toBe(true);
    expect(sourceAllows("'self'", new URL('https://other.example.com'), page)).toBe(false);
    expect(sourceAllows('gw.example.net:8443', new URL('https://gw.example.net:8443/x'), page)).toBe(true);
    expect(sourceAllows('gw.example.net', new URL('https://gw.example.net:8443/x'), page)).toBe(false);
    expect(sourceAllows("'none'", new URL(gateway), page)).toBe(false);
    expect(sourceAllows("'unsafe-inline'", new URL(gateway), page)).toBe(false);
    expect(sourceAllows("'nonce-abc'", new URL(gateway), page)).toBe(false);
  });
});

describe("'self' on a page served from a port", () => {
  it('covers the socket twin on the same port only', () => {
    const local = new URL('http://127.0.0.1:4000');
    expect(sourceAllows("'self'", new URL('ws://127.0.0.1:4000/live'), local)).toBe(true);
    expect(sourceAllows("'self'", new URL('ws://127.0.0.1:8787/live'), local)).toBe(false);
  });
});
