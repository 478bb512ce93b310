/**
 * A software passkey for tests: a P-256 key made with Web Crypto, answering the platform's
 * registration and sign-in options as a browser and authenticator would (attestation `none`, the
 * user present and verified), so the Worker's checks run on real signatures. Chromium's virtual
 * authenticator does the same in the browser tests.
 */
import { fromBase64Url, toBase64Url } from '../../worker/lib/base64';

type CborIn = number | string | Uint8Array | Map<CborIn, CborIn>;

/** The little CBOR (RFC 8949) an authenticator writes: integers, byte and text strings, maps. */
function encodeCbor(value: CborIn): Uint8Array<ArrayBuffer> {
  const head = (major: number, length: number): number[] => {
    if (length < 24) return [(major << 5) | length];
    if (length < 0x100) return [(major << 5) | 24, length];
    if (length < 0x10000) return [(major << 5) | 25, length >> 8, length & 0xff];
    return [(major << 5) | 26, (length >>> 24) & 0xff, (length >> 16) & 0xff, (length >> 8) & 0xff, length & 0xff];
  };
  if (typeof value === 'number') return new Uint8Array(value >= 0 ? head(0, value) : head(1, -1 - value));
  if (typeof value === 'string') {
    const bytes = new TextEncoder().encode(value);
    return concat(new Uint8Array(head(3, bytes.length)), bytes);
  }
  if (value instanceof Uint8Array) return concat(new Uint8Array(head(2, value.length)), value);
  const parts = [new Uint8Array(head(5, value.size))];
  for (const [key, item] of value) parts.push(encodeCbor(key), encodeCbor(item));
  return concat(...parts);
}

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Raw r‖s (what Web Crypto signs) as the DER an authenticator sends. */
function rawToDer(raw: Uint8Array): Uint8Array {
  const integer = (bytes: Uint8Array) => {
    let trimmed = bytes;
    while (trimmed.length > 1 && trimmed[0] === 0 && trimmed[1]! < 0x80) trimmed = trimmed.subarray(1);
    const body = trimmed[0]! >= 0x80 ? concat(new Uint8Array([0]), trimmed) : trimmed;
    return concat(new Uint8Array([0x02, body.length]), body);
  };
  const body = concat(integer(raw.subarray(0, 32)), integer(raw.subarray(32)));
  return concat(new Uint8Array([0x30, body.length]), body);
}

const sha256 = async (bytes: Uint8Array) =>
  new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));

/** A passkey on a pretend device, for one origin. */
export class SoftAuthenticator {
  private keys?: CryptoKeyPair;
  readonly credentialId = crypto.getRandomValues(new Uint8Array(16));
  counter = 0;
  constructor(readonly origin: string) {}

  get id(): string {
    return toBase64Url(this.credentialId);
  }

  private async authenticatorData(rpId: string, attested?: Uint8Array): Promise<Uint8Array> {
    this.counter += 1;
    const flags = 0x01 | 0x04 | (attested ? 0x40 : 0);
    const count = new Uint8Array([
      (this.counter >>> 24) & 0xff,
      (this.counter >> 16) & 0xff,
      (this.counter >> 8) & 0xff,
      this.counter & 0xff,
    ]);
    return concat(
      await sha256(new TextEncoder().encode(rpId)),
      new Uint8Array([flags]),
      count,
      attested ?? new Uint8Array(),
    );
  }

  private clientData(type: string, challenge: string): Uint8Array {
    return new TextEncoder().encode(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }));
  }

  /** Answers registration options (as @simplewebauthn/browser's startRegistration would). */
  async register(options: { challenge: string; rp: { id: string } }) {
    this.keys = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
      'sign',
      'verify',
    ])) as CryptoKeyPair;
    const jwk = (await crypto.subtle.exportKey('jwk', this.keys.publicKey)) as JsonWebKey;
    const cose = encodeCbor(
      new Map<CborIn, CborIn>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, fromBase64Url(jwk.x!)],
        [-3, fromBase64Url(jwk.y!)],
      ]),
    );
    const idLength = new Uint8Array([this.credentialId.length >> 8, this.credentialId.length & 0xff]);
    const attested = concat(new Uint8Array(16), idLength, this.credentialId, cose);
    const authData = await this.authenticatorData(options.rp.id, attested);
    const attestationObject = encodeCbor(
      new Map<CborIn, CborIn>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON: toBase64Url(this.clientData('webauthn.create', options.challenge)),
        attestationObject: toBase64Url(attestationObject),
        transports: ['internal'],
      },
    };
  }

  /** Answers sign-in options (as startAuthentication would), signing with the registered key. */
  async assert(options: { challenge: string; rpId: string }) {
    if (!this.keys) throw new Error('register first');
    const authData = await this.authenticatorData(options.rpId);
    const clientData = this.clientData('webauthn.get', options.challenge);
    const signed = concat(authData, await sha256(clientData));
    const raw = new Uint8Array(
      await crypto.subtle.sign(
        { name: 'ECDSA', hash: 'SHA-256' },
        this.keys.privateKey,
        signed as Uint8Array<ArrayBuffer>,
      ),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON: toBase64Url(clientData),
        authenticatorData: toBase64Url(authData),
        signature: toBase64Url(rawToDer(raw)),
      },
    };
  }
}
