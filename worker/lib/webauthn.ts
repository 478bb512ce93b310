/**
 * The checks of WebAuthn (W3C Web Authentication, level 2, sections 7.1 and 7.2) that passkeys
 * need, on Web Crypto: a registration's attested public key and an assertion's signature, with
 * the challenge, origin, relying party, user presence and verification checked. Attestation is
 * not asked for (`none`), so no attestation statement is verified: which device it is does not
 * matter here, only that the same key signs later. Keys: ES256, RS256 and Ed25519, the ones
 * passkeys use. A full library (@simplewebauthn/server) was measured at about 100 KiB gzip on the
 * Worker, mostly certificate parsing for attestation formats we never ask for.
 */
import { fromBase64Url, toBase64Url } from './base64';

/** A CBOR value, as authenticators send them. */
export type Cbor = number | string | Uint8Array | boolean | null | undefined | Cbor[] | Map<Cbor, Cbor>;

/** Why a WebAuthn answer was refused (for logs and tests; people are told only that it failed). */
export class WebAuthnError extends Error {
  override name = 'WebAuthnError';
}

const fail = (reason: string): never => {
  throw new WebAuthnError(reason);
};

/** Decodes one CBOR item (RFC 8949, definite lengths) at `offset`; answers it and where it ends. */
export function decodeCbor(bytes: Uint8Array, offset = 0, depth = 0): { value: Cbor; end: number } {
  if (depth > 16) fail('CBOR nested too deeply');
  if (offset >= bytes.length) fail('CBOR ends early');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const initial = bytes[offset]!;
  const major = initial >> 5;
  const info = initial & 0x1f;
  let position = offset + 1;
  const need = (count: number) => {
    if (position + count > bytes.length) fail('CBOR ends early');
  };
  // The argument: in the initial byte, or in the 1, 2, 4 or 8 bytes after it.
  const width = info < 24 ? 0 : info <= 27 ? 2 ** (info - 24) : fail('CBOR indefinite length');
  need(width);
  let argument = info;
  if (width === 1) argument = bytes[position]!;
  else if (width === 2) argument = view.getUint16(position);
  else if (width === 4) argument = view.getUint32(position);
  else if (width === 8) {
    const big = view.getBigUint64(position);
    if (big > BigInt(Number.MAX_SAFE_INTEGER)) fail('CBOR integer too large');
    argument = Number(big);
  }
  position += width;
  switch (major) {
    case 0:
      return { value: argument, end: position };
    case 1:
      return { value: -1 - argument, end: position };
    case 2:
      need(argument);
      return { value: bytes.slice(position, position + argument), end: position + argument };
    case 3:
      need(argument);
      return {
        value: new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(
          bytes.subarray(position, position + argument),
        ),
        end: position + argument,
      };
    case 4: {
      const items: Cbor[] = [];
      for (let index = 0; index < argument; index++) {
        const item = decodeCbor(bytes, position, depth + 1);
        items.push(item.value);
        position = item.end;
      }
      return { value: items, end: position };
    }
    case 5: {
      const map = new Map<Cbor, Cbor>();
      for (let index = 0; index < argument; index++) {
        const key = decodeCbor(bytes, position, depth + 1);
        const value = decodeCbor(bytes, key.end, depth + 1);
        map.set(key.value, value.value);
        position = value.end;
      }
      return { value: map, end: position };
    }
    case 6:
      return decodeCbor(bytes, position, depth + 1);
    default: {
      const simple: Record<number, Cbor> = { 20: false, 21: true, 22: null, 23: undefined };
      if (info in simple) return { value: simple[info], end: position };
      return fail('CBOR simple value or float not expected here');
    }
  }
}

/** What the authenticator data says (section 6.1). */
export interface AuthenticatorData {
  rpIdHash: Uint8Array;
  userPresent: boolean;
  userVerified: boolean;
  signCount: number;
  /** Registration only: the new credential's id and its COSE public key's bytes. */
  credential?: { id: Uint8Array; publicKey: Uint8Array };
}

