import {
  RERANK_FACTOR,
  RERANK_MIN,
  RotatedSignCoder,
  closestCodes,
} from '../../shared/search/vector-matrix';

/**
 * Cosine search over normalised vectors, kept beside the keyword index rather than in it:
 * giving a keyword-indexed chunk its vector later must not touch its postings. All vectors live
 * in one growing Float32Array (slot × dims), so a scan walks memory in order and a removed
 * vector's slot is reused.
 *
 * An exact scan of 40k × 512 floats (10k notes) cost 12–24 ms a query here, the whole cost of a
 * hybrid search. So each vector also has the companion's rotated sign code (64 bytes at 512
 * dims, shared/search/vector-matrix.ts): a Hamming scan of the codes picks the candidates, and
 * only those (at least RERANK_MIN) are compared exactly. With no more vectors than that, or a
 * filter that lets fewer through, the search is exact. Codes are persisted with the vectors
 * (2.5 MB at 40k): recomputing them cost 0.25–0.45 s of a 10k-note restart. Codes of another
 * coder, or none (an older snapshot), are recomputed at load, in steps.
 */
/** The vectors as persisted: unit length, in key order, `dims` floats each. */
export interface VectorSnapshot {
  dims: number;
  keys: readonly string[];
  data: Float32Array;
  /** Their sign codes, `words` per vector, written by the coder named `coder`. */
  codes?: Int32Array;
  coder?: string;
}

export interface FlatVectorIndexOptions {
  /**
   * Candidates compared exactly after the code scan: at least this many (default the larger of
   * RERANK_MIN and RERANK_FACTOR × limit). `Infinity` makes every search exact.
   */
  rerank?: number;
}

/**
 * Vectors whose codes are computed between two UI turns of a load: ~8 µs each at 512 dims on a
 * loaded machine (40k: ~300 ms in all), so a step stays near 10 ms.
 */
const LOAD_CODES_PER_STEP = 1500;
/** Keys put in the key table per step of `loadInSteps` (10k keys were a ~20–60 ms step). */
const LOAD_KEYS_PER_STEP = 5_000;

export class FlatVectorIndex {
  private data: Float32Array;
  private codes: Int32Array;
  private readonly coder: RotatedSignCoder;
  private readonly keys: Array<string | undefined> = [];
  private readonly slotOf = new Map<string, number>();
  private readonly freeSlots: number[] = [];

  constructor(
    readonly dims: number,
    private readonly options: FlatVectorIndexOptions = {},
  ) {
    this.coder = new RotatedSignCoder(dims);
    this.data = new Float32Array(dims * 64);
    this.codes = new Int32Array(this.coder.words * 64);
  }

  get size(): number {
    return this.slotOf.size;
  }

  /** Stores a unit-length copy; a vector of the wrong size or with no direction is refused. */
  set(key: string, vector: Float32Array): boolean {
    if (vector.length !== this.dims) return false;
    let norm = 0;
    for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
    norm = Math.sqrt(norm);
    if (!(norm > 0) || !Number.isFinite(norm)) return false;
    let slot = this.slotOf.get(key);
    if (slot === undefined) {
      slot = this.freeSlots.pop() ?? this.keys.length;
      if ((slot + 1) * this.dims > this.data.length) this.grow(slot + 1);
      this.keys[slot] = key;
      this.slotOf.set(key, slot);
    }
    const base = slot * this.dims;
    for (let i = 0; i < vector.length; i++) this.data[base + i] = vector[i]! / norm;
    this.coder.encode(this.data, this.codes, slot * this.coder.words, base);
    return true;
  }

