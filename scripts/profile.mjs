// A CPU profile of the Worker in workerd, over the devtools protocol (the inspector port of a
// Worker started with `profile: true`, local-worker.mjs): the sampling profiler runs while a
// request is sent `requests` times one after another, then each sample's time is given to the
// function it was in and to the module that function came from (the bundle's `// path` comments
// say which). `npm run bench` prints the top entries of /api/execute's profile.
import WebSocket from 'ws';

/** Sends devtools commands over one socket, each answered by its id. */
async function devtools(url) {
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  let next = 0;
  const waiting = new Map();
  socket.on('message', (data) => {
    const message = JSON.parse(String(data));
    const pending = message.id !== undefined && waiting.get(message.id);
    if (!pending) return;
    waiting.delete(message.id);
    if (message.error) pending.reject(new Error(`${message.error.message} (${JSON.stringify(message.error)})`));
    else pending.resolve(message.result);
  });
  return {
    send(method, params = {}) {
      const id = ++next;
      socket.send(JSON.stringify({ id, method, params }));
      return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
    },
    close: () => socket.close(),
  };
}

/** The module of each line of a bundle: esbuild writes `// path/to/module.ts` before each module's code. */
export function modulesByLine(source) {
  const lines = source.split('\n');
  const owner = new Array(lines.length);
  let current = '(bundle)';
  for (const [index, line] of lines.entries()) {
    const match = /^\/\/ ((?:node_modules|worker|bench|drizzle)\/\S+)$/.exec(line);
    if (match) current = match[1];
    owner[index] = current;
  }
  return owner;
}

/** A module's area, for the summary: our code by folder, a library by package. */
export function areaOf(module) {
  const library = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(module);
  if (library) return library[1];
  const ours = /^(worker\/(?:platform\/[^/]+|[^/]+)|drizzle|bench)/.exec(module);
  return ours ? ours[1] : module;
}

/**
 * Profiles `send()` run `requests` times in a row; answers the total sampled time and the top
 * functions and areas by self time (milliseconds per request).
 */
export async function profileRequests(inspectorPort, send, { requests = 200, top = 12 } = {}) {
  const [target] = await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json();
  const session = await devtools(target.webSocketDebuggerUrl);
  const scripts = new Map();
  try {
    await session.send('Debugger.enable').catch(() => undefined);
    await session.send('Profiler.enable');
    await session.send('Profiler.setSamplingInterval', { interval: 100 });
    await session.send('Profiler.start');
    for (let index = 0; index < requests; index++) await send();
    const { profile } = await session.send('Profiler.stop');
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    const parentOf = new Map();
    for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
    /** The nearest frame of ours or a library's above a runtime frame (what called the runtime). */
    const callerOf = (id) => {
      for (let at = parentOf.get(id); at !== undefined; at = parentOf.get(at))
        if (byId.get(at).callFrame.url) return byId.get(at);
      return undefined;
    };
    const moduleOf = async (callFrame) => {
      if (!scripts.has(callFrame.scriptId)) {
        const { scriptSource } = await session
          .send('Debugger.getScriptSource', { scriptId: callFrame.scriptId })
          .catch(() => ({ scriptSource: '' }));
        scripts.set(callFrame.scriptId, modulesByLine(scriptSource));
      }
      return scripts.get(callFrame.scriptId)[callFrame.lineNumber] ?? '(bundle)';
    };
    const self = new Map();
    for (const [index, sample] of profile.samples.entries()) {
      const delta = profile.timeDeltas[index + 1] ?? 0;
      self.set(sample, (self.get(sample) ?? 0) + delta);
    }
    const functions = new Map();
    const areas = new Map();
    let total = 0;
    for (const [id, micros] of self) {
      const { callFrame } = byId.get(id);
      const name = callFrame.functionName || '(anonymous)';
      if (name === '(idle)' || name === '(program)') continue;
      // A runtime frame (no script) is named with what called it, and counted in that caller's area.
      const caller = callFrame.url ? undefined : callerOf(id);
      const module = callFrame.url
        ? await moduleOf(callFrame)
        : caller
          ? await moduleOf(caller.callFrame)
          : '(runtime)';
      const key = callFrame.url
        ? `${name} (${module.replace(/^node_modules\//, '')})`
        : `${name} (runtime${caller ? `, called by ${caller.callFrame.functionName || '(anonymous)'}` : ''})`;
      functions.set(key, (functions.get(key) ?? 0) + micros);
      const area = areaOf(module);
      areas.set(area, (areas.get(area) ?? 0) + micros);
      total += micros;
    }
    const perRequest = (micros) => micros / 1000 / requests;
    const ranked = (map) =>
      [...map]
        .sort((a, b) => b[1] - a[1])
        .slice(0, top)
        .map(([name, micros]) => ({ name, ms: perRequest(micros), share: micros / Math.max(total, 1) }));
    return { requests, msPerRequest: perRequest(total), functions: ranked(functions), areas: ranked(areas) };
  } finally {
    session.close();
  }
}