/** Parses authenticator data: the relying party's hash, the flags, the counter, and an attested credential. */
export function parseAuthenticatorData(bytes: Uint8Array): AuthenticatorData {
  if (bytes.length < 37) fail('authenticator data too short');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const flags = bytes[32]!;
  const data: AuthenticatorData = {
    rpIdHash: bytes.slice(0, 32),
    userPresent: (flags & 0x01) !== 0,
    userVerified: (flags & 0x04) !== 0,
    signCount: view.getUint32(33),
  };
  if ((flags & 0x40) !== 0) {
    if (bytes.length < 55) fail('attested credential data too short');
    const idLength = view.getUint16(53);
    const idEnd = 55 + idLength;
    if (idLength === 0 || idLength > 1023 || idEnd > bytes.length) fail('bad credential id length');
    const key = decodeCbor(bytes, idEnd);
    data.credential = { id: bytes.slice(55, idEnd), publicKey: bytes.slice(idEnd, key.end) };
  }
  return data;
}

/** The signing algorithms accepted, by COSE number (advertised in the registration options). */
export const COSE_ALGORITHMS = [-7, -8, -257] as const;

/** Imports a COSE public key (RFC 9053) for verifying: EC2 P-256 (ES256), OKP Ed25519, RSA (RS256). */
export async function importCoseKey(coseBytes: Uint8Array): Promise<{ key: CryptoKey; alg: number }> {
  const { value } = decodeCbor(coseBytes);
  if (!(value instanceof Map)) return fail('COSE key is not a map');
  const kty = value.get(1);
  const alg = value.get(3);
  const bytes = (label: number) => {
    const field = value.get(label);
    return field instanceof Uint8Array ? toBase64Url(field) : fail(`COSE key lacks ${label}`);
  };
  if (kty === 2 && alg === -7 && value.get(-1) === 1) {
    const jwk = { kty: 'EC', crv: 'P-256', x: bytes(-2), y: bytes(-3) };
    return {
      key: await crypto.subtle.importKey('jwk', jwk, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']),
      alg,
    };
  }
  if (kty === 1 && alg === -8 && value.get(-1) === 6) {
    const jwk = { kty: 'OKP', crv: 'Ed25519', x: bytes(-2) };
    return { key: await crypto.subtle.importKey('jwk', jwk, { name: 'Ed25519' }, false, ['verify']), alg };
  }
  if (kty === 3 && alg === -257) {
    const jwk = { kty: 'RSA', n: bytes(-1), e: bytes(-2) };
    const algorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
    return { key: await crypto.subtle.importKey('jwk', jwk, algorithm, false, ['verify']), alg };
  }
  return fail(`unsupported key (kty ${String(kty)}, alg ${String(alg)})`);
}

/** An ECDSA signature in DER (what authenticators send) as the raw r‖s Web Crypto verifies. */
export function derToRawSignature(der: Uint8Array, size = 32): Uint8Array {
  if (der[0] !== 0x30) fail('ECDSA signature is not a DER sequence');
  let position = der[1]! & 0x80 ? 2 + (der[1]! & 0x7f) : 2;
  const out = new Uint8Array(size * 2);
  for (const half of [0, 1]) {
    if (der[position] !== 0x02) fail('ECDSA signature lacks an integer');
    const length = der[position + 1]!;
    let integer = der.subarray(position + 2, position + 2 + length);
    while (integer.length > size && integer[0] === 0) integer = integer.subarray(1);
    if (integer.length > size) fail('ECDSA integer too long');
    out.set(integer, half * size + size - integer.length);
    position += 2 + length;
  }
  return out;
}

async function sha256(bytes: Uint8Array | string): Promise<Uint8Array> {
  const data = typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes;
  return new Uint8Array(await crypto.subtle.digest('SHA-256', data as Uint8Array<ArrayBuffer>));
}

const sameBytes = (a: Uint8Array, b: Uint8Array) =>
  a.length === b.length && a.every((byte, index) => byte === b[index]);

/** What a ceremony is checked against. */
export interface Expected {
  /** Takes the challenge the answer carries, once; false when it is unknown, used or expired. */
  takeChallenge(challenge: string): Promise<boolean>;
  origin: string;
  rpId: string;
}

/** Checks the client data (sections 7.1 steps 7-10, 7.2 steps 11-14): type, challenge, origin. */
async function checkClientData(clientDataJSON: string, type: string, expected: Expected): Promise<Uint8Array> {
  const raw = fromBase64Url(clientDataJSON);
  let data: { type?: unknown; challenge?: unknown; origin?: unknown; crossOrigin?: unknown };
  try {
    data = JSON.parse(new TextDecoder().decode(raw));
  } catch {
    return fail('client data is not JSON');
  }
  if (data.type !== type) fail(`client data type is not ${type}`);
  if (data.origin !== expected.origin) fail('origin does not match');
  if (data.crossOrigin === true) fail('cross-origin ceremony');
  if (typeof data.challenge !== 'string' || !(await expected.takeChallenge(data.challenge)))
    fail('challenge unknown, used or expired');
  return raw;
}

async function checkAuthenticatorData(data: AuthenticatorData, rpId: string): Promise<void> {
  if (!sameBytes(data.rpIdHash, await sha256(rpId))) fail('relying party does not match');
  if (!data.userPresent) fail('user not present');
  if (!data.userVerified) fail('user not verified');
}

/** A registration answer's parts (base64url), as the browser sends them. */
export interface RegistrationAnswer {
  id: string;
  clientDataJSON: string;
  attestationObject: string;
}

/** Verifies a registration (section 7.1); answers the new credential's id, COSE key and counter. */
export async function verifyRegistration(answer: RegistrationAnswer, expected: Expected) {
  await checkClientData(answer.clientDataJSON, 'webauthn.create', expected);
  const { value } = decodeCbor(fromBase64Url(answer.attestationObject));
  const authData = value instanceof Map ? value.get('authData') : undefined;
  if (!(authData instanceof Uint8Array)) return fail('attestation object lacks authData');
  const data = parseAuthenticatorData(authData);
  await checkAuthenticatorData(data, expected.rpId);
  if (!data.credential) return fail('no attested credential');
  if (toBase64Url(data.credential.id) !== answer.id) fail('credential id does not match');
  await importCoseKey(data.credential.publicKey); // a key we can verify with, or refused now
  return { id: answer.id, publicKey: toBase64Url(data.credential.publicKey), counter: data.signCount };
}

/** An assertion's parts (base64url), as the browser sends them. */
export interface AssertionAnswer {
  clientDataJSON: string;
  authenticatorData: string;
  signature: string;
}

/**
 * Verifies an assertion (section 7.2) by the stored key and counter; answers the new counter.
 * A counter that does not move forward (when either is not zero) is refused: a cloned key.
 */
export async function verifyAssertion(
  answer: AssertionAnswer,
  stored: { publicKey: string; counter: number },
  expected: Expected,
): Promise<number> {
  const clientData = await checkClientData(answer.clientDataJSON, 'webauthn.get', expected);
  const authData = fromBase64Url(answer.authenticatorData);
  const data = parseAuthenticatorData(authData);
  await checkAuthenticatorData(data, expected.rpId);
  const { key, alg } = await importCoseKey(fromBase64Url(stored.publicKey));
  const signed = new Uint8Array(authData.length + 32);
  signed.set(authData);
  signed.set(await sha256(clientData), authData.length);
  const signature = fromBase64Url(answer.signature);
  const algorithm =
    alg === -7 ? { name: 'ECDSA', hash: 'SHA-256' } : alg === -8 ? { name: 'Ed25519' } : { name: 'RSASSA-PKCS1-v1_5' };
  const raw = alg === -7 ? derToRawSignature(signature) : signature;
  const valid = await crypto.subtle.verify(algorithm, key, raw as Uint8Array<ArrayBuffer>, signed);
  if (!valid) fail('signature does not verify');
  if ((data.signCount !== 0 || stored.counter !== 0) && data.signCount <= stored.counter)
    fail('signature counter did not move forward');
  return data.signCount;
}
