/**
 * Every code example of the docs runs against the real Worker (`wrangler dev`, the seeded demo),
 * copied from each page's Markdown as a reader would: shell commands in bash with the demo key in
 * EGW_API_KEY, webhook and robot receivers (Node and Python) started and sent signed requests,
 * JSON parsed, links followed. The widget examples run in Chromium (docs.browser.test.ts).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Webhook } from 'standardwebhooks';
import { describe, expect, inject, it } from 'vitest';
import { docsExamples, EXAMPLE_KINDS, type Example } from './docs-examples';

const worker = inject('workerUrl');
const demoApiKey = inject('demoApiKey');
const EXAMPLES_DIR = join(process.cwd(), 'test-results', 'docs-examples');
const known: readonly string[] = Object.values(EXAMPLE_KINDS).flat();

function run(command: string, args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(command, args, { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, deadline = Date.now() + 15_000): Promise<void> {
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      }).on('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100)); // A poll's interval.
  }
  throw new Error(`nothing listens on ${port}`);
}

/** Starts a receiver example and sends it a signed request, a repeat, and a forged one. */
async function exerciseReceiver(example: Example, index: number) {
  mkdirSync(EXAMPLES_DIR, { recursive: true });
  const python = example.info.startsWith('python');
  // Under the project (test-results/), so the example's own imports (express, standardwebhooks)
  // resolve from its node_modules; never in a folder a running Worker watches.
  const file = join(EXAMPLES_DIR, python ? `receiver-${index}.py` : `receiver-${index}.mjs`);
  writeFileSync(file, example.code);
  const port = await freePort();
  const secret = `whsec_${Buffer.from('a docs example secret, 32 bytes!').toString('base64')}`;
  const child = spawn(python ? 'python3' : 'node', [file], {
    env: { ...process.env, PORT: String(port), WEBHOOK_SECRET: secret },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  try {
    await waitForPort(port);
    const path = python ? '/' : example.code.includes("'/execute'") ? '/execute' : '/hooks/gateway';
    const body = JSON.stringify({ id: 'evt_docs', type: 'lead.created', domain: 'faq', text: 'Hello', data: {} });
    const send = (headers: Record<string, string>) =>
      fetch(`http://127.0.0.1:${port}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body,
      });
    // One instant for the signature and its header (two reads of the clock can fall either side of a second).
    const at = new Date();
    const signed = new Webhook(secret).sign('msg_docs_1', at, body);
    const headers = { 'webhook-id': 'msg_docs_1', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)) };
    const first = await send({ ...headers, 'webhook-signature': signed });
    expect(first.status, `${example.page} ${example.info}: ${stderr}`).toBeLessThan(300);
    if (path === '/execute') expect(await first.json()).toMatchObject({ output: { domain: 'faq' } });
    expect((await send({ ...headers, 'webhook-signature': signed })).status).toBeLessThan(300);
    const forged = await send({ ...headers, 'webhook-signature': 'v1,Zm9yZ2VkIHNpZ25hdHVyZQ==' });
    expect(forged.status, `${example.page} ${example.info} accepts a forged signature`).toBe(401);
  } finally {
    child.kill();
    if (!python) (await import('node:fs')).rmSync(file, { force: true });
  }
}

describe('the docs examples', () => {
  it('are all of a kind the docs test runs, on every page', async () => {
    const examples = await docsExamples(worker);
    expect(examples.length).toBeGreaterThan(20);
    for (const example of examples) expect(known, `${example.page}: \`\`\`${example.info}`).toContain(example.info);
    const pages = new Set(examples.map((example) => new URL(example.page).pathname));
    for (const page of ['/docs.md', '/docs/integration.md', '/docs/protocol.md', '/docs/webhooks.md'])
      expect(pages).toContain(page);
  });

  it('shell examples run as pasted, with the key in EGW_API_KEY', async () => {
    const examples = (await docsExamples(worker)).filter((example) => example.info.startsWith('sh'));
    let ran = 0;
    for (const example of examples) {
      if (!(EXAMPLE_KINDS.shell as readonly string[]).includes(example.info)) continue;
      const result = await run('bash', ['-euo', 'pipefail', '-c', example.code], { EGW_API_KEY: demoApiKey });
      const where = `${example.page}\n${example.code}\n${result.stdout}${result.stderr}`;
      expect(result.code, where).toBe(0);
      const output = result.stdout.trim();
      if (example.info === 'sh problem') {
        expect(JSON.parse(output), where).toMatchObject({ code: expect.any(String), status: expect.any(Number) });
      } else if (output.startsWith('{')) {
        const body = JSON.parse(output);
        expect(body.code, where).toBeUndefined();
        if ('output' in body) expect(body.output.status, where).toBe('completed');
      }
      ran += 1;
    }
    expect(ran).toBeGreaterThanOrEqual(6);
  });

  it('JSON examples parse, and links lead somewhere', async () => {
    const examples = await docsExamples(worker);
    for (const example of examples.filter((entry) => entry.info.startsWith('json')))
      expect(() => JSON.parse(example.code), example.page).not.toThrow();
    for (const example of examples.filter((entry) => entry.info === 'html link')) {
      const hrefs = [...example.code.matchAll(/href="([^"]+)"/g)].map((match) => match[1] as string);
      expect(hrefs.length).toBeGreaterThan(0);
      for (const href of hrefs) expect((await fetch(href)).status, href).toBe(200);
    }
  });

  it('the MCP and A2A clients run as pasted, and the MCP client configuration connects', async () => {
    const examples = await docsExamples(worker);
    const clients = examples.filter((example) => example.info === 'js client');
    expect(clients.map((example) => new URL(example.page).pathname).sort()).toEqual(['/docs/a2a.md', '/docs/mcp.md']);
    for (const [index, example] of clients.entries()) {
      // Under the project, so the example's own imports resolve (as above).
      mkdirSync(EXAMPLES_DIR, { recursive: true });
      const file = join(EXAMPLES_DIR, `client-${index}.mjs`);
      writeFileSync(file, example.code);
      try {
        const result = await run('node', [file], { EGW_API_KEY: demoApiKey, FORCE_COLOR: '0' });
        expect(result.code, `${example.page}\n${result.stderr}`).toBe(0);
        expect(result.stdout, example.page).toMatch(example.page.endsWith('mcp.md') ? /execute[\s\S]*exe_/ : /true$/m);
      } finally {
        rmSync(file, { force: true });
      }
    }
    const [config] = examples.filter((example) => example.info === 'json mcp-config');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the placeholder the configuration carries.
    const server = JSON.parse(config!.code.replace('${EGW_API_KEY}', demoApiKey)).mcpServers['edge-gateway'];
    const client = new Client({ name: 'docs-config', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers } }),
    );
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('execute');
    await client.close();
  });

  it('webhook and robot receivers in Node and Python verify signatures and skip repeats', async () => {
    const receivers = (await docsExamples(worker)).filter((example) => example.info.endsWith(' receiver'));
    expect(receivers.map((example) => example.info).sort()).toEqual(['js receiver', 'js receiver', 'python receiver']);
    for (const [index, example] of receivers.entries()) await exerciseReceiver(example, index);
  });
});
