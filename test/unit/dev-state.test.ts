/**
 * `npm run dev` over a local database (scripts/dev-state.mjs, scripts/docs-knowledge.mjs): a second
 * run on the same state stops, naming the first; one whose process died claims nothing; helpers'
 * ports come from the environment before .dev.vars; the docs the seed indexes are recognised
 * whatever local address added them, and replaced, never doubled.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: plain ES modules of the Node scripts.
import { claimState, helperPort } from '../../scripts/dev-state.mjs';
// @ts-expect-error: plain ES modules of the Node scripts.
import { indexDocsAsKnowledge } from '../../scripts/docs-knowledge.mjs';

const dirs: string[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('one npm run dev per local database', () => {
  it('a second run on the same state stops, naming the first; a dead one claims nothing', () => {
    const state = mkdtempSync(join(tmpdir(), 'egw-state-'));
    dirs.push(state);
    const first = claimState(state, { url: 'http://localhost:8801', pid: 1111 }, () => true);
    expect(first.problem).toBeUndefined();
    const second = claimState(state, { url: 'http://localhost:8787', pid: 2222 }, () => true);
    expect(second.problem).toContain('http://localhost:8801');
    expect(second.problem).toContain('--persist-to');
    // The first run ended without releasing (killed): its process is gone, so the state is free.
    const third = claimState(state, { url: 'http://localhost:8787', pid: 3333 }, (pid: number) => pid !== 1111);
    expect(third.problem).toBeUndefined();
    third.release();
    expect(claimState(state, { url: 'http://localhost:9000', pid: 4444 }, () => true).problem).toBeUndefined();
  });

  it('a helper’s port set in the environment wins over .dev.vars', () => {
    const vars = { SMTP_PORT: '2525', REFERENCE_AGENT_PORT: '8788' };
    expect(helperPort('SMTP_PORT', vars, 2525, { SMTP_PORT: '2601' })).toBe(2601);
    expect(helperPort('REFERENCE_AGENT_PORT', vars, 8788, {})).toBe(8788);
    expect(helperPort('REFERENCE_AGENT_PORT', {}, 8788, {})).toBe(8788);
    expect(helperPort('SMTP_PORT', vars, 2525, { SMTP_PORT: 'not a port' })).toBe(2525);
  });
});

describe('the docs the seed indexes', () => {
  it('are recognised whatever local address added them, and replaced under this one', async () => {
    const sources: { source_id: string; url: string }[] = [];
    let port = 0;
    const server = createServer((request: IncomingMessage, response: ServerResponse) => {
      const path = request.url ?? '/';
      const send = (status: number, body: string, type = 'application/json') => {
        response.writeHead(status, { 'Content-Type': type });
        response.end(body);
      };
      if (path === '/healthz') return send(200, '{}');
      if (path === '/llms.txt')
        return send(
          200,
          `- [Home](http://localhost:${port}/docs.md)\n- [Hooks](http://localhost:${port}/docs/hooks.md)\n`,
        );
      if (path.startsWith('/docs')) return send(200, '<title>Docs · Gateway</title><h1>Docs</h1>', 'text/html');
      if (path === '/api/knowledge/sources' && request.method === 'GET')
        return send(200, JSON.stringify({ data: sources }));
      if (path === '/api/knowledge/sources' && request.method === 'POST') {
        let body = '';
        request.on('data', (chunk) => (body += chunk));
        request.on('end', () => {
          sources.push({ source_id: `ks_${sources.length + 1}`, url: JSON.parse(body).url });
          send(201, '{}');
        });
        return;
      }
      const deleted = /^\/api\/knowledge\/sources\/(.+)$/.exec(path);
      if (deleted && request.method === 'DELETE') {
        sources.splice(
          sources.findIndex((source) => source.source_id === decodeURIComponent(deleted[1]!)),
          1,
        );
        return send(204, '');
      }
      send(404, '{}');
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
    // Added earlier by a run on another port, and by one at 127.0.0.1.
    sources.push({ source_id: 'ks_old_port', url: 'http://localhost:8801/docs' });
    sources.push({ source_id: 'ks_old_ip', url: `http://127.0.0.1:${port}/docs/hooks` });
    const base = `http://localhost:${port}`;
    expect(await indexDocsAsKnowledge(base, 'key')).toEqual({ pages: 2, added: 2 });
    expect(sources.map((source) => source.url).toSorted()).toEqual([`${base}/docs`, `${base}/docs/hooks`]);
    // A second run adds nothing.
    expect(await indexDocsAsKnowledge(base, 'key')).toEqual({ pages: 2, added: 0 });
    expect(sources).toHaveLength(2);
  });
});
