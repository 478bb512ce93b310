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

/**
 * Every email the sink has received so far (or those to `to`). A connection the busy machine drops
 * is tried again: vi.waitUntil stops at the first error its check throws.
 */
export const sink = async (to?: string): Promise<Mail[]> => {
  const url = to ? `${env.TEST_MAIL_SINK_URL}?to=${encodeURIComponent(to)}` : env.TEST_MAIL_SINK_URL;
  for (let attempt = 1; ; attempt++) {
    try {
      return await (await fetch(url)).json();
    } catch (error) {
      if (attempt >= 3) throw error;
    }
  }
};

/** The first email to `address` (whose subject matches), once it has arrived. */
export const mailTo = async (address: string, subject?: RegExp) =>
  until(async () =>
    (await sink(address)).find((mail) => mail.to.includes(address) && (!subject || subject.test(mail.subject))),
  );
