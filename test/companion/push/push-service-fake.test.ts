import { createECDH } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkVapid, decryptPushBody } from '../../fakes/push-service';
import { repoRoot } from '../../helpers/corpora';

/*
 * The local push service is the judge of the sender's crypto, and web-push encrypts with the
 * same http_ece the fake decrypts with. So the fake is checked here against the RFCs' own
 * published values, independently of web-push.
 */

interface Vectors {
  rfc8291_appendix_a: {
    plaintext_utf8: string;
    ua_public: string;
    ua_private: string;
    auth_secret: string;
    body: string;
  };
  rfc8292_vapid_example: {
    authorization_header: string;
    k: string;
    decoded_claims: { aud: string };
  };
}

const vectors = JSON.parse(
  readFileSync(join(repoRoot, 'test/companion/push/fixtures/webpush-rfc-examples.json'), 'utf8'),
) as Vectors;

describe('the fake push service against RFC 8291 / RFC 8292 examples', () => {
  it('decrypts the RFC 8291 Appendix A message to its plaintext', () => {
    const example = vectors.rfc8291_appendix_a;
    const receiver = createECDH('prime256v1');
    receiver.setPrivateKey(Buffer.from(example.ua_private, 'base64url'));
    expect(receiver.getPublicKey().toString('base64url')).toBe(example.ua_public);
    const body = Buffer.from(example.body, 'base64url');
    expect(decryptPushBody(body, receiver, example.auth_secret)).toBe(example.plaintext_utf8);

    const tampered = Buffer.from(body);
    tampered[tampered.length - 1] = (tampered[tampered.length - 1] ?? 0) ^ 1;
    expect(() => decryptPushBody(tampered, receiver, example.auth_secret)).toThrow();
    expect(() => decryptPushBody(body, receiver, 'AAAAAAAAAAAAAAAAAAAAAA')).toThrow();
  });

  it('verifies the RFC 8292 token signature, then rejects it as expired (2016)', () => {
    const example = vectors.rfc8292_vapid_example;
    const check = checkVapid(example.authorization_header, example.decoded_claims.aud);
    // Every check before expiry passed: header, key, ES256 signature, audience.
    expect(check).toMatchObject({
      valid: false,
      problem: 'JWT exp is missing or past',
      publicKey: example.k,
    });
  });

  it('rejects a tampered token, a wrong audience and malformed headers', () => {
    const example = vectors.rfc8292_vapid_example;
    const [scheme, rest = ''] = example.authorization_header.split(' t=');
    const [token = '', key = ''] = rest.split(', k=');
    const [head, , signature] = token.split('.');
    const claims = Buffer.from(
      JSON.stringify({ ...example.decoded_claims, sub: 'mailto:evil@example.com' }),
    ).toString('base64url');
    expect(
      checkVapid(`${scheme} t=${head}.${claims}.${signature}, k=${key}`, example.decoded_claims.aud)
        .problem,
    ).toBe('JWT signature does not verify with k');
    expect(checkVapid(example.authorization_header, 'https://other.example').problem).toBe(
      'JWT aud is https://push.example.net, not https://other.example',
    );
    expect(checkVapid(undefined, 'https://push.example.net').problem).toBe(
      'no Authorization header',
    );
    expect(checkVapid('Bearer abc', 'https://push.example.net').problem).toMatch(/not "vapid/);
    expect(checkVapid(`vapid t=a.b, k=${key}`, 'https://push.example.net').problem).toBe(
      'JWT does not have three parts',
    );
  });
});
