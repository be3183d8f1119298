/*
 * One embedding model's vectors in memory, for a nearest-neighbour search that needs no SQLite
 * round trip per query. Each vector is kept twice:
 *
 * - normalised float32, for the exact cosine similarity of the final ranking (the scores search
 *   returns are the true cosines, as sqlite-vec computed them before);
 * - a 1 bit per dimension sign code of the vector after a fixed random rotation (random sign
 *   flips, then a Walsh–Hadamard transform; SimHash): the Hamming distance of two codes
 *   estimates their angle, so a scan of the codes picks the few hundred candidates worth an
 *   exact comparison.
 *
 * Why this, measured 2026-11-23 on 2 loaded cores (scripts/bench, 10k generated notes, 39,838
 * distinct texts × 512 dims): sqlite-vec's vec0 brute force took p50 46 ms; a float32 scan in
 * plain JS ~30 ms (80 MB read per query). The codes are 64 bytes a vector (2.5 MB at 40k): the
 * Hamming scan costs a few ms, and the exact re-rank of ~1,000 candidates under 1 ms. The
 * rotation matters: the signs of the raw coordinates found almost none of the true neighbours
 * of the bench's bag-of-words vectors (all coordinates ≥ 0: a sign says only "word present"),
 * while the rotated ones keep recall@10 ≥ 0.97 there, and ~1.0 on USE-lite vectors either way.
 */

/** Candidates re-ranked exactly: at least this many, or `RERANK_FACTOR` × k when larger. */
export const RERANK_MIN = 1000;
export const RERANK_FACTOR = 20;

/** A fixed seed: codes only need to agree between the stored vectors and the query. */
const ROTATION_SEED = 0x9e3779b9;

export interface VectorNeighbour {
  /** The id the vector was added under (index_vectors.id). */
  id: number;
  /** Cosine similarity, in [-1, 1]; 0 for a zero vector. */
  similarity: number;
}

export class VectorMatrix {
  readonly dims: number;
  private readonly coder: RotatedSignCoder;
  private readonly words: number;
  /**
   * The normalised vectors, `BLOCK_SLOTS` slots a block (the first one smaller while the matrix
   * is small): a full matrix gets one more block, and no vector is ever copied to grow.
   */
  private readonly blocks: Float32Array[] = [];
  private codes: Int32Array;
  private ids: Float64Array;
  private readonly slotOf = new Map<number, number>();
  private count = 0;

  constructor(dims: number, capacity = 1024) {
    if (!Number.isInteger(dims) || dims < 1)
      throw new RangeError(`vector matrix: bad dims ${dims}`);
    this.dims = dims;
    this.coder = new RotatedSignCoder(dims);
    this.words = this.coder.words;
    const initial = Math.max(1, capacity);
    this.blocks.push(new Float32Array(Math.min(initial, BLOCK_SLOTS) * dims));
    while (this.floatSlots() < initial) this.blocks.push(new Float32Array(BLOCK_SLOTS * dims));
    this.codes = new Int32Array(initial * this.words);
    this.ids = new Float64Array(initial);
  }

  get size(): number {
    return this.count;
  }

  has(id: number): boolean {
    return this.slotOf.has(id);
  }

  /** A copy of the (normalised) vector stored under `id`, or undefined. */
  get(id: number): Float32Array | undefined {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return undefined;
    const base = (slot & BLOCK_MASK) * this.dims;
    return this.blocks[slot >>> BLOCK_SHIFT]!.slice(base, base + this.dims);
  }

  /** Bytes held by the vectors and codes (capacity included). */
  get bytes(): number {
    let bytes = this.codes.byteLength + this.ids.byteLength;
    for (const block of this.blocks) bytes += block.byteLength;
    return bytes;
  }

  /** Adds or replaces the vector stored under `id`. */
  set(id: number, vector: Float32Array): void {
    if (vector.length !== this.dims) {
      throw new RangeError(`vector matrix: ${vector.length} dimensions, expected ${this.dims}`);
    }
    let slot = this.slotOf.get(id);
    if (slot === undefined) {
      if (this.count === this.ids.length) this.grow();
      if (this.count === this.floatSlots()) this.addBlock();
      slot = this.count++;
      this.slotOf.set(id, slot);
      this.ids[slot] = id;
    }
    const norm = Math.sqrt(dot(vector, 0, vector, 0, this.dims));
    const block = this.blocks[slot >>> BLOCK_SHIFT]!;
    const base = (slot & BLOCK_MASK) * this.dims;
    for (let j = 0; j < this.dims; j++) block[base + j] = norm > 0 ? vector[j]! / norm : 0;
    this.coder.encode(vector, this.codes, slot * this.words);
  }

