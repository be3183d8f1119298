/*
 * The body of a `POST /api/v1/sync/blobs/batch` answer (docs/sync.md): one frame per hash
 * asked for, in the order asked. A frame is an ASCII header line, the hash, one space, then the
 * blob's size in decimal bytes (or `-` when the companion holds no such version), and `\n`,
 * followed by exactly that many bytes. No padding, nothing after the last frame.
 *
 *   <64 hex> SP <size> LF <size bytes>     a blob
 *   <64 hex> SP "-" LF                     a version the companion does not hold
 *
 * Pure: the companion writes headers with `blobBatchFrameHeader`, the plugin reads answers with
 * `parseBlobBatch` (and checks each blob's bytes against its hash itself).
 */

/** The header line of one frame; `size` null: the companion holds no such version. */
export function blobBatchFrameHeader(hash: string, size: number | null): string {
  return `${hash} ${size === null ? '-' : String(size)}\n`;
}

export type BlobBatchParse =
  /** Every hash asked for: its bytes (a view into the answer), or null when not held. */
  | { readonly ok: true; readonly blobs: ReadonlyMap<string, Uint8Array | null> }
  | { readonly ok: false; readonly message: string };

const HASH_LENGTH = 64;
const SPACE = 0x20;
const NEWLINE = 0x0a;
const DASH = 0x2d;
/** Sizes are at most 15 digits (the per-file limit is far below 10^15 bytes). */
const MAX_SIZE_DIGITS = 15;

/**
 * Splits an answer into its frames, checking that they are the hashes asked for, in order, each
 * whole, with nothing left over. Never copies the bytes: each blob is a view of `body`.
 */
export function parseBlobBatch(body: Uint8Array, hashes: readonly string[]): BlobBatchParse {
  const blobs = new Map<string, Uint8Array | null>();
  let at = 0;
  for (const [index, hash] of hashes.entries()) {
    const fail = (what: string): BlobBatchParse => ({
      ok: false,
      message: `frame ${index} (${hash.slice(0, 12)}) at byte ${at}: ${what}`,
    });
    if (body.length - at < HASH_LENGTH + 3) return fail('the answer ends before its header');
    for (let i = 0; i < HASH_LENGTH; i++) {
      if (body[at + i] !== hash.charCodeAt(i)) return fail('not the hash asked for here');
    }
    if (body[at + HASH_LENGTH] !== SPACE) return fail('no space after the hash');
    let cursor = at + HASH_LENGTH + 1;
    if (body[cursor] === DASH && body[cursor + 1] === NEWLINE) {
      blobs.set(hash, null);
      at = cursor + 2;
      continue;
    }
    let size = 0;
    let digits = 0;
    while (cursor < body.length && body[cursor] !== NEWLINE) {
      const digit = (body[cursor] as number) - 0x30;
      if (digit < 0 || digit > 9 || ++digits > MAX_SIZE_DIGITS) {
        return fail('the size is not a decimal number');
      }
      size = size * 10 + digit;
      cursor++;
    }
    if (digits === 0 || cursor >= body.length) return fail('the size is not a decimal number');
    const start = cursor + 1;
    if (body.length - start < size) {
      return fail(`${size} bytes announced, ${body.length - start} left in the answer`);
    }
    blobs.set(hash, body.subarray(start, start + size));
    at = start + size;
  }
  if (at !== body.length) {
    return { ok: false, message: `${body.length - at} bytes after the last frame` };
  }
  return { ok: true, blobs };
}
