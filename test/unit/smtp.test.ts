/**
 * The SMTP client (worker/lib/smtp.ts) against a real local relay that misbehaves as real ones do
 * (scripts/mail-sink.mjs): every failure ends in an SmtpError within its deadline, never a hang or
 * a spin, and a relay that offers AUTH without requiring it gets the mail when no credentials are set.
 */
import { connect as netConnect } from 'node:net';
import { Duplex } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module shared with the Node scripts.
import { startMailSink } from '../../scripts/mail-sink.mjs';
// @ts-expect-error: a plain ES module shared with the Node scripts.
import { freePort } from '../../scripts/local-worker.mjs';
import { dataBlock, SmtpError, type SmtpConnect, type SmtpOptions, sendSmtp } from '../../worker/lib/smtp';

/** cloudflare:sockets' shape over a Node socket (no TLS here: the relay is local). */
const nodeConnect: SmtpConnect = (host, port) => {
  const socket = netConnect(port, host);
  const { readable, writable } = Duplex.toWeb(socket);
  return {
    readable: readable as ReadableStream<Uint8Array>,
    writable: writable as WritableStream<Uint8Array>,
    opened: new Promise((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    }),
    close: async () => {
      socket.destroy();
    },
    startTls: () => {
      throw new Error('no TLS in this test');
    },
  };
};

interface Sink {
  port: number;
  received: Array<{ to: string[]; raw: Buffer }>;
  setMode(mode: string): void;
  close(): Promise<void>;
}

let sink: Sink;
const message = (to = 'visitor@example.test') => ({
  from: 'no-reply@gateway.test',
  to: [to],
  data: 'Subject: Hello\r\nFrom: <no-reply@gateway.test>\r\n\r\nLine one\r\n.starts with a dot\r\n',
});
const options = (overrides: Partial<SmtpOptions> = {}): SmtpOptions => ({
  host: '127.0.0.1',
  port: sink.port,
  security: 'none',
  clientName: 'gateway.test',
  stepTimeoutMs: 1_000,
  totalTimeoutMs: 5_000,
  ...overrides,
});

/** The error a send ends with, and how long it took. */
async function failure(run: Promise<void>): Promise<{ error: SmtpError; ms: number }> {
  const started = Date.now();
  try {
    await run;
  } catch (error) {
    expect(error).toBeInstanceOf(SmtpError);
    return { error: error as SmtpError, ms: Date.now() - started };
  }
  throw new Error('the send succeeded');
}

beforeAll(async () => {
  sink = await startMailSink({ quiet: true });
});
afterAll(() => sink.close());

describe('the SMTP client', () => {
  it('sends a message, with the leading dot stuffed and restored', async () => {
    sink.setMode('normal');
    await sendSmtp(nodeConnect, options(), message('first@example.test'));
    const got = sink.received.at(-1)!;
    expect(got.to).toEqual(['first@example.test']);
    expect(got.raw.toString()).toContain('\r\n.starts with a dot');
    expect(dataBlock('a\n.b\r\n')).toBe('a\r\n..b\r\n.\r\n');
  });

  it('sends without AUTH to a relay that offers it without requiring it; authenticates when configured', async () => {
    sink.setMode('auth-optional');
    const before = sink.received.length;
    await sendSmtp(nodeConnect, options(), message('no-auth@example.test'));
    await sendSmtp(
      nodeConnect,
      options({ credentials: { username: 'user', password: 'secret' } }),
      message('auth@example.test'),
    );
    expect(sink.received.slice(before).map((mail) => mail.to[0])).toEqual([
      'no-auth@example.test',
      'auth@example.test',
    ]);
  });

  it('fails, never hangs, on a relay that greets 421 and closes', async () => {
    sink.setMode('greet-421');
    const { error, ms } = await failure(sendSmtp(nodeConnect, options(), message()));
    expect(error.code).toBe(421);
    expect(error.permanent).toBe(false);
    expect(ms).toBeLessThan(1_000);
  });

  it('fails at once when the relay drops the connection mid-dialogue', async () => {
    sink.setMode('drop');
    const { error, ms } = await failure(sendSmtp(nodeConnect, options(), message()));
    expect(error.message).toMatch(/closed the connection|connection to the SMTP server failed/);
    expect(ms).toBeLessThan(1_000);
  });

  it('gives up on a relay that never answers, at the step deadline', async () => {
    sink.setMode('hang');
    const { error, ms } = await failure(sendSmtp(nodeConnect, options({ stepTimeoutMs: 300 }), message()));
    expect(error.message).toMatch(/did not answer/);
    expect(ms).toBeGreaterThanOrEqual(290);
    expect(ms).toBeLessThan(1_500);
  });

  it('waits for a slow relay within the deadlines, and stops at the dialogue deadline', async () => {
    sink.setMode('slow');
    await sendSmtp(nodeConnect, options(), message('slow@example.test'));
    expect(sink.received.at(-1)!.to).toEqual(['slow@example.test']);
    const { error, ms } = await failure(sendSmtp(nodeConnect, options({ totalTimeoutMs: 700 }), message()));
    expect(error.message).toMatch(/did not answer/);
    expect(ms).toBeLessThan(1_200);
  });

  it('reports a refused recipient as permanent, and a refused connection as not', async () => {
    sink.setMode('refuse-recipient');
    const refused = await failure(sendSmtp(nodeConnect, options(), message()));
    expect(refused.error.code).toBe(550);
    expect(refused.error.permanent).toBe(true);
    const closedPort = await freePort();
    const nobody = await failure(sendSmtp(nodeConnect, options({ port: closedPort }), message()));
    expect(nobody.error.stage).toBe('connect');
    expect(nobody.error.permanent).toBe(false);
  });

  it('never sends in plain text when STARTTLS is required and not offered', async () => {
    sink.setMode('normal');
    const { error } = await failure(sendSmtp(nodeConnect, options({ security: 'starttls' }), message()));
    expect(error.stage).toBe('STARTTLS');
  });

  it('refuses an envelope address that could inject a command', async () => {
    sink.setMode('normal');
    const { error } = await failure(sendSmtp(nodeConnect, options(), message('a@b.test>\r\nRCPT TO:<c@d.test')));
    expect(error.stage).toBe('envelope');
  });
});
