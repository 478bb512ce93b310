// The ports `npm run dev` needs, checked before anything is built: the platform's own (a taken one
// stops the run at once, naming the flag that moves it), and the local helpers' (the reference
// agent, the mail sink, wrangler's inspector), which move to a free port when theirs is taken, and
// say so in the banner with the setting that fixes them for good.
import { createServer } from 'node:net';

/** Whether `port` on `host` can be listened on now. */
export function portIsFree(port, host = '127.0.0.1') {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/** A port the system has free now. */
export function anyFreePort(host = '127.0.0.1') {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * The ports to run on. `wanted` holds the platform's (`worker`, on `ip`), and the helpers' as
 * configured (`agent`, `mail` or null when no sink runs, `inspector` or null when the user chose
 * one). Answers `{ problem }` when the platform's port is taken, else the ports with a note for
 * each one that moved.
 */
export async function choosePorts(wanted) {
  const host = wanted.ip === '0.0.0.0' || wanted.ip === '::' ? wanted.ip : '127.0.0.1';
  if (!(await portIsFree(wanted.worker, host)))
    return {
      problem:
        `Port ${wanted.worker} is taken, and the platform serves on it. Stop what uses it, or run on another: ` +
        `npm run dev -- --port ${wanted.worker === 9000 ? 9001 : 9000}`,
    };
  const notes = [];
  const move = async (port, what, setting) => {
    if (port === null || (await portIsFree(port))) return port;
    const free = await anyFreePort();
    notes.push(`Port ${port} (${what}) was taken: it runs on ${free} instead. ${setting}`);
    return free;
  };
  return {
    agent: await move(wanted.agent, 'the reference agent', 'Set REFERENCE_AGENT_PORT in .dev.vars to keep another.'),
    mail: await move(wanted.mail, 'the local mail sink', 'Set SMTP_PORT in .dev.vars to keep another.'),
    inspector: await move(wanted.inspector, "wrangler's inspector", 'Pass -- --inspector-port N to choose one.'),
    notes,
  };
}
