import { timingSafeEqual } from 'node:crypto';
import { sha256 } from './token';

/** Why a request failed authentication; the message goes to the client, so it never echoes input. */
export type BearerFailure = 'missing' | 'malformed' | 'wrong';

export type BearerResult = { ok: true } | { ok: false; failure: BearerFailure };

/** The sha256 of the token an `Authorization` header presents, or why there is none. */
export type PresentedToken = { ok: true; sha256: Buffer } | { ok: false; failure: BearerFailure };

/**
 * Reads `Authorization: Bearer <token>`. The scheme is case-insensitive (RFC 7235 §2.1), the
 * token is exact: no trimming, so a token with a trailing newline or space is wrong. Only its
 * sha256 leaves this function.
 */
export function presentedToken(header: string | undefined): PresentedToken {
  if (header === undefined || header === '') return { ok: false, failure: 'missing' };
  const match = /^bearer (.+)$/is.exec(header);
  if (!match?.[1]) return { ok: false, failure: 'malformed' };
  return { ok: true, sha256: sha256(match[1]) };
}

/**
 * Compares two token hashes in constant time. Both sides are hashes, which hides the expected
 * length and cannot throw on a length mismatch (ASVS 11.2.4).
 */
export function sameTokenHash(presentedSha256: Buffer, expectedSha256: Buffer): boolean {
  return timingSafeEqual(presentedSha256, expectedSha256);
}

/** Checks an `Authorization` header against one expected token's sha256. */
export function checkBearer(header: string | undefined, expectedSha256: Buffer): BearerResult {
  const presented = presentedToken(header);
  if (!presented.ok) return presented;
  return sameTokenHash(presented.sha256, expectedSha256)
    ? { ok: true }
    : { ok: false, failure: 'wrong' };
}

export const bearerFailureMessages: Record<BearerFailure, string> = {
  missing: 'missing Authorization header; send "Authorization: Bearer <token>"',
  malformed: 'malformed Authorization header; expected "Bearer <token>"',
  wrong: 'invalid token',
};
