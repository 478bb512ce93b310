/**
 * Public ids: a prefix, 10 characters of millisecond time and 16 of randomness, all in
 * Crockford base32 (lower case). They sort by creation time and reveal nothing else.
 */
import { clock } from './clock';
const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

export type IdPrefix =
  | 'org'
  | 'ws'
  | 'usr'
  | 'prv'
  | 'ch'
  | 'key'
  | 'lead'
  | 'dem'
  | 'exe'
  | 'aud'
  | 'req'
  | 'evt'
  | 'whk'
  | 'adm'
  | 'inv'
  | 'cnv'
  | 'lev'
  | 'ptr'
  | 'eml'
  | 'ctr'
  | 'esc'
  | 'stm'
  | 'rfr'
  /** A workspace's request for an API key or a webhook endpoint, decided by a platform admin. */
  | 'prq'
  /** A knowledge source, and a question the knowledge declined. */
  | 'ks'
  | 'kgap'
  /** A single-use account link (a password reset). */
  | 'atk'
  /** A second factor of an account (an authenticator app). */
  | 'fac'
  /** A privacy request (an erasure or an export). */
  | 'pvr'
  /** A card top-up, and a webhook delivery from Stripe as recorded (docs/design/billing.md#card-top-ups). */
  | 'pay'
  | 'pev'
  /**
   * Internal only: conversation messages, agent attempts, the webhook-id of each signed call, and an execution batch's
   * guard row.
   */
  | 'msg'
  | 'att'
  | 'call'
  | 'grd'
  /** Internal only: ledger entries and the transfers they belong to. */
  | 'led'
  | 'trf';

function encodeTime(milliseconds: number): string {
  let out = '';
  let remaining = milliseconds;
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD[remaining % 32] + out;
    remaining = Math.floor(remaining / 32);
  }
  return out;
}

const RANDOM_CHARS = 16;
const RANDOM_SPACE = 32n ** BigInt(RANDOM_CHARS);

let lastTime = 0;
let lastRandom = 0n;

function randomValue(): bigint {
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  return value % RANDOM_SPACE;
}

function encodeRandom(value: bigint): string {
  let out = '';
  let remaining = value;
  for (let i = 0; i < RANDOM_CHARS; i++) {
    out = CROCKFORD[Number(remaining % 32n)] + out;
    remaining /= 32n;
  }
  return out;
}

/** A random step of 1 to 2^40: the gap between two ids of one millisecond says nothing of how many came between. */
function randomStep(): bigint {
  const bytes = crypto.getRandomValues(new Uint8Array(5));
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  return value + 1n;
}

/**
 * Ids minted by one isolate sort in the order they were minted, even within one millisecond
 * (the ULID monotonic rule): the random part then moves up from the previous id's, by a random
 * step rather than by one, so that an id does not tell another tenant how many were minted
 * beside it.
 */
export function newId(prefix: IdPrefix, now: number = clock.now()): string {
  let time = now;
  if (time <= lastTime) {
    time = lastTime;
    lastRandom = (lastRandom + randomStep()) % RANDOM_SPACE;
  } else {
    lastTime = time;
    lastRandom = randomValue();
  }
  return `${prefix}_${encodeTime(time)}${encodeRandom(lastRandom)}`;
}

/** The millisecond an id was minted at (its time part), or 0 for a string that is not an id. */
export function idTime(id: string): number {
  const encoded = id.slice(id.indexOf('_') + 1, id.indexOf('_') + 11);
  let time = 0;
  for (const char of encoded) {
    const digit = CROCKFORD.indexOf(char);
    if (digit < 0) return 0;
    time = time * 32 + digit;
  }
  return encoded.length === 10 ? time : 0;
}

/**
 * A cursor that sorts before every id minted `milliseconds` earlier than `id` or later (a prefix
 * and a time, no randomness): reading "after" it reads that span again.
 */
export function idBefore(id: string, milliseconds: number): string {
  const separator = id.indexOf('_');
  const encoded = id.slice(separator + 1, separator + 11);
  let time = 0;
  for (const character of encoded) time = time * 32 + CROCKFORD.indexOf(character);
  return `${id.slice(0, separator)}_${encodeTime(Math.max(0, time - milliseconds))}`;
}

/** The smallest id of `prefix` minted at `at`: every id minted earlier sorts before it. */
export function idAt(prefix: IdPrefix, at: number): string {
  return `${prefix}_${encodeTime(Math.max(0, at))}`;
}

/** A W3C trace id: 32 lower-case hex characters, not all zero. */
export function newTraceId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Extracts the trace id of a W3C `traceparent` header, or undefined when it is not valid. */
export function traceIdFromTraceparent(header: string | undefined): string | undefined {
  const match = header?.trim().match(/^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/);
  const traceId = match?.[1];
  return traceId && !/^0+$/.test(traceId) ? traceId : undefined;
}
