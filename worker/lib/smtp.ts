/**
 * A small SMTP client (RFC 5321) for one message per connection, written for failure: every read
 * ends on end-of-stream (an error, never a spin), waits at most `stepTimeoutMs`, and is bounded in
 * size; the whole dialogue has a deadline too. STARTTLS, when asked for, is required; AUTH is sent
 * only when credentials are configured, whatever the server offers. The socket comes from
 * `connect` (cloudflare:sockets in the Worker, a Node adapter in the tests), so the dialogue is
 * tested against real local relays that drop, hang, greet 421 or answer slowly.
 */

import { toBase64 } from './base64';
import { clock } from './clock';

/** The socket the client speaks over: cloudflare:sockets' `Socket`, or anything shaped like it. */
export interface SmtpSocket {
  readonly readable: ReadableStream<Uint8Array>;
  readonly writable: WritableStream<Uint8Array>;
  readonly opened: Promise<unknown>;
  close(): Promise<void>;
  startTls(): SmtpSocket;
}

/** Opens a connection: `on` is TLS from the start (465), `starttls` upgradable (587), `off` plain. */
export type SmtpConnect = (host: string, port: number, secureTransport: 'on' | 'off' | 'starttls') => SmtpSocket;

export interface SmtpOptions {
  host: string;
  port: number;
  security: 'tls' | 'starttls' | 'none';
  /** Authenticate (PLAIN, else LOGIN) only when these are given. */
  credentials?: { username: string; password: string } | undefined;
  /** The name this client gives in EHLO. */
  clientName: string;
  /** The longest wait for the connection and for each reply. */
  stepTimeoutMs: number;
  /** The longest the whole dialogue may take. */
  totalTimeoutMs: number;
}

/** One message: the envelope, and the whole RFC 5322 text (headers and body, CRLF line ends). */
export interface SmtpMessage {
  from: string;
  to: string[];
  data: string;
}

/** Why a message was not sent: the stage, and the server's reply code when it gave one. */
export class SmtpError extends Error {
  constructor(
    message: string,
    readonly stage: string,
    readonly code?: number,
  ) {
    super(message);
    this.name = 'SmtpError';
  }

  /** A 5xx reply: the same message will be refused again (a retry is pointless). */
  get permanent(): boolean {
    return this.code !== undefined && this.code >= 500;
  }
}

/** A server reply never needs more (EHLO's list of extensions is the longest, about 1 KB). */
const MAX_REPLY_BYTES = 16 * 1024;

interface Reply {
  code: number;
  lines: string[];
}

const encoder = new TextEncoder();

/** The dialogue's reader and writer over the current socket (replaced after STARTTLS). */
class Connection {
  private reader: ReadableStreamDefaultReader<Uint8Array>;
  private writer: WritableStreamDefaultWriter<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffered = '';

  constructor(
    private socket: SmtpSocket,
    private readonly deadlineAt: number,
    private readonly stepTimeoutMs: number,
  ) {
    this.reader = socket.readable.getReader();
    this.writer = socket.writable.getWriter();
  }

  /** Waits for `promise` until the step's or the dialogue's deadline, whichever is first. */
  async within<T>(promise: Promise<T>, stage: string): Promise<T> {
    const wait = Math.max(0, Math.min(this.stepTimeoutMs, this.deadlineAt - clock.now()));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new SmtpError(`The SMTP server did not answer within ${Math.round(wait / 1000)} s.`, stage)),
        wait,
      );
    });
    try {
      return await Promise.race([promise, timeout]);
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
  }

  /** One whole reply (every line of a multi-line one), or an error: closed, too slow or too long. */
  async reply(stage: string): Promise<Reply> {
    const lines: string[] = [];
    for (;;) {
      const end = this.buffered.indexOf('\n');
      if (end === -1) {
        if (this.buffered.length > MAX_REPLY_BYTES) throw new SmtpError('The SMTP server’s reply is too long.', stage);
        const chunk = await this.within(
          this.reader.read().catch((error: unknown) => {
            throw new SmtpError(`The connection to the SMTP server failed: ${(error as Error).message}`, stage);
          }),
          stage,
        );
        if (chunk.done) throw new SmtpError('The SMTP server closed the connection.', stage);
        this.buffered += this.decoder.decode(chunk.value, { stream: true });
        continue;
      }
      const line = this.buffered.slice(0, end).replace(/\r$/, '');
      this.buffered = this.buffered.slice(end + 1);
      const match = /^(\d{3})([ -]?)(.*)$/.exec(line);
      if (!match) throw new SmtpError('The SMTP server’s reply is not SMTP.', stage);
      lines.push(match[3]!);
      if (lines.join('\n').length > MAX_REPLY_BYTES) throw new SmtpError('The SMTP server’s reply is too long.', stage);
      if (match[2] !== '-') return { code: Number(match[1]), lines };
    }
  }

  async write(text: string, stage: string): Promise<void> {
    await this.within(
      this.writer.write(encoder.encode(text)).catch((error: unknown) => {
        throw new SmtpError(`The connection to the SMTP server failed: ${(error as Error).message}`, stage);
      }),
      stage,
    );
  }

  /** Sends a command and reads its reply; a code outside `expected` is an error naming the stage. */
  async command(line: string, expected: number[], stage: string): Promise<Reply> {
    await this.write(`${line}\r\n`, stage);
    return this.expect(expected, stage);
  }

  async expect(expected: number[], stage: string): Promise<Reply> {
    const reply = await this.reply(stage);
    if (!expected.includes(reply.code)) {
      throw new SmtpError(
        `The SMTP server refused ${stage}: ${reply.code} ${reply.lines.join(' ')}`,
        stage,
        reply.code,
      );
    }
    return reply;
  }

  /** STARTTLS took place: the dialogue goes on over the upgraded socket. */
  upgrade(): void {
    this.reader.releaseLock();
    this.writer.releaseLock();
    this.socket = this.socket.startTls();
    this.reader = this.socket.readable.getReader();
    this.writer = this.socket.writable.getWriter();
  }

  async close(): Promise<void> {
    this.reader.cancel().catch(() => undefined);
    await this.socket.close().catch(() => undefined);
  }
}

