/**
 * Runs the protocols' own conformance kits against a throwaway local Worker (docs/design/callers.md):
 *
 *   node scripts/conformance.mjs a2a --tck <dir>   # the A2A TCK (a2aproject/a2a-tck), mandatory tests, 1.0
 *   node scripts/conformance.mjs mcp               # @modelcontextprotocol/conformance, the applicable scenarios
 *
 * Each run gets a fresh workspace and key (execute, leads:write), so the demo's contract and rate
 * limit do not shape the results. Neither kit is on CI's machines (the TCK is Python fetched from
 * GitHub; the MCP suite is fetched from npm), so their mandatory cases are also worker tests
 * (test/worker/a2a.cases.ts). What the A2A kit gets wrong is listed below with the reason, and run
 * or left out as the reason says; the script fails when anything else fails.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { freePort, startLocalWorker } from './local-worker.mjs';

const MCP_SUITE = '@modelcontextprotocol/conformance@0.1.16';

/**
 * The MCP suite's scenarios that apply: the rest call the suite's own reference server's tools
 * (test_simple_text, …), resources, prompts, logging and completions, none of which the gateway
 * declares.
 */
const MCP_SCENARIOS = [
  'server-initialize',
  'ping',
  'tools-list',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
];

/** The kit's capability tests that apply to the card: streaming, push notifications, the card's optional fields. */
const A2A_CAPABILITY_TESTS = [
  'tests/optional/capabilities/test_streaming_methods.py',
  'tests/optional/capabilities/test_push_notification_config_methods.py',
  'tests/optional/capabilities/test_agent_card_optional.py',
];

/** A2A kit tests left out, each for a reason that is the kit's, not the gateway's. */
const A2A_KIT_BUGS = {
  'tests/mandatory/jsonrpc/test_a2a_error_codes_enhanced.py::test_push_notification_not_supported_error_32003_enhanced':
    'a TypeError inside the kit (its helper is called with one argument too many)',
  // The spec: CancelTask on a task in a terminal state is TaskNotCancelableError (-32002). These two
  // expect a completed task to be canceled.
  'tests/mandatory/protocol/test_tasks_cancel_method.py::test_tasks_cancel_valid':
    'expects a completed task to be canceled; the spec answers TaskNotCancelable (-32002), as the gateway does',
  [[
    'tests/mandatory/protocol/test_a2a_v030_new_methods.py',
    'TestMethodMappingCompliance',
    'test_core_method_mapping_compliance',
  ].join('::')]: 'cancels a completed task and expects success; the spec answers TaskNotCancelable (-32002)',
};

/**
 * The kit's ListTasks tests make their tasks through a helper that waits for each to be WORKING,
 * as the kit's own sample agent leaves them; the gateway answers every message with a completed
 * task. The helper is run here accepting a completed task too; every assertion on ListTasks stays.
 */
function patchListTasksHelper(kitDir) {
  const file = join(kitDir, 'tests/mandatory/protocol/test_tasks_list_method.py');
  const text = readFileSync(file, 'utf8');
  const from = 'if current_state == "TASK_STATE_WORKING":';
  if (!text.includes(from)) throw new Error(`The kit changed: ${from} is not in ${file}.`);
  writeFileSync(file, text.replace(from, 'if current_state in ("TASK_STATE_WORKING", "TASK_STATE_COMPLETED"):'));
}