  /** Removes `id`'s vector (the last slot moves into its place). */
  delete(id: number): boolean {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return false;
    this.slotOf.delete(id);
    const last = --this.count;
    if (slot !== last) {
      const movedId = this.ids[last]!;
      this.ids[slot] = movedId;
      this.slotOf.set(movedId, slot);
      const from = (last & BLOCK_MASK) * this.dims;
      this.blocks[slot >>> BLOCK_SHIFT]!.set(
        this.blocks[last >>> BLOCK_SHIFT]!.subarray(from, from + this.dims),
        (slot & BLOCK_MASK) * this.dims,
      );
      this.codes.copyWithin(slot * this.words, last * this.words, (last + 1) * this.words);
    }
    // The last block goes once empty with the one before it half empty (no churn at the edge).
    const blocks = this.blocks.length;
    if (blocks > 1 && this.count <= (blocks - 1) * BLOCK_SLOTS - BLOCK_SLOTS / 2) this.blocks.pop();
    return true;
  }

  /**
   * The `k` vectors most similar to `query`, best first (ties by id), plus any tied with the
   * k-th. `only`, when given,
   * restricts the search to those ids (unknown ids are ignored). Exact when the candidates
   * fit the re-rank budget (`rerank`, default the larger of RERANK_MIN and RERANK_FACTOR × k),
   * otherwise the Hamming prefilter picks which are compared exactly.
   */
  nearest(
    query: Float32Array,
    k: number,
    options: { only?: Iterable<number>; rerank?: number } = {},
  ): VectorNeighbour[] {
    const { only } = options;
    if (query.length !== this.dims) {
      throw new RangeError(
        `vector matrix: query of ${query.length} dimensions, expected ${this.dims}`,
      );
    }
    if (k <= 0 || this.count === 0) return [];
    let slots: Int32Array;
    if (only === undefined) {
      slots = new Int32Array(this.count);
      for (let i = 0; i < this.count; i++) slots[i] = i;
    } else {
      const wanted: number[] = [];
      for (const id of only) {
        const slot = this.slotOf.get(id);
        if (slot !== undefined) wanted.push(slot);
      }
      slots = Int32Array.from(wanted);
    }
    const budget = options.rerank ?? Math.max(RERANK_MIN, RERANK_FACTOR * k);
    const candidates =
      slots.length <= budget ? slots : closestCodes(this.coder, this.codes, query, slots, budget);
    return this.rerank(query, candidates, k);
  }

  private rerank(query: Float32Array, slots: Int32Array, k: number): VectorNeighbour[] {
    const dims = this.dims;
    const queryNorm = Math.sqrt(dot(query, 0, query, 0, dims));
    const scored: VectorNeighbour[] = new Array<VectorNeighbour>(slots.length);
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i]!;
      const block = this.blocks[slot >>> BLOCK_SHIFT]!;
      const similarity =
        queryNorm > 0 ? dot(block, (slot & BLOCK_MASK) * dims, query, 0, dims) / queryNorm : 0;
      scored[i] = { id: this.ids[slot]!, similarity };
    }
    scored.sort((a, b) => b.similarity - a.similarity || a.id - b.id);
    if (scored.length <= k) return scored;
    // Vectors tied with the k-th stay: the caller breaks ties by its own key (chunk id).
    let end = k;
    while (end < scored.length && scored[end]!.similarity === scored[k - 1]!.similarity) end++;
    return scored.slice(0, end);
  }

  private floatSlots(): number {
    const blocks = this.blocks.length;
    return (blocks - 1) * BLOCK_SLOTS + this.blocks[blocks - 1]!.length / this.dims;
  }

  /**
   * Room for more vectors: while the matrix is one block smaller than BLOCK_SLOTS that block
   * doubles (a small copy), after that a new block is added and nothing is copied. Growing one
   * array instead, by a quarter, held up to a quarter spare and left the old array (80 MB at
   * 40k × 512 dims) as garbage each time; a matrix loaded halfway through the first
   * embedding grew twice and idled at twice the memory of its vectors until a full GC.
   */
  private addBlock(): void {
    const first = this.blocks[0]!;
    if (this.blocks.length === 1 && first.length < BLOCK_SLOTS * this.dims) {
      const slots = Math.min(BLOCK_SLOTS, (first.length / this.dims) * 2);
      const grown = new Float32Array(slots * this.dims);
      grown.set(first);
      this.blocks[0] = grown;
    } else {
      this.blocks.push(new Float32Array(BLOCK_SLOTS * this.dims));
    }
  }

  /** Room for more ids and codes (8 + 4 × words bytes a slot: small next to the vectors). */
  private grow(): void {
    // Doubling while small, by a quarter once large, so at most a quarter is spare.
    const size = this.ids.length;
    const capacity = size < LARGE_MATRIX ? size * 2 : Math.ceil(size * 1.25);
    const codes = new Int32Array(capacity * this.words);
    codes.set(this.codes);
    this.codes = codes;
    const ids = new Float64Array(capacity);
    ids.set(this.ids);
    this.ids = ids;
  }
}

/** Slots from which the ids and codes grow by a quarter instead of doubling. */
const LARGE_MATRIX = 16_384;

/** Vectors a block holds (8 MB at 512 dims): at most one block is spare. A power of two. */
const BLOCK_SHIFT = 12;
const BLOCK_SLOTS = 1 << BLOCK_SHIFT;
const BLOCK_MASK = BLOCK_SLOTS - 1;

