// A local SMTP sink: it accepts every email on 127.0.0.1, keeps each one as an .eml file (when
// given a folder), prints one line per email, and remembers what arrived. `npm run dev` starts it
// when LOCAL_MAIL_SINK=true; the tests read what it received. It offers neither AUTH nor STARTTLS:
// the Worker speaks plain SMTP to loopback only.
//
// It can also misbehave as real relays do, for the tests of the SMTP client: `setMode(mode)`, or a
// `modeFile` whose content names the mode (read at each new connection, so another process can
// switch it). Modes: `normal`; `auth-optional` (EHLO lists AUTH PLAIN LOGIN, mail is taken without
// it); `greet-421` (a busy relay: 421, then close); `drop` (greets, then closes at the first
// command); `hang` (accepts the connection and never answers); `slow` (every reply 300 ms late);
// `refuse-recipient` (550 at RCPT TO).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/**
 * Starts the sink on `port` (0: any free port). Returns its port, the emails received so far
 * (`{to, from, raw, file}`), parse(email) for the rest (`subject`, `text`, `html`, `headers`…)
 * and close().
 */
export async function startMailSink({ port = 0, dir, quiet = false, modeFile } = {}) {
  const received = [];
  const parsedCache = new WeakMap();
  /** An email as tests read it: `{to, from, subject, text, html, headers, raw, file}` (parsed once). */
  const parse = async (entry) => {
    const cached = parsedCache.get(entry);
    if (cached) return cached;
    const parsed = await simpleParser(entry.raw);
    const mail = {
      to: entry.to,
      from: entry.from,
      subject: parsed.subject ?? '',
      // The mailboxes of `From:` as a mail program reads them: one, or an injection.
      fromMailboxes: (parsed.from?.value ?? []).map(({ name, address }) => ({ name, address })),
      text: parsed.text ?? '',
      html: typeof parsed.html === 'string' ? parsed.html : '',
      // Each header as it was written (mailparser's own map restructures some, such as List-*).
      headers: Object.fromEntries(
        parsed.headerLines.map(({ key, line }) => [
          key,
          line
            .slice(line.indexOf(':') + 1)
            .replace(/\r?\n\s+/g, ' ')
            .trim(),
        ]),
      ),
      raw: entry.raw.toString('utf8'),
      file: entry.file,
    };
    parsedCache.set(entry, mail);
    return mail;
  };
  if (dir) mkdirSync(dir, { recursive: true });
  const onData = (stream, session, callback) => {
    const chunks = [];
    stream.on('data', (chunk) => chunks.push(chunk));
    stream.on('end', async () => {
      try {
        const raw = Buffer.concat(chunks);
        const to = session.envelope.rcptTo.map((recipient) => recipient.address);
        const stamp = new Date().toISOString().replace(/[:.]/g, '-');
        const file = dir ? join(dir, `${stamp}-${received.length + 1}.eml`) : undefined;
        if (file) writeFileSync(file, raw);
        const entry = { to, from: session.envelope.mailFrom ? session.envelope.mailFrom.address : null, raw, file };
        received.push(entry);
        // Parsed only when someone reads it (a test, the terminal of npm run dev): parsing every
        // email a test run sends would cost CPU for nothing.
        if (!quiet) {
          const mail = await parse(entry);
          console.log(`✉  mail to ${to.join(', ')}: ${mail.subject}${file ? `  (${file})` : ''}`);
        }
        callback();
      } catch (error) {
        callback(error);
      }
    });
  };
  const common = { banner: 'Edge Gateway local mail sink', size: 2 * 1024 * 1024, logger: false, onData };
  const servers = {
    normal: new SMTPServer({ ...common, authOptional: true, disabledCommands: ['AUTH', 'STARTTLS'] }),
    'auth-optional': new SMTPServer({
      ...common,
      authOptional: true,
      allowInsecureAuth: true,
      authMethods: ['PLAIN', 'LOGIN'],
      disabledCommands: ['STARTTLS'],
      onAuth: (auth, _session, callback) => callback(null, { user: auth.username }),
    }),
    'refuse-recipient': new SMTPServer({
      ...common,
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      onRcptTo: (_address, _session, callback) =>
        callback(Object.assign(new Error('5.1.1 No such mailbox here'), { responseCode: 550 })),
    }),
  };
  const innerPorts = {};
  for (const [name, server] of Object.entries(servers)) {
    await new Promise((resolve, reject) => {
      server.server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    innerPorts[name] = server.server.address().port;
  }
  let mode = 'normal';
  const currentMode = () =>
    modeFile && existsSync(modeFile) ? readFileSync(modeFile, 'utf8').trim() || 'normal' : mode;
  const open = new Set();
  const front = createServer((client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => undefined);
    const now = currentMode();
    if (now === 'greet-421') {
      client.end('421 4.3.2 Too busy, try again later\r\n');
      return;
    }
    if (now === 'drop') {
      client.write('220 relay.local ESMTP\r\n');
      client.once('data', () => client.destroy());
      return;
    }
    if (now === 'hang') return;
    const inner = createConnection(innerPorts[now] ?? innerPorts.normal, '127.0.0.1');
    open.add(inner);
    inner.on('close', () => {
      open.delete(inner);
      client.destroy();
    });
    inner.on('error', () => client.destroy());
    client.on('close', () => inner.destroy());
    client.pipe(inner);
    if (now === 'slow') inner.on('data', (chunk) => setTimeout(() => client.write(chunk), 300));
    else inner.pipe(client);
  });
  await new Promise((resolve, reject) => {
    front.once('error', reject);
    front.listen(port, '127.0.0.1', resolve);
  });
  const actualPort = front.address().port;
  return {
    port: actualPort,
    received,
    parse,
    /** Switches how the next connections are treated (see the modes above). */
    setMode: (next) => {
      mode = next;
    },
    close: async () => {
      for (const socket of open) socket.destroy();
      await new Promise((resolve) => front.close(resolve));
      await Promise.all(Object.values(servers).map((server) => new Promise((resolve) => server.close(resolve))));
    },
  };
}
