/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): every call the platform makes to
 * a customer's endpoint (agents, robots, webhook receivers) carries `webhook-id`,
 * `webhook-timestamp` and `webhook-signature` (`v1,` + base64 HMAC-SHA256 of
 * `{id}.{timestamp}.{body}` under the `whsec_` secret). During a rotation, old and new secrets
 * both sign: the header then holds two signatures, and either verifies.
 */
import { fromBase64, hmacSha256, toBase64 } from './crypto';

const encoder = new TextEncoder();

/** A new `whsec_` secret: 24 random bytes, base64 (what the npm `standardwebhooks` verifier takes). */
export function newWebhookSecret(): string {
  return `whsec_${toBase64(crypto.getRandomValues(new Uint8Array(24)))}`;
}

/** The three Standard Webhooks headers for this exact body, signed by every given secret. */
export async function signStandardWebhook(
  secrets: string[],
  id: string,
  timestampSeconds: number,
  body: string,
): Promise<Record<string, string>> {
  const content = encoder.encode(`${id}.${timestampSeconds}.${body}`);
  const signatures = await Promise.all(
    secrets.map(
      async (secret) => `v1,${toBase64(await hmacSha256(fromBase64(secret.replace(/^whsec_/, '')), content))}`,
    ),
  );
  return { 'webhook-id': id, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': signatures.join(' ') };
}
