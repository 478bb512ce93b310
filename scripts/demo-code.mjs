#!/usr/bin/env node
/**
 * `npm run demo:code`: the demo platform admin's current two-step sign-in code (RFC 6238: the
 * HMAC-SHA1 of the 30-second step, 6 digits), for admin@demo.test on `npm run dev`. The key is
 * the demo seed's (scripts/seed.mjs); add it to an authenticator app instead if you prefer.
 */
import { createHmac } from 'node:crypto';
import { DEMO } from './seed.mjs';

/** Base32 (RFC 4648, no padding) to bytes. */
function base32Bytes(text) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const char of text) bits += alphabet.indexOf(char).toString(2).padStart(5, '0');
  return Buffer.from(bits.match(/.{8}/g).map((byte) => Number.parseInt(byte, 2)));
}

/** The code for a time step. */
export function totpCode(key, step) {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const digest = createHmac('sha1', base32Bytes(key)).update(counter).digest();
  const offset = digest[digest.length - 1] & 0xf;
  return String((digest.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const step = Math.floor(Date.now() / 30_000);
  const left = 30 - Math.floor((Date.now() / 1000) % 30);
  console.log(
    `${totpCode(DEMO.adminTotpKey, step)}  (admin@demo.test; valid ${left} s more, key ${DEMO.adminTotpKey})`,
  );
}
