/**
 * Identifiers for notes Cairn writes. shared/ has no crypto of its own, so the caller passes
 * a random-bytes source (`(n) => crypto.getRandomValues(new Uint8Array(n))` in Node and
 * browsers alike, a seeded one in tests).
 */

export type RandomBytes = (count: number) => Uint8Array;

/** A random (version 4) UUID, e.g. `0f8c6f1e-6a55-4a53-9a7c-1d2b1c7f4e10`: the note's `id`. */
export function newNoteId(randomBytes: RandomBytes): string {
  const bytes = takeBytes(randomBytes, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = toHex(bytes);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Four hex digits (`3f9a`): the suffix that separates notes whose titles slug alike. */
export function newShortId(randomBytes: RandomBytes): string {
  return toHex(takeBytes(randomBytes, 2));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for any UUID spelling (Cairn writes v4; users may paste others). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

function takeBytes(randomBytes: RandomBytes, count: number): Uint8Array {
  const bytes = randomBytes(count);
  if (!(bytes instanceof Uint8Array) || bytes.length < count) {
    throw new Error(`random source gave ${bytes?.length ?? 0} bytes, ${count} needed`);
  }
  return bytes.slice(0, count);
}

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
