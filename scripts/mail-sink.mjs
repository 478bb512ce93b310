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
 * (`{to, from, subject, text, html, headers, raw, file}`), waitFor(predicate) and close().
 */
export async function startMailSink({ port = 0, dir, quiet = false } = {}) {
  const received = [];
  const waiters = new Set();
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
          const parsed = await simpleParser(raw);
          const to = session.envelope.rcptTo.map((recipient) => recipient.address);
          const stamp = new Date().toISOString().replace(/[:.]/g, '-');
          const file = dir ? join(dir, `${stamp}-${received.length + 1}.eml`) : undefined;
          if (file) writeFileSync(file, raw);
          const mail = {
            to,
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
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
            raw: raw.toString('utf8'),
            file,
          };
          received.push(mail);
          if (!quiet) console.log(`✉  mail to ${to.join(', ')}: ${mail.subject}${file ? `  (${file})` : ''}`);
          for (const waiter of waiters) waiter();
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
    /** Resolves with the first email that matches, waiting up to `timeoutMs`. */
    waitFor(matches, timeoutMs = 90_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = received.find(matches);
          if (!found) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`No matching email within ${timeoutMs} ms (${received.length} received).`));
        }, timeoutMs);
        if (!check()) waiters.add(check);
      });
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
