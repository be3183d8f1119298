import { timingSafeEqual } from 'node:crypto';
import { sha256 } from './token';

/** Why a request failed authentication; the message goes to the client, so it never echoes input. */
export type BearerFailure = 'missing' | 'malformed' | 'wrong';

export type BearerResult = { ok: true } | { ok: false; failure: BearerFailure };

/**
 * Checks an `Authorization` header against the expected token's sha256.
 *
 * The scheme is case-insensitive (RFC 7235 §2.1), the token is exact: no trimming, so a
 * token with a trailing newline or space is wrong. Both sides are hashed before the
 * constant-time compare, which hides the expected length and cannot throw on a length
 * mismatch (ASVS 11.2.4).
 */
export function checkBearer(header: string | undefined, expectedSha256: Buffer): BearerResult {
  if (header === undefined || header === '') return { ok: false, failure: 'missing' };
  const match = /^bearer (.+)$/is.exec(header);
  if (!match?.[1]) return { ok: false, failure: 'malformed' };
  const presented = sha256(match[1]);
  return timingSafeEqual(presented, expectedSha256)
    ? { ok: true }
    : { ok: false, failure: 'wrong' };
}

export const bearerFailureMessages: Record<BearerFailure, string> = {
  missing: 'missing Authorization header; send "Authorization: Bearer <token>"',
  malformed: 'malformed Authorization header; expected "Bearer <token>"',
  wrong: 'invalid token',
};
