// A local SMTP sink (PRODUCT.md section 14): it accepts every email on 127.0.0.1, keeps each one
// as an .eml file (when given a folder), prints one line per email, and remembers what arrived.
// `npm run dev` starts it when LOCAL_MAIL_SINK=true; the tests read what it received.
// It offers neither AUTH nor STARTTLS: the Worker speaks plain SMTP to loopback only.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/**
 * Starts the sink on `port` (0: any free port). Returns its port, the emails received so far
 * (`{to, from, raw, file}`), parse(email) for the rest (`subject`, `text`, `html`, `headers`…)
 * and close().
 */
export async function startMailSink({ port = 0, dir, quiet = false } = {}) {
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
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    banner: 'Edge Gateway local mail sink',
    size: 2 * 1024 * 1024,
    logger: false,
    onData(stream, session, callback) {
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
    },
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const actualPort = server.server.address().port;
  return {
    port: actualPort,
    received,
    parse,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