/** A fresh workspace and an API key for it, through the admin API. */
async function freshKey(worker) {
  const admin = (path, body) =>
    fetch(`${worker.url}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${worker.adminToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    }).then((response) => response.json());
  const tenant = await admin('/api/admin/organizations', { name: 'Conformance' });
  const key = await admin('/api/admin/api-keys', {
    workspace_id: tenant.workspace_id,
    name: 'conformance',
    scopes: ['execute', 'leads:write'],
    rate_limit_per_minute: 10_000,
  });
  if (!key.token) throw new Error(`No key: ${JSON.stringify(key)}`);
  return key.token;
}

function run(command, args, options = {}) {
  return new Promise((done) => {
    const child = spawn(command, args, { stdio: 'inherit', ...options });
    child.on('exit', (code) => done(code ?? 1));
  });
}

async function a2a(worker, token, kit) {
  if (!kit || !existsSync(join(kit, 'tests/mandatory')))
    throw new Error(
      'Give the A2A TCK folder: --tck <dir> (a2aproject/a2a-tck cloned, with its .venv; see docs/design/callers.md).',
    );
  const copy = mkdtempSync(join(tmpdir(), 'a2a-tck-'));
  cpSync(kit, copy, { recursive: true });
  patchListTasksHelper(copy);
  for (const [test, reason] of Object.entries(A2A_KIT_BUGS)) console.log(`left out: ${test}\n  (${reason})`);
  // The kit flags 127.0.0.1 in the card as a development address; `localhost` is the same server.
  const sut = `${worker.url.replace('127.0.0.1', 'localhost')}/a2a`;
  const python = existsSync(join(kit, '.venv/bin/python')) ? join(kit, '.venv/bin/python') : 'python3';
  const pytest = (tests, markers) =>
    run(
      python,
      [
        '-m',
        'pytest',
        ...tests,
        `--sut-url=${sut}`,
        '--test-scope=all',
        ...(markers ? ['-m', markers] : []),
        '-q',
        '-p',
        'no:cacheprovider',
        ...Object.keys(A2A_KIT_BUGS).flatMap((test) => ['--deselect', test]),
      ],
      {
        cwd: copy,
        env: {
          ...process.env,
          A2A_AUTH_TYPE: 'bearer',
          A2A_AUTH_TOKEN: token,
          A2A_AUTH_HEADERS: JSON.stringify({ 'A2A-Version': '1.0' }),
        },
      },
    );
  console.log('== the mandatory tests');
  const mandatory = await pytest(['tests/mandatory/'], 'mandatory or mandatory_protocol or mandatory_jsonrpc');
  // What the card declares: streaming (true) and push notifications (false, each refused with
  // -32003); the kit skips a capability test whose capability the card does not declare.
  console.log('== the capability tests of what the card declares');
  const capabilities = await pytest(A2A_CAPABILITY_TESTS);
  return mandatory || capabilities;
}

/** A loopback proxy that adds the bearer (the MCP suite has no auth option) and passes every other header. */
async function bearerProxy(target, token) {
  const upstream = new URL(target);
  const port = await freePort();
  const server = http.createServer((request, response) => {
    const forward = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: request.url,
        method: request.method,
        headers: { ...request.headers, authorization: `Bearer ${token}` },
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    forward.on('error', () => response.writeHead(502).end());
    request.pipe(forward);
  });
  await new Promise((ready) => server.listen(port, '127.0.0.1', ready));
  return { url: `http://127.0.0.1:${port}`, close: () => server.close() };
}

async function mcp(worker, token) {
  const proxy = await bearerProxy(worker.url, token);
  // The suite imports fs.globSync (Node 22) at load, for one command this does not run.
  const shim = pathToFileURL(resolve(import.meta.dirname, 'node20-globsync.mjs')).href;
  const nodeOptions = Number(process.versions.node.split('.')[0]) < 22 ? `--import=${shim}` : '';
  let failed = 0;
  try {
    for (const scenario of MCP_SCENARIOS) {
      const code = await run(
        'npx',
        ['--yes', MCP_SUITE, 'server', '--url', `${proxy.url}/mcp`, '--scenario', scenario],
        {
          env: { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} ${nodeOptions}`.trim() },
        },
      );
      if (code !== 0) failed++;
    }
  } finally {
    proxy.close();
  }
  console.log(`${MCP_SCENARIOS.length - failed} of ${MCP_SCENARIOS.length} applicable MCP scenarios passed.`);
  return failed ? 1 : 0;
}

const [kind, ...rest] = process.argv.slice(2);
if (kind !== 'a2a' && kind !== 'mcp') {
  console.error('Usage: node scripts/conformance.mjs a2a --tck <dir> | mcp');
  process.exit(2);
}
const worker = await startLocalWorker({ inspector: false });
let code = 1;
try {
  const token = await freshKey(worker);
  code = kind === 'a2a' ? await a2a(worker, token, rest[rest.indexOf('--tck') + 1]) : await mcp(worker, token);
} finally {
  await worker.stop();
}
process.exit(code);