/** The extensions an EHLO reply lists, upper-cased (`STARTTLS`, `AUTH PLAIN LOGIN`, `SIZE 1000`…). */
function extensionsOf(reply: Reply): Map<string, string> {
  return new Map(
    reply.lines.slice(1).map((line) => {
      const [name = '', ...rest] = line
        .trim()
        .toUpperCase()
        .split(/[\s=]+/);
      return [name, rest.join(' ')];
    }),
  );
}

/** The message text as DATA sends it: CRLF line ends, a leading dot doubled, the final dot line. */
export function dataBlock(data: string): string {
  const lines = data.replace(/\r?\n/g, '\r\n').replace(/\r\n$/, '').split('\r\n');
  return `${lines.map((line) => (line.startsWith('.') ? `.${line}` : line)).join('\r\n')}\r\n.\r\n`;
}

const ADDRESS = /^[^\s<>@]+@[^\s<>@]+$/;

/** Sends one message over a new connection, then says QUIT; throws SmtpError on any failure. */
export async function sendSmtp(connect: SmtpConnect, options: SmtpOptions, message: SmtpMessage): Promise<void> {
  for (const address of [message.from, ...message.to]) {
    if (!ADDRESS.test(address)) throw new SmtpError('An address of the envelope is not valid.', 'envelope');
  }
  const deadlineAt = clock.now() + options.totalTimeoutMs;
  let socket: SmtpSocket;
  try {
    socket = connect(
      options.host,
      options.port,
      options.security === 'tls' ? 'on' : options.security === 'starttls' ? 'starttls' : 'off',
    );
  } catch (error) {
    throw new SmtpError(`The SMTP server could not be reached: ${(error as Error).message}`, 'connect');
  }
  const connection = new Connection(socket, deadlineAt, options.stepTimeoutMs);
  try {
    await connection.within(
      socket.opened.catch((error: unknown) => {
        throw new SmtpError(`The SMTP server could not be reached: ${(error as Error).message}`, 'connect');
      }),
      'connect',
    );
    await connection.expect([220], 'the greeting');
    let extensions = extensionsOf(await connection.command(`EHLO ${options.clientName}`, [250], 'EHLO'));
    if (options.security === 'starttls') {
      if (!extensions.has('STARTTLS')) {
        throw new SmtpError(
          'The SMTP server does not offer STARTTLS; nothing is sent in plain text (SMTP_SECURE=starttls).',
          'STARTTLS',
        );
      }
      await connection.command('STARTTLS', [220], 'STARTTLS');
      connection.upgrade();
      extensions = extensionsOf(await connection.command(`EHLO ${options.clientName}`, [250], 'EHLO'));
    }
    if (options.credentials) await authenticate(connection, extensions, options.credentials);
    await connection.command(`MAIL FROM:<${message.from}>`, [250], 'the sender (MAIL FROM)');
    for (const recipient of message.to) {
      await connection.command(`RCPT TO:<${recipient}>`, [250, 251], 'the recipient (RCPT TO)');
    }
    await connection.command('DATA', [354], 'DATA');
    await connection.write(dataBlock(message.data), 'the message');
    await connection.expect([250], 'the message');
    // The message is accepted: QUIT is a courtesy, and its failure changes nothing.
    await connection.command('QUIT', [221], 'QUIT').catch(() => undefined);
  } finally {
    await connection.close();
  }
}

async function authenticate(
  connection: Connection,
  extensions: Map<string, string>,
  credentials: { username: string; password: string },
): Promise<void> {
  const mechanisms = (extensions.get('AUTH') ?? '').split(' ');
  const base64 = (text: string) => toBase64(encoder.encode(text));
  if (mechanisms.includes('PLAIN')) {
    await connection.command(
      `AUTH PLAIN ${base64(`\0${credentials.username}\0${credentials.password}`)}`,
      [235],
      'AUTH',
    );
    return;
  }
  if (mechanisms.includes('LOGIN')) {
    await connection.command('AUTH LOGIN', [334], 'AUTH');
    await connection.command(base64(credentials.username), [334], 'AUTH');
    await connection.command(base64(credentials.password), [235], 'AUTH');
    return;
  }
  throw new SmtpError('SMTP credentials are configured, but the server offers neither AUTH PLAIN nor LOGIN.', 'AUTH');
}
