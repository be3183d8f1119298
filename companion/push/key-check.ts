import { ECDH } from 'node:crypto';

/*
 * The schema checks the keys' shape (base64url, 65 and 16 bytes). This checks what a pattern
 * cannot: that p256dh is a point on the P-256 curve. A bad point would be accepted here and then
 * fail every encryption at send time, so the device would silently never ring.
 */

/** Why `p256dh` is not a usable P-256 public key, or null. */
export function p256dhProblem(p256dh: string): string | null {
  const bytes = Buffer.from(p256dh.replace(/=+$/, ''), 'base64url');
  if (bytes.length !== 65 || bytes[0] !== 0x04) {
    return 'must be a 65-byte uncompressed P-256 public key (base64url)';
  }
  try {
    ECDH.convertKey(bytes, 'prime256v1');
  } catch {
    return 'is not a point on the P-256 curve';
  }
  return null;
}

/** Browsers send unpadded base64url; some libraries pad. Stored and sent unpadded. */
export function unpadBase64url(value: string): string {
  return value.replace(/=+$/, '');
}
