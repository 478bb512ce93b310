/**
 * `npm run dev` with its ports taken (scripts/dev-ports.mjs): the platform's own stops the run at
 * once naming the flag that moves it; the helpers' move to free ports and say which setting keeps
 * another; the reference agent on a taken port fails with the port's error, not a TypeError.
 */
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: plain ES modules of the Node scripts.
import { choosePorts, portIsFree } from '../../scripts/dev-ports.mjs';
// @ts-expect-error: plain ES modules of the Node scripts.
import { startReferenceAgent } from '../../scripts/reference-agent.mjs';

const held: Server[] = [];
/** Takes a free loopback port and keeps it until the test ends. */
async function takePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  held.push(server);
  return (server.address() as { port: number }).port;
}
afterEach(async () => {
  await Promise.all(held.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('the ports of npm run dev', () => {
  it('a taken platform port stops the run before anything is built, naming --port', async () => {
    const worker = await takePort();
    const chosen = await choosePorts({ worker, ip: '127.0.0.1', agent: null, mail: null, inspector: null });
    expect(chosen.problem).toContain(`Port ${worker} is taken`);
    expect(chosen.problem).toMatch(/npm run dev -- --port \d+/);
  });

  it('taken helper ports move to free ones, each with the setting that keeps another', async () => {
    const [agent, mail, inspector] = [await takePort(), await takePort(), await takePort()];
    const free = await takePort();
    held.pop()?.close();
    const chosen = await choosePorts({ worker: free, ip: '127.0.0.1', agent, mail, inspector });
    expect(chosen.problem).toBeUndefined();
    for (const port of [chosen.agent, chosen.mail, chosen.inspector]) {
      expect([agent, mail, inspector]).not.toContain(port);
      expect(await portIsFree(port)).toBe(true);
    }
    expect(chosen.notes.join('\n')).toContain('REFERENCE_AGENT_PORT');
    expect(chosen.notes.join('\n')).toContain('SMTP_PORT');
    expect(chosen.notes.join('\n')).toContain('--inspector-port');
    // Free ports stay as configured, without a note.
    const quiet = await choosePorts({
      worker: free,
      ip: '127.0.0.1',
      agent: chosen.agent,
      mail: null,
      inspector: null,
    });
    expect(quiet).toMatchObject({ agent: chosen.agent, mail: null, inspector: null, notes: [] });
  });

  it('the reference agent on a taken port fails with the port’s error', async () => {
    const port = await takePort();
    await expect(startReferenceAgent({ port, secret: 'whsec_dGVzdA==' })).rejects.toMatchObject({
      code: 'EADDRINUSE',
    });
  });
});
