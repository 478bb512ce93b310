/** What the Worker's SMTP sink received (test/worker/mail-sink.global.mjs), for the tests of emails. */
import { env } from 'cloudflare:test';
import { vi } from 'vitest';

export const until = <T>(check: () => T | Promise<T>) => vi.waitUntil(check, { timeout: 15_000, interval: 50 });

export interface Mail {
  to: string[];
  fromMailboxes: Array<{ name: string; address: string }>;
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
  raw: string;
}

/** Every email the sink has received so far. */
export const sink = async (): Promise<Mail[]> => (await fetch(env.TEST_MAIL_SINK_URL)).json();

/** The first email to `address` (whose subject matches), once it has arrived. */
export const mailTo = async (address: string, subject?: RegExp) =>
  until(async () =>
    (await sink()).find((mail) => mail.to.includes(address) && (!subject || subject.test(mail.subject))),
  );