  /**
   * Loads `save()`'s output; throws when its parts do not fit. The vectors are used as they
   * are (already unit length), so a restart normalises nothing.
   */
  static load(snapshot: VectorSnapshot, options: FlatVectorIndexOptions = {}): FlatVectorIndex {
    const steps = FlatVectorIndex.loadInSteps(snapshot, options);
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
    }
  }

  /**
   * `load` with a pause (a `yield`) every LOAD_CODES_PER_STEP vectors while their codes are
   * computed (40k vectors: ~100 ms in all, too much for one UI turn).
   */
  static *loadInSteps(
    snapshot: VectorSnapshot,
    options: FlatVectorIndexOptions = {},
  ): Generator<void, FlatVectorIndex, void> {
    const { dims, keys, data } = snapshot;
    if (!Number.isInteger(dims) || dims < 1 || !(data instanceof Float32Array)) {
      throw new Error('vector index: dimensions or data missing');
    }
    if (data.length !== keys.length * dims) {
      throw new Error(`vector index: ${data.length} floats for ${keys.length} × ${dims}`);
    }
    const index = new FlatVectorIndex(dims, options);
    index.data = data;
    index.codes = new Int32Array(Math.max(1, keys.length) * index.coder.words);
    for (const [slot, key] of keys.entries()) {
      if (slot > 0 && slot % LOAD_KEYS_PER_STEP === 0) yield;
      if (index.slotOf.has(key)) throw new Error(`vector index: ${key} twice`);
      index.keys[slot] = key;
      index.slotOf.set(key, slot);
    }
    const words = index.coder.words;
    const { codes, coder } = snapshot;
    if (
      codes instanceof Int32Array &&
      coder === index.coder.id &&
      codes.length === keys.length * words
    ) {
      if (codes.length > 0) index.codes = codes;
      return index;
    }
    for (let slot = 0; slot < keys.length; slot++) {
      if (slot % LOAD_CODES_PER_STEP === 0) yield;
      index.coder.encode(data, index.codes, slot * words, slot * dims);
    }
    return index;
  }

  /**
   * Room for `count` vectors without growing again. Growing copies every vector (80 MB at 40k ×
   * 512): called while the index is still empty, the first embedding pass never copies.
   */
  reserve(count: number): void {
    if (count * this.dims > this.data.length) this.grow(count);
  }

  /**
   * The vectors without gaps, for persisting (vectors are first moved into freed slots). A view
   * of this index's buffer, not a copy (80 MB at 40k × 512 would be one long task): persist it
   * before the index changes again. The store copies it out in parts.
   */
  save(): VectorSnapshot {
    const words = this.coder.words;
    let to = 0;
    for (let from = 0; from < this.keys.length; from++) {
      const key = this.keys[from];
      if (key === undefined) continue;
      if (from !== to) {
        this.data.copyWithin(to * this.dims, from * this.dims, (from + 1) * this.dims);
        this.codes.copyWithin(to * words, from * words, (from + 1) * words);
        this.keys[to] = key;
        this.slotOf.set(key, to);
      }
      to++;
    }
    this.keys.length = to;
    this.freeSlots.length = 0;
    return {
      dims: this.dims,
      keys: this.keys as string[],
      data: to * this.dims === this.data.length ? this.data : this.data.subarray(0, to * this.dims),
      codes: to * words === this.codes.length ? this.codes : this.codes.subarray(0, to * words),
      coder: this.coder.id,
    };
  }

  /** Deletes every vector whose key `keep` refuses. */
  retain(keep: (key: string) => boolean): void {
    for (const key of [...this.slotOf.keys()]) if (!keep(key)) this.delete(key);
  }

  has(key: string): boolean {
    return this.slotOf.has(key);
  }

  /** A copy of `key`'s stored (unit) vector, or undefined when it has none. */
  get(key: string): Float32Array | undefined {
    const slot = this.slotOf.get(key);
    if (slot === undefined) return undefined;
    return this.data.slice(slot * this.dims, (slot + 1) * this.dims);
  }

  delete(key: string): void {
    const slot = this.slotOf.get(key);
    if (slot === undefined) return;
    this.slotOf.delete(key);
    this.keys[slot] = undefined;
    this.freeSlots.push(slot);
  }

  /**
   * The `limit` most similar keys passing `accept` (every key when it is omitted), cosine ≥
   * `floor`, best first; equal scores by key, so the order does not depend on the order vectors
   * were added in.
   *
   * The code scan picks the candidates among all vectors, then `accept` is asked only about
   * those worth a place. When that leaves fewer than `limit` (a narrow filter), `accept` is
   * asked about every key, and the ones it lets through are compared exactly when they fit the
   * re-rank budget, or else prefiltered by code among themselves.
   */
  search(
    query: Float32Array,
    limit: number,
    floor: number,
    accept?: (key: string) => boolean,
  ): Array<{ key: string; score: number }> {
    let norm = 0;
    for (let i = 0; i < query.length; i++) norm += query[i]! * query[i]!;
    norm = Math.sqrt(norm);
    if (query.length !== this.dims || !(norm > 0) || limit < 1) return [];
    const unit = new Float32Array(this.dims);
    for (let i = 0; i < this.dims; i++) unit[i] = query[i]! / norm;
    const budget = this.options.rerank ?? Math.max(RERANK_MIN, RERANK_FACTOR * limit);
    const live = this.liveSlots(() => true);
    const candidates = live.length <= budget ? live : this.closest(unit, live, budget);
    const best = this.rank(unit, candidates, limit, floor, accept);
    if (accept === undefined || best.length >= limit || candidates === live) return best;
    const accepted = this.liveSlots(accept);
    const narrowed = accepted.length <= budget ? accepted : this.closest(unit, accepted, budget);
    return this.rank(unit, narrowed, limit, floor, undefined);
  }

  private liveSlots(accept: (key: string) => boolean): Int32Array {
    const slots = new Int32Array(this.slotOf.size);
    let count = 0;
    for (let slot = 0; slot < this.keys.length; slot++) {
      const key = this.keys[slot];
      if (key !== undefined && accept(key)) slots[count++] = slot;
    }
    return count === slots.length ? slots : slots.subarray(0, count);
  }

  private closest(unit: Float32Array, slots: Int32Array, budget: number): Int32Array {
    return closestCodes(this.coder, this.codes, unit, slots, budget);
  }

  /** Exact cosine over `slots`, the best `limit` passing `floor` and `accept`. */
  private rank(
    unit: Float32Array,
    slots: Int32Array,
    limit: number,
    floor: number,
    accept: ((key: string) => boolean) | undefined,
  ): Array<{ key: string; score: number }> {
    const best: Array<{ key: string; score: number }> = [];
    const before = (score: number, key: string, other: { key: string; score: number }) =>
      score > other.score || (score === other.score && key < other.key);
    const { data, dims, keys } = this;
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i]!;
      const key = keys[slot]!;
      const dot = dotAt(data, slot * dims, unit);
      if (dot < floor) continue;
      if (best.length === limit && !before(dot, key, best[best.length - 1]!)) continue;
      if (accept !== undefined && !accept(key)) continue;
      let at = best.length;
      while (at > 0 && before(dot, key, best[at - 1]!)) at--;
      best.splice(at, 0, { key, score: dot });
      if (best.length > limit) best.pop();
    }
    return best;
  }

  private grow(slots: number): void {
    const capacity = Math.max(Math.ceil((this.data.length / this.dims) * 1.5), slots);
    const data = new Float32Array(capacity * this.dims);
    data.set(this.data);
    this.data = data;
    const codes = new Int32Array(capacity * this.coder.words);
    codes.set(this.codes);
    this.codes = codes;
  }
}

/**
 * `data[base …]` · `unit`, four running sums at a time: ~1.3–1.6× faster than one sum in V8
 * here (40k × 512 floats: 16 → 12 ms), the whole cost of a hybrid query at 10k notes.
 */
function dotAt(data: Float32Array, base: number, unit: Float32Array): number {
  const dims = unit.length;
  const whole = dims - (dims % 4);
  let a = 0;
  let b = 0;
  let c = 0;
  let d = 0;
  for (let i = 0; i < whole; i += 4) {
    a += data[base + i]! * unit[i]!;
    b += data[base + i + 1]! * unit[i + 1]!;
    c += data[base + i + 2]! * unit[i + 2]!;
    d += data[base + i + 3]! * unit[i + 3]!;
  }
  for (let i = whole; i < dims; i++) a += data[base + i]! * unit[i]!;
  return a + b + c + d;
}
