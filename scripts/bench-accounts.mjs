// Accounts for the benches: an expert signs up, confirms the address from the email the local
// Worker's SMTP sink kept (as a person follows the link), submits a profile and is approved.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { simpleParser } from 'mailparser';
import { DEMO_TEST_PASSWORD } from './local-worker.mjs';

/** The confirmation link's path in the email the sink kept for `email`. */
async function verificationPath(worker, email) {
  const mailDir = worker.mailDir;
  // Up to 90 s: under `npm test` every suite runs side by side on two cores (Chromium too, in CI),
  // the queue waits its turn, and a send the busy sink refused is retried after its backoff. Every
  // 20 s the minute's cron runs, as it would deployed: its email sweep sends what the queue gave up.
  for (let attempt = 0; attempt < 900; attempt++) {
    if (attempt > 0 && attempt % 200 === 0)
      await fetch(`${worker.url}/__scheduled?cron=${encodeURIComponent('* * * * *')}`).catch(() => {});
    for (const file of readdirSync(mailDir).filter((name) => name.endsWith('.eml'))) {
      const raw = readFileSync(join(mailDir, file), 'utf8');
      if (!raw.includes(email)) continue;
      const match = /\/auth\/verify\/(atk_[0-9a-z]+\.[0-9a-f]+)/.exec((await simpleParser(raw)).text ?? '');
      if (match) return `/auth/verify/${match[1]}`;
    }
    await sleep(100);
  }
  throw new Error(`No confirmation email reached ${email}.`);
}

/** Signs an account up and confirms its address; answers the session cookie. */
export async function signUpConfirmed(worker, { email, password, role }) {
  const signUp = await fetch(`${worker.url}/auth/sign-up`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: worker.url },
    body: new URLSearchParams({ email, password, role }).toString(),
  });
  const cookie = signUp.headers.get('Set-Cookie').split(';')[0];
  const confirmed = await fetch(`${worker.url}${await verificationPath(worker, email)}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: worker.url },
    body: '',
  });
  if (confirmed.status !== 200) throw new Error(`Confirming ${email}: ${confirmed.status}`);
  return cookie;
}

/**
 * An active expert for `domain`: signed up, confirmed, profile submitted, approved. Answers the
 * headers of its session's API calls.
 */
export async function activeExpert(worker, adminCall, { domain, index, name, headline }) {
  const email = `bench.${name.toLowerCase()}.${Date.now().toString(36)}.${index}@example.com`;
  const cookie = await signUpConfirmed(worker, {
    email,
    password: `${DEMO_TEST_PASSWORD} ${index}`,
    role: 'provider',
  });
  const headers = { Cookie: cookie, Origin: worker.url, 'Content-Type': 'application/json' };
  const profile = await fetch(`${worker.url}/api/provider/profile`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      kind: 'expert',
      display_name: `${name} ${index}`,
      headline,
      accepted_scope: { domains: [domain], topics: [] },
      languages: ['en'],
      regions: ['global'],
      submit: true,
    }),
  }).then((response) => response.json());
  await adminCall(worker, `/api/admin/providers/${profile.provider_id}/approve`, { version: profile.version });
  return headers;
}
