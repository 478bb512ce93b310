import { describe, expect, it } from 'vitest';
import { SoftAuthenticator } from '../../test/worker/soft-authenticator';
import { decodeCbor, derToRawSignature, verifyAssertion, verifyRegistration, WebAuthnError } from './webauthn';

const ORIGIN = 'https://console.example.com';
const RP = 'console.example.com';

/** Expectations whose challenge is taken once. */
function expected(challenge: string, overrides: { origin?: string; rpId?: string } = {}) {
  let open = true;
  return {
    origin: overrides.origin ?? ORIGIN,
    rpId: overrides.rpId ?? RP,
    takeChallenge: async (given: string) => {
      const ok = open && given === challenge;
      open = false;
      return ok;
    },
  };
}

async function registered() {
  const device = new SoftAuthenticator(ORIGIN);
  const answer = await device.register({ challenge: 'register-challenge', rp: { id: RP } });
  const stored = await verifyRegistration({ id: answer.id, ...answer.response }, expected('register-challenge'));
  return { device, stored };
}

describe('WebAuthn registration', () => {
  it('answers the credential, its COSE key and counter', async () => {
    const { device, stored } = await registered();
    expect(stored).toMatchObject({ id: device.id, counter: 1 });
    expect(stored.publicKey).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('refuses another origin, another relying party, and an unknown or used challenge', async () => {
    const device = new SoftAuthenticator('https://evil.example.com');
    const answer = await device.register({ challenge: 'c1', rp: { id: RP } });
    const parts = { id: answer.id, ...answer.response };
    await expect(verifyRegistration(parts, expected('c1'))).rejects.toThrow('origin does not match');
    const honest = new SoftAuthenticator(ORIGIN);
    const other = await honest.register({ challenge: 'c2', rp: { id: 'other.example.com' } });
    await expect(verifyRegistration({ id: other.id, ...other.response }, expected('c2'))).rejects.toThrow(
      'relying party',
    );
    const again = await honest.register({ challenge: 'c3', rp: { id: RP } });
    const once = expected('c3');
    await verifyRegistration({ id: again.id, ...again.response }, once);
    await expect(verifyRegistration({ id: again.id, ...again.response }, once)).rejects.toThrow('challenge');
    await expect(verifyRegistration({ id: 'AAAA', ...again.response }, expected('c3'))).rejects.toThrow(
      'credential id',
    );
  });
});

describe('WebAuthn sign-in', () => {
  it('verifies the signature with the stored key, and the counter moves forward', async () => {
    const { device, stored } = await registered();
    const answer = await device.assert({ challenge: 's1', rpId: RP });
    expect(await verifyAssertion(answer.response, stored, expected('s1'))).toBe(2);
  });

  it('refuses a replay (the counter did not move), a changed signature and a wrong type', async () => {
    const { device, stored } = await registered();
    const answer = await device.assert({ challenge: 's2', rpId: RP });
    const moved = { ...stored, counter: await verifyAssertion(answer.response, stored, expected('s2')) };
    await expect(verifyAssertion(answer.response, moved, expected('s2'))).rejects.toThrow('counter');
    const next = await device.assert({ challenge: 's3', rpId: RP });
    const signature = next.response.signature;
    const flipped = signature.slice(0, -4) + (signature.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    await expect(
      verifyAssertion({ ...next.response, signature: flipped }, moved, expected('s3')),
    ).rejects.toBeInstanceOf(WebAuthnError);
    const registration = await device.register({ challenge: 's4', rp: { id: RP } });
    await expect(
      verifyAssertion(
        { ...next.response, clientDataJSON: registration.response.clientDataJSON },
        moved,
        expected('s4'),
      ),
    ).rejects.toThrow('type');
  });
});

describe('CBOR and signatures', () => {
  it('refuses truncated and deeply nested CBOR, and reads a DER signature as r‖s', () => {
    expect(() => decodeCbor(new Uint8Array([0x5a, 0, 0, 1, 0]))).toThrow(WebAuthnError);
    expect(() => decodeCbor(new Uint8Array(40).fill(0x81))).toThrow('deeply');
    expect(decodeCbor(new Uint8Array([0xa1, 0x01, 0x38, 0x18])).value).toEqual(new Map([[1, -25]]));
    const der = new Uint8Array([0x30, 0x08, 0x02, 0x02, 0x00, 0x80, 0x02, 0x02, 0x01, 0x02]);
    const raw = derToRawSignature(der);
    expect([raw[31], raw[62], raw[63]]).toEqual([0x80, 0x01, 0x02]);
  });
});
