/** Chunk sizes, in characters (UTF-16 code units, as `string.length` counts). */
export interface ChunkOptions {
  /** Pieces are packed up to about this size. */
  targetChars: number;
  /** No chunk is ever longer than this, code blocks and tables included. */
  maxChars: number;
  /** How much of the previous piece a split section repeats, cut at a sentence or word start. */
  overlapChars: number;
}

/**
 * ~1,000 characters is about 200–250 English words: small enough to quote as evidence and to
 * stay within USE-lite's useful input, large enough to keep a list or a short section whole.
 */
export const DEFAULT_CHUNK_OPTIONS: Readonly<ChunkOptions> = {
  targetChars: 1000,
  maxChars: 1500,
  overlapChars: 150,
};

/** Fills in defaults and rejects sizes that cannot work together. */
export function resolveChunkOptions(options: Partial<ChunkOptions> = {}): ChunkOptions {
  const resolved = { ...DEFAULT_CHUNK_OPTIONS, ...options };
  const { targetChars, maxChars, overlapChars } = resolved;
  if (!Number.isInteger(maxChars) || maxChars < 16) {
    throw new RangeError(`chunk options: maxChars must be an integer ≥ 16 (got ${maxChars})`);
  }
  if (!Number.isInteger(targetChars) || targetChars < 1 || targetChars > maxChars) {
    throw new RangeError(
      `chunk options: targetChars must be an integer in 1..maxChars (got ${targetChars}, maxChars ${maxChars})`,
    );
  }
  if (!Number.isInteger(overlapChars) || overlapChars < 0 || overlapChars >= targetChars) {
    throw new RangeError(
      `chunk options: overlapChars must be an integer in 0..targetChars-1 (got ${overlapChars})`,
    );
  }
  return resolved;
}