function dot(
  a: Float32Array,
  aOffset: number,
  b: Float32Array,
  bOffset: number,
  length: number,
): number {
  let sum = 0;
  for (let j = 0; j < length; j++) sum += a[aOffset + j]! * b[bOffset + j]!;
  return sum;
}

/** ±1 per position from a small deterministic generator (mulberry32). */
function randomSigns(length: number, seed: number): Float64Array {
  const signs = new Float64Array(length);
  let state = seed >>> 0;
  for (let i = 0; i < length; i++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    signs[i] = ((t ^ (t >>> 14)) >>> 0) & 1 ? 1 : -1;
  }
  return signs;
}

/**
 * The fixed random rotation (sign flips, then a Walsh–Hadamard transform) and the 1 bit per
 * dimension code of a rotated vector. Shared by the companion's VectorMatrix and the plugin's
 * FlatVectorIndex, which keep their vectors differently but prefilter the same way.
 */
export class RotatedSignCoder {
  /** Code length in bits: `dims` rounded up to a power of two (the transform's size). */
  readonly bits: number;
  /** 32-bit words per code. */
  readonly words: number;
  /** Names the code this coder writes: codes persisted under another id must be recomputed. */
  readonly id: string;
  private readonly signs: Float64Array;
  private readonly rotated: Float64Array;

  constructor(readonly dims: number) {
    let bits = 32;
    while (bits < dims) bits *= 2;
    this.bits = bits;
    this.words = bits / 32;
    this.id = `rotated-sign-1:${dims}:${bits}:${ROTATION_SEED.toString(16)}`;
    this.signs = randomSigns(bits, ROTATION_SEED);
    this.rotated = new Float64Array(bits);
  }

  /** Writes the sign code of the rotated `vector` (read from `from`) into `out` at word `offset`. */
  encode(vector: Float32Array, out: Int32Array, offset: number, from = 0): void {
    const x = this.rotated;
    const signs = this.signs;
    const n = this.bits;
    const dims = this.dims;
    for (let j = 0; j < dims; j++) x[j] = vector[from + j]! * signs[j]!;
    x.fill(0, dims);
    // Walsh–Hadamard transform in place; its first two levels at once (n ≥ 32): this runs for
    // every vector loaded, so it is most of the load time.
    for (let i = 0; i < n; i += 4) {
      const a = x[i]!;
      const b = x[i + 1]!;
      const c = x[i + 2]!;
      const d = x[i + 3]!;
      x[i] = a + b + (c + d);
      x[i + 1] = a - b + (c - d);
      x[i + 2] = a + b - (c + d);
      x[i + 3] = a - b - (c - d);
    }
    for (let h = 4; h < n; h *= 2) {
      for (let i = 0; i < n; i += 2 * h) {
        for (let j = i; j < i + h; j++) {
          const a = x[j]!;
          const b = x[j + h]!;
          x[j] = a + b;
          x[j + h] = a - b;
        }
      }
    }
    for (let w = 0; w < this.words; w++) {
      let word = 0;
      const base = w * 32;
      for (let bit = 0; bit < 32; bit++) if (x[base + bit]! > 0) word |= 1 << bit;
      out[offset + w] = word;
    }
  }
}

/**
 * The `budget` of `slots` whose codes (in `codes`, `coder.words` per slot) are nearest the
 * query's, in slot-list order (a counting select, no sort).
 */
export function closestCodes(
  coder: RotatedSignCoder,
  codes: Int32Array,
  query: Float32Array,
  slots: Int32Array,
  budget: number,
): Int32Array {
  const words = coder.words;
  const queryCode = new Int32Array(words);
  coder.encode(query, queryCode, 0);
  const distances = new Uint16Array(slots.length);
  const histogram = new Int32Array(coder.bits + 1);
  for (let i = 0; i < slots.length; i++) {
    const base = slots[i]! * words;
    let distance = 0;
    for (let w = 0; w < words; w++) {
      // Population count of the differing bits (SWAR: bits per 2, 4, then 8 summed at once).
      let x = codes[base + w]! ^ queryCode[w]!;
      x -= (x >>> 1) & 0x55555555;
      x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
      distance += Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
    }
    distances[i] = distance;
    histogram[distance]!++;
  }
  // The distance below which fewer than `budget` codes lie; ties at it fill up to the budget.
  let cut = 0;
  let below = 0;
  while (cut < coder.bits && below + histogram[cut]! < budget) below += histogram[cut++]!;
  const out = new Int32Array(budget);
  let taken = 0;
  let ties = budget - below;
  for (let i = 0; i < slots.length && taken < budget; i++) {
    const distance = distances[i]!;
    if (distance < cut) out[taken++] = slots[i]!;
    else if (distance === cut && ties > 0) {
      out[taken++] = slots[i]!;
      ties--;
    }
  }
  return taken === budget ? out : out.subarray(0, taken);
}
